"""Who sent a request without a session id (2026-07-28 Streamable HTTP), without IO.

A 2026-07-28 request carries its client's name and version in
`params._meta["io.modelcontextprotocol/clientInfo"]`; the recording proxy
groups a client's stateless requests by that identity (plus a fingerprint of
its `Authorization` header, never the header itself) across the several
connections an HTTP client pool opens (`SessionRouter`; docs/how-to/record-http.md,
"Conversations, retry pairs and sessions without a session id").

A handshake-era client of a stateless server declares nothing after its
`initialize` (no session id, no `_meta`): its requests are grouped by the peer
it is (`peer_key`: the client's address without the ephemeral port, its
`User-Agent`, the `Authorization` fingerprint) across the connections of its
pool (the TypeScript SDK's fetch alternates two keep-alive connections), and a
new `initialize` (`opens_session`) starts the next run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CLIENT_INFO_META",
    "ClientIdentity",
    "client_identity",
    "grouping_words",
    "opens_session",
    "peer_key",
    "peer_label",
]

CLIENT_INFO_META = "io.modelcontextprotocol/clientInfo"


@dataclass(frozen=True, slots=True)
class ClientIdentity:
    name: str
    version: str | None
    auth: str | None  # "sha256:<12 hex>" of the Authorization header value, if any

    @property
    def key(self) -> str:
        return json.dumps([self.name, self.version, self.auth])

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}" if self.version else self.name


def _fingerprint(value: bytes) -> str:
    import hashlib  # here: `show` imports this module for `grouping_words` and hashes nothing

    return "sha256:" + hashlib.sha256(value).hexdigest()[:12]


def client_identity(body: bytes, authorization: bytes | None) -> ClientIdentity | None:
    """The identity a request body declares in `_meta` (None when it declares none)."""
    if not body.lstrip().startswith(b"{"):
        return None
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    params = doc.get("params") if isinstance(doc, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    info = meta.get(CLIENT_INFO_META) if isinstance(meta, dict) else None
    if not isinstance(info, dict) or not isinstance(info.get("name"), str):
        return None
    version = info.get("version")
    return ClientIdentity(
        info["name"][:200],
        str(version)[:100] if version is not None else None,
        _fingerprint(authorization) if authorization else None,
    )


def peer_key(host: str, user_agent: bytes | None, authorization: bytes | None) -> str:
    """Who a request without a session id or identity comes from, whatever its connection."""
    agent = user_agent.decode("latin-1")[:200] if user_agent else None
    return json.dumps([host, agent, _fingerprint(authorization) if authorization else None])


def peer_label(key: str) -> str:
    """A `peer_key` in words: `127.0.0.1 node` (the address and the User-Agent)."""
    host, agent, _auth = json.loads(key)
    return f"{host} {agent}" if agent else host


def opens_session(body: bytes) -> bool:
    """True for a body that starts a handshake (`initialize`, alone or in a batch)."""
    if b'"initialize"' not in body:
        return False
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return False
    items = doc if isinstance(doc, list) else [doc]
    return any(isinstance(m, dict) and m.get("method") == "initialize" and "id" in m for m in items)


def grouping_words(grouping: Any) -> str | None:
    """The `grouping` session fact in words, for terminal output (the UI says the same)."""
    if not isinstance(grouping, dict):
        return None
    by = grouping.get("by")
    conns = grouping.get("connections") or []
    conn_words = (
        f"connection {conns[0]}" if len(conns) == 1 else "connections " + ", ".join(str(c) for c in conns)
    )
    if by == "client-identity":
        auth = f", authorization {grouping['auth']}" if grouping.get("auth") else ""
        gap = f", idle gap {grouping['idle_gap_s']:g} s" if grouping.get("idle_gap_s") else ""
        return f"grouped by client identity {grouping.get('client')}{auth}, {conn_words}{gap}"
    if by == "peer":
        auth = f", authorization {grouping['auth']}" if grouping.get("auth") else ""
        gap = f", closed gap {grouping['closed_gap_s']:g} s" if grouping.get("closed_gap_s") else ""
        return f"grouped by peer {grouping.get('peer')}{auth}, {conn_words}{gap}"
    if by == "connection":
        return f"grouped by {conn_words}"
    if by == "session-id":
        return "grouped by Mcp-Session-Id"
    return None
