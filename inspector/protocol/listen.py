"""`subscriptions/listen` (2026-07-28) as plain data, for both our client and our mock server. No IO.

At 2026-07-28 there is no standing GET stream and no `resources/subscribe`:
a client opts in to change notifications by sending a `subscriptions/listen`
request whose response stream carries them. Its params name what it wants
(`SubscriptionFilter`: tools/prompts/resources `list_changed` flags and
`resourceSubscriptions`, a list of URIs); the first frame on the stream is
`notifications/subscriptions/acknowledged` with the subset the server will
honor; every frame carries `_meta["io.modelcontextprotocol/subscriptionId"]`
equal to the listen request's id; the stream ends with a
`SubscriptionsListenResult` on a graceful close, or just stops. A client
changes its set by listening again (and cancelling the old stream).

Log messages: at 2026-07-28 the client opts in to `notifications/message`
per request through `_meta` (`io.modelcontextprotocol/logLevel`). Our mock
server reads that opt-in on the listen request too: a listen stream whose
request carried a level also gets the log messages at or above it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import mcp_types

__all__ = [
    "ACKNOWLEDGED",
    "LISTEN",
    "LISTEN_STREAM_METHODS",
    "LIST_KINDS",
    "SUBSCRIPTION_ID_META_KEY",
    "admits",
    "build_filter",
    "honored_filter",
    "stamp",
    "subscription_id",
]

# The same values as the SDK's `mcp.shared.subscriptions` (a unit test checks), kept here so the
# protocol core imports no IO library (the SDK package pulls in anyio).
SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId"
LISTEN_STREAM_METHODS = frozenset(
    {
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
    }
)
LISTEN = "subscriptions/listen"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
LIST_KINDS = ("tools", "prompts", "resources")
_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def _wire(model: mcp_types.SubscriptionFilter) -> dict[str, Any]:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def build_filter(uris: list[str], list_changed: dict[str, bool]) -> dict[str, Any]:
    """The wire `SubscriptionFilter` for these resource URIs and list-changed kinds (unset ones left out)."""
    import mcp_types  # its models load where a filter is built or validated, not with the module

    model = mcp_types.SubscriptionFilter(
        tools_list_changed=list_changed.get("tools") or None,
        prompts_list_changed=list_changed.get("prompts") or None,
        resources_list_changed=list_changed.get("resources") or None,
        resource_subscriptions=list(uris) or None,
    )
    return _wire(model)


def honored_filter(requested: Any, capabilities: dict[str, Any]) -> dict[str, Any]:
    """What a server that declared `capabilities` honors of a requested filter (ValueError: not a filter).

    A list-changed kind is honored when the server declared `listChanged` for it, resource
    subscriptions when it declared `resources.subscribe`; unknown (extension) keys are not.
    """
    import mcp_types

    try:
        wanted = mcp_types.SubscriptionFilter.model_validate(requested)
    except ValueError as exc:
        raise ValueError(f"params.notifications is not a SubscriptionFilter: {exc}") from None

    def declared(kind: str, flag: str) -> bool:
        cap = capabilities.get(kind)
        return isinstance(cap, dict) and bool(cap.get(flag))

    return _wire(
        mcp_types.SubscriptionFilter(
            tools_list_changed=True
            if wanted.tools_list_changed and declared("tools", "listChanged")
            else None,
            prompts_list_changed=True
            if wanted.prompts_list_changed and declared("prompts", "listChanged")
            else None,
            resources_list_changed=True
            if wanted.resources_list_changed and declared("resources", "listChanged")
            else None,
            resource_subscriptions=list(wanted.resource_subscriptions)
            if wanted.resource_subscriptions and declared("resources", "subscribe")
            else None,
        )
    )


def admits(honored: dict[str, Any], message: dict[str, Any], log_level: str | None = None) -> bool:
    """Whether a server notification may go on a listen stream with this honored filter."""
    method = message.get("method")
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    assert isinstance(params, dict)
    if method == "notifications/resources/updated":
        return params.get("uri") in (honored.get("resourceSubscriptions") or [])
    if method in LISTEN_STREAM_METHODS:  # the three list_changed
        kind = str(method).split("/")[1]
        return honored.get(f"{kind}ListChanged") is True
    if method == "notifications/message" and log_level in _LEVELS:
        level = params.get("level")
        return level in _LEVELS and _LEVELS.index(level) >= _LEVELS.index(str(log_level))
    return False


def stamp(message: dict[str, Any], rpc_id: Any) -> dict[str, Any]:
    """A copy of `message` whose `params._meta` names the listen stream (the listen request's id)."""
    params = dict(message.get("params") or {})
    params["_meta"] = {**(params.get("_meta") or {}), SUBSCRIPTION_ID_META_KEY: rpc_id}
    return {**message, "params": params}


def subscription_id(message: dict[str, Any]) -> Any:
    """The listen request id a frame names in `params._meta`, or None."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get(SUBSCRIPTION_ID_META_KEY) if isinstance(meta, dict) else None
