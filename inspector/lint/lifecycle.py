"""Checks across messages: response ids, reused request ids, order of initialization, batches.

Sans-IO. Pairing comes from the recorder's correlator (`meta.flags`,
`answers_seq`); request-id reuse is tracked here for the whole session,
since the spec forbids reuse even after the first request was answered.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from inspector.lint.revision import RowContext
from inspector.lint.scan import SessionScan
from inspector.protocol import Kind
from inspector.protocol.mcp_tables import is_version_at_least
from inspector.store.models import StoredRow

__all__ = ["IdCheck", "InitializationCheck", "BatchCheck", "orphan"]

Hit = tuple[str, str]


def orphan(rpc_id: str | None) -> Hit:
    """The hit of a response the correlator found no waiting request for (`meta.flags`)."""
    return "unknown-response-id", f"no request with id {rpc_id} is waiting for an answer"


def _flags(row: StoredRow) -> list[list[str]]:
    """Correlation flags of the message, one list per item (one item unless a batch)."""
    found = row.get("meta")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    if row.get("kind") == "batch":
        return [list(i.get("flags") or []) for i in meta.get("items") or [] if isinstance(i, dict)]
    return [list(meta.get("flags") or [])]


_OTHER = {"c2s": "s2c", "s2c": "c2s"}
_NULL_ID_ALLOWED_SINCE = "2025-11-25"  # the schema's error response may leave the id out from here on


class IdCheck:
    """Responses to unknown ids; errors with a null id; request ids reused by the same sender
    (handshake-era sessions)."""

    def __init__(self) -> None:
        self._seen: dict[str, set[str]] = {"c2s": set(), "s2c": set()}
        # Per sender: its requests with a readable id not answered yet (seq -> id), and whether its
        # latest message was one of them (not something unreadable).
        self._pending: dict[str, dict[int, str]] = {"c2s": {}, "s2c": {}}
        self._last_readable: dict[str, int | None] = {"c2s": None, "s2c": None}

    def check(self, ctx: RowContext) -> Iterator[Hit]:
        yield from self._check(ctx)
        if ctx.msg is not None and ctx.items:
            self._note_sent(ctx)

    def _check(self, ctx: RowContext) -> Iterator[Hit]:
        for item, flags in zip(ctx.items, _flags(ctx.row) if ctx.items else [], strict=False):
            # JSON-RPC lets an error carry id null when the request's id could not be read.
            null_error = item.kind is Kind.ERROR and item.rpc_id == "null"
            if null_error:
                yield from self._null_error(ctx, flags)
            if item.kind in (Kind.RESPONSE, Kind.ERROR) and "orphan-response" in flags and not null_error:
                yield orphan(item.rpc_id)
            # 2026-07-28 requests stand alone (no session): reuse is only judged in the handshake era.
            if (
                item.kind is Kind.REQUEST
                and item.rpc_id is not None
                and (reused := self.reused(ctx.direction, item.rpc_id, ctx.stateless)) is not None
            ):
                yield reused

    def reused(self, direction: str, rpc_id: str, stateless: bool) -> Hit | None:
        """Note a request id `direction`'s sender used: the hit when it used it before (judged
        in the handshake era only, `stateless` False)."""
        seen = self._seen[direction]
        hit = None
        if rpc_id in seen and not stateless:
            hit = ("duplicate-request-id", f"id {rpc_id} was already used by an earlier request")
        seen.add(rpc_id)
        return hit

    def sent(self, direction: str, seq: int, request_id: str | None, answers_seq: Any) -> None:
        """After a message (not a batch) of `direction`'s sender: a request with the readable id
        `request_id` waits for its answer, anything else makes its sender's latest message no such
        request; the request it answers (`answers_seq`) waits no more."""
        if request_id is not None:
            self._pending[direction][seq] = request_id
            self._last_readable[direction] = seq
        else:
            self._last_readable[direction] = None
        if isinstance(answers_seq, int):
            self._pending[_OTHER[direction]].pop(answers_seq, None)

    def _note_sent(self, ctx: RowContext) -> None:
        """Keep which readable requests each side is waiting on, and whether its last message was one."""
        request_id = None  # a batch's requests share the row's seq: the last one is kept
        for item in ctx.items:
            if item.kind is Kind.REQUEST and item.rpc_id is not None:
                request_id = item.rpc_id
        self.sent(ctx.direction, ctx.seq, request_id, ctx.row.get("answers_seq"))

    def _null_error(self, ctx: RowContext, flags: list[str]) -> Iterator[Hit]:
        """An error with a null id: wrong when the request's id could be read (the same HTTP exchange's
        request; over stdio, the peer's latest message, a readable request still unanswered), and
        outside the schema of revisions before 2025-11-25 even when it could not."""
        asker = _OTHER[ctx.direction]
        answered = ctx.row.get("answers_seq")
        rpc_id: str | None = None
        if "paired-by-http-exchange" in flags and isinstance(answered, int):
            rpc_id = self._pending[asker].get(answered) or self._seen_id(ctx)
            seq = answered
        else:
            last = self._last_readable[asker]
            seq = last if last is not None else -1
            rpc_id = self._pending[asker].get(seq) if last is not None else None
        if rpc_id is not None:
            yield (
                "error-id-null",
                f"the error answers request #{seq}, whose id {rpc_id} could be read, but carries id null",
            )
        elif ctx.revision and not is_version_at_least(ctx.revision, _NULL_ID_ALLOWED_SINCE):
            yield (
                "error-id-null-in-revision",
                f"an error with id null: revision {ctx.revision} gives every response its request's id",
            )

    @staticmethod
    def _seen_id(ctx: RowContext) -> str | None:
        request = ctx.request_row
        rpc_id = request.get("rpc_id") if request is not None else None
        return rpc_id if isinstance(rpc_id, str) and rpc_id != "null" else None


class InitializationCheck:
    """Requests sent before the handshake allows them (sessions that use initialize)."""

    def __init__(self, scan: SessionScan) -> None:
        self._handshake = scan.handshake

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
