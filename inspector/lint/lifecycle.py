"""Checks across messages: response ids, reused request ids, order of initialization, batches.

Sans-IO. Pairing comes from the recorder's correlator (`meta.flags`,
`answers_seq`); request-id reuse is tracked here for the whole session,
since the spec forbids reuse even after the first request was answered.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mcp_types.version import is_version_at_least

from inspector.lint.revision import RowContext
from inspector.protocol import Kind

__all__ = ["IdCheck", "InitializationCheck", "BatchCheck"]

Hit = tuple[str, str]


def _flags(row: Mapping[str, Any]) -> list[list[str]]:
    """Correlation flags of the message, one list per item (one item unless a batch)."""
    meta = row.get("meta") if isinstance(row.get("meta"), dict) else {}
    if row.get("kind") == "batch":
        return [list(i.get("flags") or []) for i in meta.get("items") or [] if isinstance(i, dict)]
    return [list(meta.get("flags") or [])]


class IdCheck:
    """Responses to unknown ids; request ids reused by the same sender (handshake-era sessions)."""

    def __init__(self) -> None:
        self._seen: dict[str, set[str]] = {"c2s": set(), "s2c": set()}

    def check(self, ctx: RowContext) -> Iterator[Hit]:
        for item, flags in zip(ctx.items, _flags(ctx.row) if ctx.items else [], strict=False):
            # JSON-RPC lets an error carry id null when the request's id could not be read.
            null_error = item.kind is Kind.ERROR and item.rpc_id == "null"
            if item.kind in (Kind.RESPONSE, Kind.ERROR) and "orphan-response" in flags and not null_error:
                yield "unknown-response-id", f"no request with id {item.rpc_id} is waiting for an answer"
            if item.kind is Kind.REQUEST and item.rpc_id is not None:
                seen = self._seen[ctx.direction]
                # 2026-07-28 requests stand alone (no session): reuse is only judged in the handshake era.
                if item.rpc_id in seen and not ctx.stateless:
                    yield "duplicate-request-id", f"id {item.rpc_id} was already used by an earlier request"
                seen.add(item.rpc_id)


class InitializationCheck:
    """Requests sent before the handshake allows them (sessions that use initialize)."""

    def __init__(self, rows: Sequence[Mapping[str, Any]]) -> None:
        self._handshake = any(
            r.get("method") == "initialize" and r.get("kind") == "request" and r.get("direction") == "c2s"
            for r in rows
        )

    def check(self, ctx: RowContext) -> Iterator[Hit]:
        if not self._handshake or ctx.stateless:
            return
        for item in ctx.items:
            if item.kind is not Kind.REQUEST or item.method in ("ping", "initialize"):
                continue
            if ctx.direction == "c2s" and not ctx.init_answered:
                yield (
                    "request-before-initialization",
                    f"the client sent {item.method} before the server answered initialize",
                )
            elif ctx.direction == "s2c" and not ctx.facts.initialized:
                yield (
                    "request-before-initialization",
                    f"the server sent {item.method} before the client's notifications/initialized",
                )


class BatchCheck:
    """JSON-RPC batches: initialize never in one; none at all from 2025-06-18."""

    def check(self, ctx: RowContext) -> Iterator[Hit]:
        if ctx.msg is None or ctx.msg.kind is not Kind.BATCH:
            return
        if any(i.kind is Kind.REQUEST and i.method == "initialize" for i in ctx.items):
            yield "initialize-in-batch", "the batch carries the initialize request"
        if ctx.revision and is_version_at_least(ctx.revision, "2025-06-18"):
            yield "batch-not-allowed", f"a batch of {len(ctx.items)} messages under {ctx.revision}"
