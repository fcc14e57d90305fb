"""A snapshot of what `inspector.protocol` and the lint's method gates need from `mcp-types` (2.3.0):
the revisions and how they compare, the `_meta` keys of the stateless era, the URL-elicitation error
code, which methods each revision allows in which direction and which of them have a result.

Why a snapshot: importing `mcp_types` builds every revision's pydantic models (0.5-2 s of a wrapped
server's start-up on a loaded host, 37% of the recorder's imports), and the recorder needs only
these constants (`protocol.versions`). `tests/unit/test_mcp_tables.py` checks the snapshot against
the installed `mcp_types` (`tests/unit/test_commands_import_what_they_use.py` the error code), so a new `mcp-types` release that changes them fails the suite (it
prints the new table). Everything that validates shapes (lint, the mock peers) imports `mcp_types`
itself, where it validates or builds a message: `mcp-inspect call` reaches the server through these
constants alone, and `mcp-inspect lint` of a session whose stored findings are current loads no model.
"""

from __future__ import annotations

__all__ = [
    "CLIENT_CAPABILITIES_META_KEY",
    "CLIENT_INFO_META_KEY",
    "CLIENT_NOTIFICATIONS",
    "CLIENT_REQUESTS",
    "CLIENT_RESULTS",
    "EXTENSION_CLIENT_REQUESTS",
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "KNOWN_PROTOCOL_VERSIONS",
    "LOG_LEVEL_META_KEY",
    "MCP_TYPES_VERSION",
    "MODERN_PROTOCOL_VERSIONS",
    "PROTOCOL_VERSION_META_KEY",
    "SERVER_INFO_META_KEY",
    "SERVER_NOTIFICATIONS",
    "SERVER_REQUESTS",
    "SERVER_RESULTS",
    "URL_ELICITATION_REQUIRED",
    "is_version_at_least",
]

MCP_TYPES_VERSION = "2.3.0"  # the release this snapshot is of (its models: what the lint validates with)

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


def is_version_at_least(version: str, minimum: str) -> bool:
    """`mcp_types.version.is_version_at_least`: whether `version` is a known revision at least as new
    as `minimum` (an unknown `version`: False; an unknown `minimum`: ValueError)."""
    if minimum not in KNOWN_PROTOCOL_VERSIONS:
        raise ValueError(f"minimum must be a known protocol version, got {minimum!r}")
    if version not in KNOWN_PROTOCOL_VERSIONS:
        return False
    return KNOWN_PROTOCOL_VERSIONS.index(version) >= KNOWN_PROTOCOL_VERSIONS.index(minimum)


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
# The (method, revision) pairs of `mcp_types.methods`' result tables: every request has a result.
SERVER_RESULTS = CLIENT_REQUESTS
CLIENT_RESULTS = SERVER_REQUESTS

# Client requests of extensions (not in `mcp-types`): method -> the extension a server declares under
# capabilities.extensions to take it. SEP-2640 Skills (`inspector.protocol.skills`), in every revision.
EXTENSION_CLIENT_REQUESTS: dict[str, str] = {
    "skills/list": "io.modelcontextprotocol/skills",
    "skills/get": "io.modelcontextprotocol/skills",
    "resources/directory/read": "io.modelcontextprotocol/skills",
}
