"""A snapshot of what `inspector.protocol` needs from `mcp-types` (2.3.0): the revisions, the `_meta`
keys of the stateless era, the URL-elicitation error code and which methods each revision allows in
which direction.

Why a snapshot: importing `mcp_types` builds every revision's pydantic models (0.5-2 s of a wrapped
server's start-up on a loaded host, 37% of the recorder's imports), and the recorder needs only
these constants (`protocol.versions`). `tests/unit/test_mcp_tables.py` checks the snapshot against
the installed `mcp_types` (`tests/unit/test_commands_import_what_they_use.py` the error code), so a new `mcp-types` release that changes them fails the suite (it
prints the new table). Everything that validates shapes (lint, the mock peers) imports `mcp_types`
itself, where it validates or builds a message: `mcp-inspect call` reaches the server through these
constants alone.
"""

from __future__ import annotations

__all__ = [
    "CLIENT_CAPABILITIES_META_KEY",
    "CLIENT_INFO_META_KEY",
    "CLIENT_NOTIFICATIONS",
    "CLIENT_REQUESTS",
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "KNOWN_PROTOCOL_VERSIONS",
    "LOG_LEVEL_META_KEY",
    "MODERN_PROTOCOL_VERSIONS",
    "PROTOCOL_VERSION_META_KEY",
    "SERVER_INFO_META_KEY",
    "SERVER_NOTIFICATIONS",
    "SERVER_REQUESTS",
    "URL_ELICITATION_REQUIRED",
]

KNOWN_PROTOCOL_VERSIONS: tuple[str, ...] = (
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
)
HANDSHAKE_PROTOCOL_VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_PROTOCOL_VERSIONS: tuple[str, ...] = ("2026-07-28",)

PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"
LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel"
URL_ELICITATION_REQUIRED = -32042  # the error that asks the client for URL-mode elicitations


def _pairs(by_method: dict[str, tuple[str, ...]]) -> frozenset[tuple[str, str]]:
    return frozenset((method, version) for method, versions in by_method.items() for version in versions)


# (method, revision) pairs: the keys of `mcp_types.methods`' tables of the same names.
CLIENT_REQUESTS = _pairs(
    {
        "completion/complete": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"),
        "initialize": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
        "logging/setLevel": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
        "ping": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
        "prompts/get": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"),
        "prompts/list": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"),
        "resources/list": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"),
        "resources/read": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"),
        "resources/subscribe": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
        "resources/templates/list": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"),
        "resources/unsubscribe": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
        "server/discover": ("2026-07-28",),
        "subscriptions/listen": ("2026-07-28",),
        "tools/call": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"),
        "tools/list": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"),
    }
)
CLIENT_NOTIFICATIONS = _pairs(
    {
        "notifications/cancelled": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"),
        "notifications/initialized": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
        "notifications/progress": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
        "notifications/roots/list_changed": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
    }
)
SERVER_REQUESTS = _pairs(
    {
        "elicitation/create": ("2025-06-18", "2025-11-25"),
        "ping": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
        "roots/list": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
        "sampling/createMessage": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
    }
)
SERVER_NOTIFICATIONS = _pairs(
    {
        "notifications/cancelled": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"),
        "notifications/elicitation/complete": ("2025-11-25",),
        "notifications/message": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"),
        "notifications/progress": ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"),
        "notifications/prompts/list_changed": (
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28",
        ),
        "notifications/resources/list_changed": (
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28",
        ),
        "notifications/resources/updated": (
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28",
        ),
        "notifications/subscriptions/acknowledged": ("2026-07-28",),
        "notifications/tools/list_changed": (
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28",
        ),
    }
)
