"""Mock client routes for working with the server: requests in flight and cancel, subscriptions,
completions, log level, ping and tasks (see `inspector.mock.operations`).

Operations the server did not declare answer 409 with the reason; a
JSON-RPC error from the server is a normal answer (200, the response
message as it came). Every step is a message of the client's recorded
`mock-client` session, and changes go out live as `client_activity` events.
"""

from __future__ import annotations

import time
from typing import Any, Literal

import mcp_types
from fastapi import APIRouter, HTTPException, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from inspector.api.deps import json_response
from inspector.api.routes_client import _UNKNOWN, _call, _connected, _hosted
from inspector.errors import NotSubscribed, Unsupported
from inspector.mock import operations as ops
from inspector.mock.client import MockClient

__all__ = ["router"]

router = APIRouter(tags=["client"])
_NOT_OFFERED: dict[int | str, dict[str, Any]] = {
    **_UNKNOWN,
    409: {"description": "not connected, or the server did not offer it"},
}


class RpcAnswer(BaseModel):
    """The server's response message as it came: `result`, or `error` (code, message, data).

    A 2026-07-28 subscription change answers with the new listen stream's
    `notifications/subscriptions/acknowledged` as it came (`method`, `params`), or the error
    the server answered the listen with, plus `listen`: the stream's state."""

    model_config = ConfigDict(extra="allow")
    id: Any = None
    result: Any = None
    error: dict[str, Any] | None = None


class InFlightOut(BaseModel):
    """A request the client sent; `elapsed_s` ticks while it is pending."""

    key: str = Field(description="the JSON-RPC id as JSON text (use it to cancel)")
    id: Any
    method: str
    params: Any
    started: float
    elapsed_s: float
    progress_token: str | None
    progress: dict[str, Any] | None = Field(
        description="the last notifications/progress: progress, total, message"
    )
    progress_count: int
    state: Literal["pending", "answered", "error", "cancelled", "timeout", "failed"]
    cancel_reason: str | None
    cancelled_at: float | None
    cancel_via: Literal["notification", "stream-closed"] | None
    finished: float | None
    response: dict[str, Any] | None = Field(description="the response, also one that came after a cancel")


class FeaturesOut(BaseModel):
    """What the server declared, as the workspace offers it."""

    subscribe: bool
    listen: bool = Field(
        description="2026-07-28: subscriptions/listen carries subscriptions and list changes"
    )
    completions: bool
    logging: bool
    set_level: bool
    tasks: bool
    task_tools: bool
    task_list: bool
    task_cancel: bool
    list_changed: dict[str, bool]


class ListenStreamOut(BaseModel):
    """One subscriptions/listen request and its stream (2026-07-28)."""

    key: str = Field(description="the listen request's JSON-RPC id as JSON text")
    id: Any
    requested: dict[str, Any] = Field(description="the SubscriptionFilter sent")
    opened: float
    state: Literal["opening", "open", "closed", "refused", "cancelled", "lost"]
    honored: dict[str, Any] | None = Field(description="what the acknowledgement said the server will send")
    acknowledged: float | None
    ended: float | None
    end_reason: str | None
    response: dict[str, Any] | None = Field(
        description="the listen request's response, when it ended with one"
    )
    notifications: int = Field(description="change notifications that named this stream")


class ListenWanted(BaseModel):
    uris: list[str]
    list_changed: dict[str, bool]


class ListenOut(BaseModel):
    wanted: ListenWanted
    current: ListenStreamOut | None
    past: list[ListenStreamOut] = Field(description="earlier streams, newest first")


class ListenIn(BaseModel):
    """Which `notifications/{kind}/list_changed` to listen for (2026-07-28); kinds left out stay as they are."""

    model_config = ConfigDict(extra="forbid")
    tools: bool | None = None
    prompts: bool | None = None
    resources: bool | None = None


class ActivityOut(BaseModel):
    features: FeaturesOut
    inflight: list[InFlightOut]
    recent: list[InFlightOut] = Field(description="the last finished requests, newest first")
    subscriptions: list[dict[str, Any]] = Field(description="uri, subscribed, since, updates, last_update")
    logs: list[dict[str, Any]] = Field(description="notifications/message: time, level, logger, data")
    log_level: str | None
    list_changed: list[dict[str, Any]] = Field(description="method, count, last")
    listen: ListenOut
    tasks: list[dict[str, Any]] = Field(description="tasks as last seen (mcp-types Task fields)")


class CancelIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str | None = Field(default=None, max_length=2000)


class UriIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    uri: str = Field(min_length=1, max_length=10_000)


class PromptRef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["ref/prompt"]
    name: str = Field(min_length=1)


class TemplateRef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["ref/resource"]
    uri: str = Field(min_length=1, description="the resource template (uriTemplate)")


class CompleteIn(BaseModel):
    """Complete one argument of a prompt or a resource template; `context` holds the other filled ones."""

    model_config = ConfigDict(extra="forbid")
    ref: PromptRef | TemplateRef = Field(discriminator="type")
    name: str = Field(min_length=1, description="the argument being completed")
    value: str = Field(default="", description="what was typed so far")
    context: dict[str, str] = Field(default_factory=dict)


class LogLevelIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: mcp_types.LoggingLevel


class LogLevelOut(BaseModel):
    level: str
    via: Literal["logging/setLevel", "_meta"]
    response: dict[str, Any] | None


class PingOut(BaseModel):
    latency_ms: float
    response: dict[str, Any]


class TaskUpdateIn(BaseModel):
    """`tasks/update` of the tasks extension: responses to the task's `inputRequests`, by key."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    input_responses: dict[str, Any] = Field(alias="inputResponses", min_length=1)


class TaskCallIn(BaseModel):
    """Call a tool as a task (`params.task`); the answer is a CreateTaskResult to poll."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)
    ttl_ms: int | None = Field(default=None, gt=0, description="requested retention (ms)")
    progress: bool = Field(default=False, description="add a progress token to `_meta`")


async def _op(coro: Any) -> Any:
    async def checked() -> Any:
        try:
            return await coro
        except Unsupported as exc:
            raise HTTPException(409, str(exc)) from None
        except NotSubscribed as exc:
            raise HTTPException(404, str(exc)) from None

    return await _call(checked())


def _client(request: Request, client_id: str) -> MockClient:
    return _connected(request, client_id).client


@router.get("/api/clients/{client_id}/activity", response_model=ActivityOut, responses=_UNKNOWN)
async def get_activity(request: Request, client_id: str) -> Response:
    """Requests in flight and recent, subscriptions, log messages, list changes, tasks."""
    return json_response(_hosted(request, client_id).client.activity.to_json(time.time()))


@router.post(
    "/api/clients/{client_id}/requests/{key}/cancel",
    response_model=InFlightOut,
    summary="Cancel a request in flight (notifications/cancelled, or closing its stream at 2026-07-28 over HTTP)",
    responses={**_NOT_OFFERED, 400: {"description": "the handshake cannot be cancelled"}},
)
async def cancel_request(request: Request, client_id: str, key: str, body: CancelIn) -> Response:
    client = _client(request, client_id)
    if key not in client.activity.inflight:
        known = client.activity.get(key)
        if known is None:
            raise HTTPException(404, f"no request with id {key} was sent by this client")
        raise HTTPException(409, f"request {key} ({known.method}) is not in flight: {known.state}")
    try:
        item = await _call(client.cancel(key, body.reason))
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from None
    return json_response(item.to_json(time.time()))


@router.post(
    "/api/clients/{client_id}/subscriptions",
    response_model=RpcAnswer,
    summary="resources/subscribe (when the server declared resources.subscribe); at 2026-07-28 a new "
    "subscriptions/listen stream with the URI added",
    responses=_NOT_OFFERED,
)
async def subscribe(request: Request, client_id: str, body: UriIn) -> Response:
    return json_response(await _op(ops.subscribe(_client(request, client_id), body.uri)))


@router.delete(
    "/api/clients/{client_id}/subscriptions",
    response_model=RpcAnswer,
    summary="resources/unsubscribe; at 2026-07-28 a new subscriptions/listen stream without the URI",
    responses={**_NOT_OFFERED, 404: {"description": "no such client, or not subscribed to the URI"}},
)
async def unsubscribe(request: Request, client_id: str, uri: str = Query(min_length=1)) -> Response:
    return json_response(await _op(ops.unsubscribe(_client(request, client_id), uri)))


@router.put(
    "/api/clients/{client_id}/listen",
    response_model=RpcAnswer,
    summary="2026-07-28: listen for tools/prompts/resources list_changed (a new subscriptions/listen stream)",
    responses={**_NOT_OFFERED, 504: {"description": "the server did not acknowledge the stream in time"}},
)
async def listen(request: Request, client_id: str, body: ListenIn) -> Response:
    kinds = {k: v for k, v in body.model_dump().items() if v is not None}
    return json_response(await _op(ops.listen_for_list_changes(_client(request, client_id), kinds)))


@router.post(
    "/api/clients/{client_id}/complete",
    response_model=RpcAnswer,
    summary="completion/complete for a prompt or resource-template argument (when declared)",
    responses=_NOT_OFFERED,
)
async def complete(request: Request, client_id: str, body: CompleteIn) -> Response:
    ref: mcp_types.PromptReference | mcp_types.ResourceTemplateReference
    if isinstance(body.ref, PromptRef):
        ref = mcp_types.PromptReference(type="ref/prompt", name=body.ref.name)
    else:
        ref = mcp_types.ResourceTemplateReference(type="ref/resource", uri=body.ref.uri)
    client = _client(request, client_id)
    return json_response(await _op(ops.complete(client, ref, body.name, body.value, body.context)))


@router.put(
    "/api/clients/{client_id}/log-level",
    response_model=LogLevelOut,
    summary="logging/setLevel (at 2026-07-28: the level each request opts in to through _meta)",
    responses=_NOT_OFFERED,
)
async def set_log_level(request: Request, client_id: str, body: LogLevelIn) -> Response:
    client = _client(request, client_id)
    response = await _op(ops.set_log_level(client, body.level))
    via = "_meta" if response is None else "logging/setLevel"
    return json_response({"level": body.level, "via": via, "response": response})


@router.post("/api/clients/{client_id}/ping", response_model=PingOut, responses=_NOT_OFFERED)
async def ping(request: Request, client_id: str) -> Response:
    """Send `ping`; the round trip in milliseconds."""
    response, latency = await _op(ops.ping(_client(request, client_id)))
    return json_response({"latency_ms": round(latency, 3), "response": response})


@router.post(
    "/api/clients/{client_id}/tasks",
    response_model=RpcAnswer,
    summary="Call a tool as a task (2025-11-25, when the server declared tasks.requests.tools.call)",
    responses=_NOT_OFFERED,
)
async def call_as_task(request: Request, client_id: str, body: TaskCallIn) -> Response:
    client = _client(request, client_id)
    coro = ops.call_tool_as_task(client, body.name, body.arguments, body.ttl_ms, body.progress)
    return json_response(await _op(coro))


@router.get(
    "/api/clients/{client_id}/tasks", response_model=RpcAnswer, summary="tasks/list", responses=_NOT_OFFERED
)
async def list_tasks(request: Request, client_id: str) -> Response:
    return json_response(await _op(ops.task_request(_client(request, client_id), "tasks/list")))


@router.get(
    "/api/clients/{client_id}/tasks/{task_id}",
    response_model=RpcAnswer,
    summary="tasks/get (poll a task's status)",
    responses=_NOT_OFFERED,
)
async def get_task(request: Request, client_id: str, task_id: str) -> Response:
    return json_response(await _op(ops.task_request(_client(request, client_id), "tasks/get", task_id)))


@router.post(
    "/api/clients/{client_id}/tasks/{task_id}/update",
    response_model=RpcAnswer,
    summary="tasks/update (2026-07-28 tasks extension: answer the task's inputRequests)",
    responses=_NOT_OFFERED,
)
async def update_task(request: Request, client_id: str, task_id: str, body: TaskUpdateIn) -> Response:
    coro = ops.task_update(_client(request, client_id), task_id, body.input_responses)
    return json_response(await _op(coro))


@router.post(
    "/api/clients/{client_id}/tasks/{task_id}/{action}",
    response_model=RpcAnswer,
    summary="tasks/result (waits until the task is done) or tasks/cancel",
    responses=_NOT_OFFERED,
)
async def task_action(
    request: Request, client_id: str, task_id: str, action: Literal["result", "cancel"]
) -> Response:
    method = f"tasks/{action}"
    return json_response(await _op(ops.task_request(_client(request, client_id), method, task_id)))
