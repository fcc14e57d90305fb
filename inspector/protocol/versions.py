"""Protocol-revision knowledge and the session facts learned from the wire.

Sans-IO. The list of revisions and the per-version method gates are those of
`mcp-types` (the SDK team's package), through its snapshot `protocol.mcp_tables`
(checked against it by a test): importing `mcp_types` itself would put its
pydantic models on the recorder's start-up path.

Two eras are recognised:
- handshake (2024-11-05 .. 2025-11-25): `initialize` offers a version, the
  result names the negotiated one, `notifications/initialized` follows;
- stateless (2026-07-28): `server/discover` and a protocol version, client
  info and capabilities in each request's `_meta`. SDK 2.x clients probe with
  `server/discover` first and fall back to `initialize` on -32601.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from inspector.protocol import mcp_tables as _tables
from inspector.protocol.correlate import Pairing
from inspector.protocol.jsonrpc import Classified, Kind
from inspector.protocol.mcp_tables import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    KNOWN_PROTOCOL_VERSIONS,
    MODERN_PROTOCOL_VERSIONS,
)

__all__ = [
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "KNOWN_PROTOCOL_VERSIONS",
    "MODERN_PROTOCOL_VERSIONS",
    "SessionFacts",
    "method_allowed",
]

_PV = _tables.PROTOCOL_VERSION_META_KEY
_CLIENT_INFO = _tables.CLIENT_INFO_META_KEY
_CLIENT_CAPS = _tables.CLIENT_CAPABILITIES_META_KEY
_SERVER_INFO = _tables.SERVER_INFO_META_KEY

_UNSET = object()
# Module-level members: `Kind.X` is an attribute lookup on the enum class, ~50 ns each time.
_REQUEST, _RESPONSE, _ERROR, _NOTIFICATION, _BATCH = (
    Kind.REQUEST,
    Kind.RESPONSE,
    Kind.ERROR,
    Kind.NOTIFICATION,
    Kind.BATCH,
)
_C2S = (_tables.CLIENT_REQUESTS, _tables.CLIENT_NOTIFICATIONS)
_S2C = (_tables.SERVER_REQUESTS, _tables.SERVER_NOTIFICATIONS)


def method_allowed(method: str, version: str, direction: str) -> bool | None:
    """Whether `method` may be sent in `direction` under `version`; None for an unknown version."""
    if version not in KNOWN_PROTOCOL_VERSIONS:
        return None
    tables = _C2S if direction == "c2s" else _S2C
    return any((method, version) in table for table in tables)


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


@dataclass
class SessionFacts:
    """What the traffic so far says about the session's protocol and peers."""

    era: str | None = None  # "handshake" | "stateless"
    offered_version: str | None = None
    protocol_version: str | None = None
    client_info: dict[str, Any] | None = None
    server_info: dict[str, Any] | None = None
    client_capabilities: dict[str, Any] | None = None
    server_capabilities: dict[str, Any] | None = None
    supported_versions: list[str] | None = None  # from a server/discover result
    discover_fallback: bool = False  # server/discover was refused, initialize followed
    initialized: bool = False  # notifications/initialized seen
    events: list[str] = field(default_factory=list)
    # Set by __setattr__ on the instance; a ClassVar so it is no dataclass field (nor in a snapshot).
    _changed: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "_changed", False)

    def __setattr__(self, name: str, value: Any) -> None:
        # Change tracking on assignment: cheaper than comparing snapshots for every message.
        if getattr(self, name, _UNSET) != value:
            object.__setattr__(self, "_changed", True)
        object.__setattr__(self, name, value)

    def observe(self, direction: str, msg: Classified, pairing: Pairing) -> bool:
        """Learn from one message; return True when any fact changed."""
        object.__setattr__(self, "_changed", False)
        if msg.kind is _BATCH:
            for item, item_pairing in zip(msg.items, pairing.items, strict=False):
                self._observe_one(direction, item, item_pairing)
        else:
            self._observe_one(direction, msg, pairing)
        return self._changed

    def snapshot(self) -> dict[str, Any]:
        """The facts as a plain dict (for storage and comparison)."""
        return asdict(self)

    def _observe_one(self, direction: str, msg: Classified, pairing: Pairing) -> None:
        kind = msg.kind
        if direction == "c2s" and kind is _REQUEST:
            self._on_client_request(msg)
        elif direction == "c2s" and kind is _NOTIFICATION and msg.method == "notifications/initialized":
            self.initialized = True
        elif direction == "s2c" and (kind is _RESPONSE or kind is _ERROR):
            if pairing.request_method == "initialize":
                self._on_initialize_answer(msg)
            elif pairing.request_method == "server/discover":
                self._on_discover_answer(msg)

    def _on_client_request(self, msg: Classified) -> None:
        params = msg.params
        if msg.method == "initialize":
            if self.era == "stateless" and self.protocol_version is None:
                self.discover_fallback = True
            self.era = "handshake"
            version = params.get("protocolVersion")
            self.offered_version = version if isinstance(version, str) else None
            self.client_info = _dict(params.get("clientInfo"))
            self.client_capabilities = _dict(params.get("capabilities"))
            self._event(f"initialize offered {self.offered_version}")
            return
        meta = _dict(params.get("_meta"))
        if meta is None or _PV not in meta:
            return
        version = meta.get(_PV)
        if msg.method == "server/discover" or self.era is None:
            self.era = "stateless"
        if self.era != "stateless":
            return
        if isinstance(version, str):
            if self.offered_version is None:
                self.offered_version = version
            if msg.method != "server/discover":
                self.protocol_version = version
        info, caps = _dict(meta.get(_CLIENT_INFO)), _dict(meta.get(_CLIENT_CAPS))
        if info is not None:
            self.client_info = info
        if caps is not None:
            self.client_capabilities = caps

    def _on_initialize_answer(self, msg: Classified) -> None:
        if msg.kind is Kind.ERROR:
            self._event(f"initialize refused with {msg.error_code}")
            return
        result = msg.result
        version = result.get("protocolVersion")
        self.protocol_version = version if isinstance(version, str) else None
        self.server_info = _dict(result.get("serverInfo"))
        self.server_capabilities = _dict(result.get("capabilities"))
        if self.protocol_version != self.offered_version:
            self._event(f"server counter-offered {self.protocol_version}")

    def _on_discover_answer(self, msg: Classified) -> None:
        if msg.kind is Kind.ERROR:
            self._event(f"server/discover refused with {msg.error_code}")
            return
        result = msg.result
        versions = result.get("supportedVersions")
        self.supported_versions = (
            [v for v in versions if isinstance(v, str)] if isinstance(versions, list) else None
        )
        self.server_capabilities = _dict(result.get("capabilities"))
        meta = _dict(result.get("_meta"))
        self.server_info = _dict(meta.get(_SERVER_INFO)) if meta is not None else None
        if self.supported_versions and self.offered_version in self.supported_versions:
            self.protocol_version = self.offered_version

    def _event(self, text: str) -> None:
        self.events.append(text)
        object.__setattr__(self, "_changed", True)
