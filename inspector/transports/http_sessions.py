"""Which recorded session an HTTP exchange belongs to.

Keys, most specific first:
- `Mcp-Session-Id` (Streamable HTTP): one recorded session per MCP session;
- the `session_id`/`sessionId` query parameter of a legacy HTTP+SSE message
  endpoint, learned from the `endpoint` event;
- otherwise the client's connection (address and port): the first request
  of a Streamable HTTP session (initialize has no session id yet) and every
  request to a stateless server.

When a response assigns an `Mcp-Session-Id`, the connection's session takes
that id and the connection key is released, so the next session started on
the same keep-alive connection is recorded separately.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qs

__all__ = ["SessionRouter", "legacy_session_param"]

_LEGACY_PARAMS = ("session_id", "sessionId")


def legacy_session_param(query: str) -> str | None:
    """The session id a legacy message endpoint URL carries in its query, if any."""
    params = parse_qs(query)
    for name in _LEGACY_PARAMS:
        if params.get(name):
            return params[name][0]
    return None


class SessionRouter:
    """Maps exchanges to recorded session ids, creating sessions on first sight."""

    def __init__(self, create: Callable[[str], int]) -> None:
        self._create = create  # (a human hint) -> new recorded session id
        self._by_key: dict[tuple[str, str], int] = {}

    def route(self, mcp_session_id: str | None, query: str, connection: str) -> tuple[int, tuple[str, str]]:
        """The recorded session for a request, and the key it was found under."""
        if mcp_session_id:
            key = ("mcp", mcp_session_id)
        elif (legacy := legacy_session_param(query)) is not None and ("legacy", legacy) in self._by_key:
            key = ("legacy", legacy)
        else:
            key = ("conn", connection)
        sid = self._by_key.get(key)
        if sid is None:
            sid = self._by_key[key] = self._create(f"{key[0]} {key[1]}")
        return sid, key

    def bind_mcp_session(self, key: tuple[str, str], mcp_session_id: str) -> None:
        """A response assigned an `Mcp-Session-Id` to the session found under `key`."""
        if key[0] != "conn" or ("mcp", mcp_session_id) in self._by_key:
            return
        sid = self._by_key.pop(key)
        self._by_key[("mcp", mcp_session_id)] = sid

    def bind_legacy(self, sid: int, legacy_id: str) -> None:
        """A legacy `endpoint` event named the message endpoint's session id."""
        self._by_key[("legacy", legacy_id)] = sid

    def forget(self, sid: int) -> None:
        """The session ended: new traffic under its keys starts a new one."""
        for key in [k for k, v in self._by_key.items() if v == sid]:
            del self._by_key[key]

    def open_sessions(self) -> set[int]:
        return set(self._by_key.values())
