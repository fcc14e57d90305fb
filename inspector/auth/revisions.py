"""What differs between the authorization spec of each MCP revision, as flags the flow reads."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Revision", "revision_for"]


@dataclass(frozen=True)
class Revision:
    """One revision's authorization rules."""

    name: str
    protected_resource_metadata: bool  # RFC 9728 discovery (2025-06-18 and later)
    resource_indicator: bool  # RFC 8707 `resource` in authorization and token requests
    requires_s256_advertised: bool  # refuse an AS whose metadata lacks S256 (2025-11-25 and later)
    client_id_metadata: bool  # Client ID Metadata Documents (2025-11-25 and later)
    iss_check: bool  # RFC 9207 `iss` validation (2026-07-28 and later)

    def section(self, anchor: str) -> str:
        return f"https://modelcontextprotocol.io/specification/{self.name}/basic/authorization#{anchor}"


_ALL = {
    "2025-03-26": Revision("2025-03-26", False, False, False, False, False),
    "2025-06-18": Revision("2025-06-18", True, True, False, False, False),
    "2025-11-25": Revision("2025-11-25", True, True, True, True, False),
    "2026-07-28": Revision("2026-07-28", True, True, True, True, True),
}


def revision_for(protocol_version: str) -> Revision:
    """The rules for a protocol version: an unknown or newer one gets the newest known rules,
    an older one (2024-11-05 had no authorization spec) the 2025-03-26 ones."""
    if protocol_version in _ALL:
        return _ALL[protocol_version]
    known = sorted(_ALL)
    if protocol_version < known[0]:
        return _ALL[known[0]]
    return _ALL[known[-1]]
