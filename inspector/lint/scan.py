"""What the rules must know of a whole session before its first message: `SessionScan`.

A few rules look ahead: whether the session has an initialize handshake at
all, whether its server speaks the legacy HTTP+SSE transport (an `endpoint`
event), whether it is HTTP, which revision it negotiates (the OAuth legs come
before the initialize exchange), the tools its `tools/list` answers describe
(for `Mcp-Param-*` headers), and whether its HTTP requests say 2026-07-28.
Everything else is learnt message by message, so a session can be checked
as a stream: these facts from a first look (`of_rows` over a list, or the
stored queries of `lint.stored`), then each row fed once to `check.Linter`.

Sans-IO: the facts are folded from rows by `SessionScan.see`, one row at a
time, with only the rows that matter (`wanted_*` say which).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from inspector.lint.revision import header
from inspector.protocol.routing_headers import recorded_tool_schemas
from inspector.protocol.sse import stored_body
from inspector.store.models import StoredRow

__all__ = ["MODERN_HEADER", "SessionScan"]

MODERN_HEADER = "2026-07-28"  # an MCP-Protocol-Version header at least this one: a 2026-07-28 session


def _json_object(body: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


@dataclass
class SessionScan:
    """The look-ahead facts of one session (see the module's docstring)."""

    handshake: bool = False  # the client sent an initialize request
    legacy_sse: bool = False  # the server sent an HTTP+SSE `endpoint` event
    http: bool = False  # some row is an HTTP request
    modern: bool = False  # some HTTP request carries MCP-Protocol-Version >= 2026-07-28
    answered_revision: str | None = None  # the version the first initialize answer names
    offered_revision: str | None = None  # the version the first initialize request offers
    tool_schemas: dict[str, Any] = field(default_factory=dict)  # tool name -> inputSchema

    @property
    def revision(self) -> str | None:
        """The revision the session's initialize answer names (else the one its request offered)."""
        return self.answered_revision or self.offered_revision

    @classmethod
    def of_rows(cls, rows: Iterable[StoredRow]) -> SessionScan:
        """The facts of a whole list of rows (in seq order)."""
        scan = cls()
        for row in rows:
            scan.see(row)
        return scan

    def see(self, row: StoredRow) -> None:
        """Learn from one row (rows in seq order; any subset that holds the rows that matter)."""
        method, kind, channel = row.get("method"), row.get("kind"), row.get("channel")
        if method == "initialize":
            if kind == "request" and row.get("direction") == "c2s":
                self.handshake = True
            if kind in ("request", "response"):
                self._initialize(row)
        elif method == "tools/list" and kind == "response" and row.get("direction") == "s2c":
            self.tool_schemas.update(recorded_tool_schemas([row]))
        if not self.legacy_sse:
            meta = row.get("meta")
            self.legacy_sse = isinstance(meta, dict) and meta.get("event") == "endpoint"
        if channel == "http-request":
            self.http = True
            if not self.modern:
                self.modern = (header(row, "mcp-protocol-version") or "") >= MODERN_HEADER

    def _initialize(self, row: StoredRow) -> None:
        if self.answered_revision is not None:
            return
        doc = _json_object(stored_body(row.get("channel"), bytes(row.get("raw") or b"")))
        part = (doc or {}).get("result" if row.get("kind") == "response" else "params")
        version = part.get("protocolVersion") if isinstance(part, dict) else None
        if not isinstance(version, str):
            return
        if row.get("kind") == "response":
            self.answered_revision = version
        else:
            self.offered_revision = self.offered_revision or version
