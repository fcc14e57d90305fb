"""Who sent a request without a session id (2026-07-28 Streamable HTTP), without IO.

A 2026-07-28 request carries its client's name and version in
`params._meta["io.modelcontextprotocol/clientInfo"]`; the recording proxy
groups a client's stateless requests by that identity (plus a fingerprint of
its `Authorization` header, never the header itself) across the several
connections an HTTP client pool opens (`SessionRouter`, DESIGN-NOTES
"Sessions without a session id").
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

__all__ = ["CLIENT_INFO_META", "ClientIdentity", "client_identity", "grouping_words"]

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
    if by == "connection":
        return f"grouped by {conn_words}"
    if by == "session-id":
        return "grouped by Mcp-Session-Id"
    return None
