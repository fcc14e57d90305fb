"""The mock client's work with the server beyond plain requests, checked against what it declared.

Subscriptions (at 2026-07-28 through `subscriptions/listen`, `mock/listen.py`), list-changed
opt-in (2026-07-28), completions, log level, ping and tasks. Each operation checks
the server's capabilities (and whether the negotiated revision has the
method) first and raises `Unsupported` with the reason instead of sending a
request the server never offered; params are built with `mcp-types` models.
The responses are returned as they came (a JSON-RPC error is a normal
answer); `Activity` learns subscriptions, log level and task states from them.
"""

from __future__ import annotations

import time
from typing import Any

import mcp_types

from inspector.errors import NotSubscribed, Unsupported
from inspector.mock.client import MockClient
from inspector.mock.inflight import wire
from inspector.mock.listen_state import ListenStream

__all__ = [
    "call_tool_as_task",
    "complete",
    "listen_for_list_changes",
    "ping",
    "set_log_level",
    "subscribe",
    "task_request",
    "task_update",
    "unsubscribe",
]

# Completion `context` (the other arguments) exists since 2025-06-18.
_NO_COMPLETION_CONTEXT = ("2024-11-05", "2025-03-26")
TASK_METHODS = ("tasks/get", "tasks/result", "tasks/cancel", "tasks/list", "tasks/update")


def _features(client: MockClient) -> dict[str, Any]:
    return client.activity.features.to_json()


def _answer(stream: ListenStream | None) -> dict[str, Any]:
    """What a listen change returns: the acknowledgement as it came, or the error answer."""
    if stream is None:
        return {"result": None, "listen": None}
    if stream.ack is not None:
        return {**stream.ack, "listen": stream.to_json()}
    return {**(stream.response or {}), "listen": stream.to_json()}


async def subscribe(client: MockClient, uri: str) -> dict[str, Any]:
    """`resources/subscribe`; the subscription is listed once the server accepted it.
    At 2026-07-28: a new `subscriptions/listen` stream with the URI added to the set."""
    features = _features(client)
    if not features["subscribe"]:
        raise Unsupported(_why(client, "resources/subscribe", "resources.subscribe"))
    if features["listen"]:
        client.activity.listening.want(add=uri)
        return _answer(await client.listens.relisten(f"subscribe {uri}"))
    response = await client.request("resources/subscribe", wire(mcp_types.SubscribeRequestParams(uri=uri)))
    if "result" in response:
        await client._emit("subscription", client.activity.subscribed(uri, time.time()))
    return response


async def unsubscribe(client: MockClient, uri: str) -> dict[str, Any]:
    """`resources/unsubscribe` for a URI the client subscribed to."""
    sub = client.activity.subscriptions.get(uri)
    listening = client.activity.listening
    if _features(client)["listen"] and uri in listening.uris:
        listening.want(remove=uri)
        return _answer(await client.listens.relisten(f"unsubscribe {uri}"))
    if sub is None or not sub.get("subscribed"):
        raise NotSubscribed(f"not subscribed to {uri!r}")
    response = await client.request(
        "resources/unsubscribe", wire(mcp_types.UnsubscribeRequestParams(uri=uri))
    )
    if "result" in response:
        changed = client.activity.unsubscribed(uri)
        if changed is not None:
            await client._emit("subscription", changed)
    return response


async def listen_for_list_changes(client: MockClient, kinds: dict[str, bool]) -> dict[str, Any]:
    """2026-07-28: opt in to (or out of) `notifications/{kind}/list_changed` by listening again."""
    if not _features(client)["listen"]:
        raise Unsupported(
            f"subscriptions/listen does not exist in protocol {client.negotiated_version}: "
            "list_changed notifications come without asking there"
        )
    declared = _features(client)["list_changed"]
    undeclared = [kind for kind, on in kinds.items() if on and not declared.get(kind)]
    if undeclared:
        raise Unsupported(f"the server did not declare {', '.join(undeclared)}.listChanged")
    client.activity.listening.want(kinds=kinds)
    return _answer(await client.listens.relisten("list-changed choice"))


async def complete(
    client: MockClient,
    ref: mcp_types.PromptReference | mcp_types.ResourceTemplateReference,
    name: str,
    value: str,
    context: dict[str, str] | None = None,
) -> dict[str, Any]:
    """`completion/complete` for one argument, with the other filled arguments as context."""
    if not _features(client)["completions"]:
        raise Unsupported(_why(client, "completion/complete", "completions"))
    params = mcp_types.CompleteRequestParams(
        ref=ref, argument=mcp_types.CompletionArgument(name=name, value=value)
    )
    if context and client.negotiated_version not in _NO_COMPLETION_CONTEXT:
        params.context = mcp_types.CompletionContext(arguments=context)
    return await client.request("completion/complete", wire(params))


async def set_log_level(client: MockClient, level: mcp_types.LoggingLevel) -> dict[str, Any] | None:
    """`logging/setLevel`; at 2026-07-28 (no such method) the level is sent in each request's `_meta`."""
    if client.config.stateless:
        client.activity.log_level = level
        await client._emit("log_level", {"level": level, "via": "_meta"})
        return None
    if not _features(client)["set_level"]:
        raise Unsupported(_why(client, "logging/setLevel", "logging"))
    response = await client.request("logging/setLevel", wire(mcp_types.SetLevelRequestParams(level=level)))
    if "result" in response:
        client.activity.log_level = level
        await client._emit("log_level", {"level": level, "via": "logging/setLevel"})
    return response


async def ping(client: MockClient) -> tuple[dict[str, Any], float]:
    """`ping`; the response and the round trip in milliseconds."""
    started = time.perf_counter()
    response = await client.request("ping", None)
    return response, (time.perf_counter() - started) * 1000


async def call_tool_as_task(
    client: MockClient, name: str, arguments: dict[str, Any], ttl_ms: int | None, progress: bool
) -> dict[str, Any]:
    """`tools/call` with `params.task` (2025-11-25): the server answers with a `CreateTaskResult`."""
    if not _features(client)["task_tools"]:
        raise Unsupported("the server did not declare tasks.requests.tools.call (task-augmented tool calls)")
    params = mcp_types.CallToolRequestParams(
        name=name, arguments=arguments, task=mcp_types.TaskMetadata(ttl=ttl_ms)
    )
    return await client.request("tools/call", wire(params), progress=progress)


async def task_request(client: MockClient, method: str, task_id: str | None = None) -> dict[str, Any]:
    """`tasks/get`, `tasks/result`, `tasks/cancel` (with a task id) or `tasks/list`."""
    features = _features(client)
    if not features["tasks"]:
        raise Unsupported("the server did not declare the tasks capability")
    if method == "tasks/list":
        if not features["task_list"]:
            raise Unsupported("the server did not declare tasks.list")
        return await client.request(method, {})
    if method == "tasks/cancel" and not features["task_cancel"]:
        raise Unsupported("the server did not declare tasks.cancel")
    if method not in TASK_METHODS or task_id is None:
        raise ValueError(f"{method} needs a task id")
    if features["task_update"]:  # the extension's params are the task id alone (no 2025-11-25 model)
        return await client.request(method, {"taskId": task_id})
    return await client.request(method, wire(mcp_types.GetTaskRequestParams(task_id=task_id)))


async def task_update(client: MockClient, task_id: str, input_responses: dict[str, Any]) -> dict[str, Any]:
    """`tasks/update` (the tasks extension, 2026-07-28): answer a task's `inputRequests`."""
    if not _features(client)["task_update"]:
        raise Unsupported("the server did not declare the io.modelcontextprotocol/tasks extension")
    return await client.request("tasks/update", {"taskId": task_id, "inputResponses": input_responses})


def _why(client: MockClient, method: str, capability: str) -> str:
    if not client.activity.features.has_method(method):
        return f"{method} does not exist in protocol {client.negotiated_version}"
    return f"the server did not declare the {capability} capability"
