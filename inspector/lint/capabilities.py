"""Capability rules: each side only uses what the other declared.

Sans-IO. Client capabilities come from `initialize` (or a 2026-07-28
request's `_meta`), server capabilities from the initialize result (or the
`server/discover` result); while one side's capabilities are unknown its
rules are not applied (a recording that starts mid-session proves nothing).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from inspector.lint.revision import RowContext
from inspector.protocol import Classified, Kind, ParseStatus, SessionFacts
from inspector.protocol.mcp_tables import EXTENSION_CLIENT_REQUESTS, is_version_at_least

__all__ = ["CapabilityCheck"]

Hit = tuple[str, str]

# Client request -> (server capability, sub-capability that must be true, first revision with the capability)
_SERVER_FEATURES: dict[str, tuple[str, str | None, str | None]] = {
    "tools/list": ("tools", None, None),
    "tools/call": ("tools", None, None),
    "resources/list": ("resources", None, None),
    "resources/read": ("resources", None, None),
    "resources/templates/list": ("resources", None, None),
    "resources/subscribe": ("resources", "subscribe", None),
    "resources/unsubscribe": ("resources", "subscribe", None),
    "prompts/list": ("prompts", None, None),
    "prompts/get": ("prompts", None, None),
    "logging/setLevel": ("logging", None, None),
    "completion/complete": ("completions", None, "2025-03-26"),
}
_CLIENT_FEATURES = {
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
    "elicitation/create": "elicitation",
}
_LIST_CHANGED = {
    ("s2c", "notifications/tools/list_changed"): "tools",
    ("s2c", "notifications/resources/list_changed"): "resources",
    ("s2c", "notifications/prompts/list_changed"): "prompts",
    ("c2s", "notifications/roots/list_changed"): "roots",
}


def _cap(caps: dict[str, Any] | None, name: str) -> dict[str, Any] | None:
    value = caps.get(name) if caps is not None else None
    return value if isinstance(value, dict) else ({} if value is True else None)


def _at_least(revision: str | None, minimum: str | None) -> bool:
    return minimum is None or (revision is not None and is_version_at_least(revision, minimum))


class CapabilityCheck:
    """Sampling (with tools), elicitation modes, roots, server features, logging, list_changed."""

    def __init__(self) -> None:
        self._caps_of: Any = None  # the server capabilities `_memo` holds for
        self._memo: dict[tuple[Kind, str, str | None], tuple[Hit, ...]] = {}

    def uses_of_server(
        self,
        seq: int,
        direction: str,
        kind: Kind,
        method: str,
        payload: Any,
        revision: str | None,
        facts: SessionFacts,
    ) -> tuple[Hit, ...]:
        """The hits of a client request or a server notification (`check` for one of those):
        they depend on the method, the revision and the server's capabilities only (remembered
        while those capabilities last)."""
        caps = facts.server_capabilities
        if caps is not self._caps_of:
            self._caps_of = caps
            self._memo.clear()
        key = (kind, method, revision)
        found = self._memo.get(key)
        if found is None:
            item = Classified(ParseStatus.OK, kind, method, None, None, payload)
            row: Any = {"seq": seq, "direction": direction}  # all `RowContext` reads of a row
            ctx = RowContext(row, item, revision, facts, True, None, [item])
            if kind is Kind.REQUEST:
                found = tuple(self._client_request(ctx, item))
            else:
                found = tuple(self._notification(ctx, item))
            self._memo[key] = found
        return found

    def check(self, ctx: RowContext) -> Iterator[Hit]:
        for item in ctx.items:
            # a client's request or a server's notification: what it uses of the server
            if (item.kind is Kind.REQUEST and ctx.direction == "c2s") or (
                item.kind is Kind.NOTIFICATION and ctx.direction == "s2c"
            ):
                yield from self.uses_of_server(
                    ctx.seq,
                    ctx.direction,
                    item.kind,
                    item.method or "",
                    item.payload,
                    ctx.revision,
                    ctx.facts,
                )
            elif item.kind is Kind.REQUEST:
                yield from self._server_request(ctx, item)
            elif item.kind is Kind.NOTIFICATION:
                yield from self._notification(ctx, item)

    def _client_request(self, ctx: RowContext, item: Classified) -> Iterator[Hit]:
        caps = ctx.facts.server_capabilities
        extension = EXTENSION_CLIENT_REQUESTS.get(item.method or "")
        if extension is not None and caps is not None:
            declared = caps.get("extensions")
            settings = declared.get(extension) if isinstance(declared, dict) else None
            if settings is None:
                yield (
                    "skills-extension-not-declared",
                    f"{item.method}, but the server did not declare the {extension} extension",
                )
            elif item.method == "resources/directory/read" and not (
                isinstance(settings, dict) and settings.get("directoryRead") is True
            ):
                yield (
                    "skills-extension-not-declared",
                    f"{item.method}, but the server's {extension} extension does not declare directoryRead",
                )
            return
        feature = _SERVER_FEATURES.get(item.method or "")
        if caps is None or feature is None or not _at_least(ctx.revision, feature[2]):
            return
        name, sub, _since = feature
        declared = _cap(caps, name)
        if declared is None:
            yield "server-capability-not-declared", f"{item.method}, but the server did not declare {name}"
        elif sub is not None and not declared.get(sub):
            yield (
                "server-capability-not-declared",
                f"{item.method}, but the server did not declare {name}.{sub}",
            )

    def _server_request(self, ctx: RowContext, item: Classified) -> Iterator[Hit]:
        caps = ctx.facts.client_capabilities
        name = _CLIENT_FEATURES.get(item.method or "")
        if caps is None or name is None:
            return
        declared = _cap(caps, name)
        params = item.params
        if name == "elicitation" and _at_least(ctx.revision, "2025-11-25"):
            mode = params.get("mode", "form")
            modes = set() if declared is None else ({"form"} if not declared else set(declared))
            if mode not in modes:
                shown = "no elicitation capability" if declared is None else f"modes {sorted(modes)}"
                yield (
                    "elicitation-mode-not-declared",
                    f"elicitation/create in {mode} mode; the client declared {shown}",
                )
            return
        if declared is None:
            yield "client-capability-not-declared", f"{item.method}, but the client did not declare {name}"
            return
        if name == "sampling" and "tools" in params and "tools" not in declared:
            yield (
                "sampling-tools-not-declared",
                "sampling/createMessage with tools, but the client did not declare sampling.tools",
            )

    def _notification(self, ctx: RowContext, item: Classified) -> Iterator[Hit]:
        key = (ctx.direction, item.method or "")
        if key == ("s2c", "notifications/message"):
            caps = ctx.facts.server_capabilities
            # 2026-07-28 clients opt in to log messages per request; the capability rule is the handshake era's.
            if caps is not None and not ctx.stateless and _cap(caps, "logging") is None:
                yield "logging-not-declared", "notifications/message, but the server did not declare logging"
            return
        name = _LIST_CHANGED.get(key)
        if name is None:
            return
        caps = ctx.facts.server_capabilities if ctx.direction == "s2c" else ctx.facts.client_capabilities
        if caps is None:
            return
        declared = _cap(caps, name)
        if declared is None or not declared.get("listChanged"):
            side = "server" if ctx.direction == "s2c" else "client"
            yield (
                "list-changed-not-declared",
                f"{item.method}, but the {side} did not declare {name}.listChanged",
            )
