"""The ignore rules every diff starts from (`DEFAULT_IGNORE`): values a run chooses, not behaviour."""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.replay.paths import PathSet

if TYPE_CHECKING:
    pass


_SERVER_INFO = '["io.modelcontextprotocol/serverInfo"]'

DEFAULT_IGNORE: tuple[str, ...] = (
    # Per-message metadata chosen by the client library, not by the behaviour under test: the
    # progress token, and in 2026-07-28 the protocol version, client info/capabilities and log
    # level on every request; subscription and related-task ids on notifications.
    "params._meta",
    # Progress tokens are chosen per run (also echoed in notifications/progress params).
    "**.progressToken",
    # 2026-07-28 opaque server state the client echoes back; often signed or nonce-bearing.
    "**.requestState",
    # 2026-07-28 servers repeat their serverInfo in every result's _meta: a version bump would mark
    # every exchange changed. Keep it where it is the answer: server/discover.
    f"result._meta{_SERVER_INFO}",
    f"!server/discover:result._meta{_SERVER_INFO}",
    # 2026-07-28 subscriptions: server-assigned ids.
    '**["io.modelcontextprotocol/subscriptionId"]',
    # 2025-11-25 tasks: server-generated ids and wall-clock timestamps of the run.
    "**.taskId",
    "**.createdAt",
    "**.lastUpdatedAt",
    # URL-mode elicitation ids are server-generated.
    "**.elicitationId",
    # Session ids where a payload carries one (the Mcp-Session-Id header is not payload).
    "**.sessionId",
    # notifications/cancelled names the JSON-RPC id of the request it cancels; ids never matter.
    "params.requestId",
    # Pagination cursors are opaque and may differ per run (the replay substitutes new ones); the
    # pages' contents are still compared, and ignoring the cursor lets page k pair with page k.
    "params.cursor",
    "result.nextCursor",
    # Tool definitions are static, and their JSON schemas may well have a property named
    # sessionId or taskId: compare them whole (the last matching pattern decides).
    "!tools/list:result.tools.**",
    "!sampling/createMessage:params.tools.**",
)


def default_ignore(*extra: str) -> PathSet:
    """`DEFAULT_IGNORE` plus `extra` patterns."""
    return PathSet([*DEFAULT_IGNORE, *extra])
