"""Mock client routes: connect to a server as a client, send requests, answer the server's requests.

Connecting spawns the command the caller gives (or calls its URL), the hole
behind CVE-2025-49596 in the official Inspector: like every `/api` route it
sits behind the `Guard` (the token, and Host and Origin naming this server),
and its body must be JSON, which a cross-site form cannot send. Every byte is
recorded as a session of kind `mock-client`.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable
from typing import Any, Literal, TypeVar, cast

import orjson
from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field, model_validator

from inspector.api.clients import ClientManager, HostedClient, describe
from inspector.api.deps import check_program, json_response, run_query, state_of
from inspector.api.params import SqlInt
from inspector.api.routes_auth import OAuthOptions, connect_auth
from inspector.api.schemas_replay import ReplayTarget
from inspector.capture.redact import Secrets, missing_command_secrets_message
from inspector.errors import ConnectionClosed, RequestCancelled, ResponseTimeout, StartFailed
from inspector.mock.client import DEFAULT_CAPABILITIES, ClientConfig
from inspector.mock.responders import Responder, load_recorded
from inspector.protocol.client_answers import check_answer, valid_roots

__all__ = ["router"]

router = APIRouter(tags=["client"])
_T = TypeVar("_T")

KNOWN_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
_UNKNOWN: dict[int | str, dict[str, Any]] = {404: {"description": "no such mock client"}}


class ClientTarget(ReplayTarget):
    """The server to connect to: a `command` (stdio) or a `url` (Streamable HTTP; /sse is legacy SSE)."""


class ResponderIn(BaseModel):
    """How a server request method is answered: by a person (`manual`), a `fixed` result, `reject`,
    or `recorded` (the answer the client of a recorded session gave to the matching request)."""

    model_config = ConfigDict(extra="forbid")
    mode: Literal["manual", "fixed", "reject", "recorded"] = "manual"
    answer: Any = Field(default=None, description="the result sent in `fixed` mode")
    error: dict[str, Any] | None = Field(default=None, description="the error sent in `reject` mode")
    session_id: SqlInt | None = Field(
        default=None, description="`recorded`: the session to take answers from"
    )
    match: Literal["strict", "lenient"] = Field(default="strict", description="`recorded`: how params match")
    ignore: list[str] = Field(default_factory=list, description="`recorded`: params paths not compared")
    fallback: Literal["reject", "manual"] = Field(
        default="reject", description="`recorded`, nothing matches: reject, or ask a person"
    )

    @model_validator(mode="after")
    def _recorded_needs_session(self) -> ResponderIn:
        if self.mode == "recorded" and self.session_id is None:
            raise ValueError("a recorded responder needs `session_id` (the session to answer from)")
        return self

    def to_responder(self) -> Responder:
        return Responder(
            self.mode, self.answer, self.error, self.session_id, self.match, tuple(self.ignore), self.fallback
        )


async def _responders(request: Request, body: dict[str, ResponderIn]) -> dict[str, Responder]:
    """The responders, with each recorded session loaded now (a missing one is a clear 404)."""
    out = {m: r.to_responder() for m, r in body.items()}
    for responder in out.values():
        if responder.mode == "recorded":
            await run_query(load_recorded, state_of(request).engine, responder)
    return out


class ClientCreate(BaseModel):
    """Connect a new mock client; the handshake is the one `protocol_version` needs."""

    model_config = ConfigDict(extra="forbid")
    target: ClientTarget
    protocol_version: str = Field(
        default="2025-11-25",
        min_length=1,
        max_length=100,
        description=f"one of {', '.join(KNOWN_VERSIONS)}, or any custom string (sent as is)",
    )
    client_info: dict[str, Any] | None = None
    capabilities: dict[str, Any] | None = Field(
        default=None, description="default: roots, sampling, elicitation"
    )
    headers: dict[str, str] = Field(default_factory=dict, description="extra HTTP headers (URL targets)")
    timeout: float = Field(default=60.0, gt=0, le=3600, description="seconds to wait for responses")
    inbox_timeout: float | None = Field(
        default=None,
        gt=0,
        le=86400,
        description="seconds a server request waits for a person (default: timeout)",
    )
    responders: dict[str, ResponderIn] = Field(default_factory=dict, description="by server request method")
    roots: list[dict[str, Any]] | None = Field(
        default=None,
        description="the workspace's roots (file:// URIs); set: roots/list is answered from them",
    )
    name: str | None = Field(default=None, max_length=200)
    auth: OAuthOptions | None = Field(
        default=None,
        description="authorize with OAuth (URL targets): the authorization URL is listed at "
        "/api/auth/pending for the person to open, and comes back to /oauth/callback",
    )

    @model_validator(mode="after")
    def _valid_roots(self) -> ClientCreate:
        if self.roots is not None:
            self.roots = valid_roots(self.roots)
        if self.auth is not None and self.target.url is None:
            raise ValueError("OAuth authorizes URL targets only (a stdio server is not authorized)")
        return self


class ClientCreated(BaseModel):
    """A connected mock client: its id, its recorded session and the server's handshake response."""

    id: str
    session_id: int | None
    handshake: dict[str, Any]


class ClientSummary(BaseModel):
    id: str
    session_id: int | None
    state: Literal["starting", "connected", "closed"]
    error: str | None
    created: float
    target: list[str] | str
    protocol_version: str
    pending: int = Field(description="inbox items waiting for an answer")


class ClientList(BaseModel):
    items: list[ClientSummary]


class InboxItemOut(BaseModel):
    """A server-to-client request waiting for an answer (`waiting_s` is live)."""

    key: str
    method: str
    params: Any
    received: float
    waiting_s: float
    answered: bool
    problems: list[str] = Field(default_factory=list, description="spec rules the server's request breaks")


class InboxHistoryItem(InboxItemOut):
    """An answered or timed-out server request: the answer, who gave it, and the latency (`waiting_s`)."""

    by: str | None = Field(description="person, fixed, reject, recorded (session N), auto (...), timeout")
    answer: dict[str, Any] | None
    answered_at: float | None


class ClientDetail(ClientSummary):
    config: dict[str, Any]
    handshake: dict[str, Any] | None
    inbox: list[InboxItemOut]
    inbox_history: list[InboxHistoryItem] = Field(description="answered and timed-out items, newest first")
    roots: list[dict[str, Any]] | None = Field(description="the workspace's roots (None: asked in the inbox)")
    elicitations: list[dict[str, Any]] = Field(description="URL-mode elicitations seen, with their state")
    notifications: list[dict[str, Any]] = Field(description="the server's recent notifications")
    received: list[dict[str, Any]] = Field(description="the server's recent messages (all kinds)")


class RequestIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    method: str = Field(min_length=1, max_length=500)
    params: dict[str, Any] | None = None
    progress: bool = Field(default=False, description="add a progress token to `_meta`")
    timeout: float | None = Field(default=None, gt=0, le=3600)


class NotifyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    method: str = Field(min_length=1, max_length=500)
    params: dict[str, Any] | None = None


class RawIn(BaseModel):
    """Any text, sent as one message as is (valid JSON-RPC, a batch, or not JSON at all)."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=1_000_000)
    wait: float = Field(default=2.0, ge=0, le=60, description="seconds to wait for the server's reaction")


class RawOut(BaseModel):
    sent: bool
    received: list[Any] = Field(description="what the server sent after it, within `wait` seconds")


class AnswerIn(BaseModel):
    """The answer to an inbox item: a `result`, or an `error` (exactly one)."""

    model_config = ConfigDict(extra="forbid")
    result: Any = None
    error: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one(self) -> AnswerIn:
        if (self.result is None) == (self.error is None):
            raise ValueError("give either `result` or `error`")
        return self


def manager_of(request: Request) -> ClientManager:
    return cast(ClientManager, request.app.state.clients)


def _hosted(request: Request, client_id: str) -> HostedClient:
    hosted = manager_of(request).get(client_id)
    if hosted is None:
        raise HTTPException(404, f"no mock client {client_id!r}")
    return hosted


def _connected(request: Request, client_id: str) -> HostedClient:
    hosted = _hosted(request, client_id)
    if hosted.state != "connected" or hosted.client.endpoint is None:
        raise HTTPException(
            409, f"mock client {client_id!r} is {hosted.state}: {hosted.error or 'not connected'}"
        )
    return hosted


@router.post(
    "/api/clients",
    response_model=ClientCreated,
    status_code=201,
    summary="Connect a mock client to a command or URL (recorded as a mock-client session)",
    responses={400: {"description": "bad target"}, 502: {"description": "the server could not be started"}},
)
async def create_client(request: Request, body: ClientCreate) -> Response:
    target = body.target.value()
    if isinstance(target, list):
        check_program(target[0])
        if unknown := Secrets({}, os.environ).unknown(target):  # a command copied from a recording
            raise HTTPException(400, missing_command_secrets_message(unknown))
    config = ClientConfig(
        target=target,
        protocol_version=body.protocol_version,
        capabilities=body.capabilities if body.capabilities is not None else dict(DEFAULT_CAPABILITIES),
        headers=dict(body.headers),
        timeout=body.timeout,
        inbox_timeout=body.inbox_timeout,
        responders=await _responders(request, body.responders),
        roots=body.roots,
        name=body.name,
    )
    if body.client_info is not None:
        config.client_info = body.client_info
    if body.auth is not None and isinstance(target, str):
        config.auth = connect_auth(request, target, body.protocol_version, body.auth, body.timeout)
    try:
        hosted, handshake = await manager_of(request).start(config)
    except StartFailed as exc:
        raise HTTPException(502, f"could not start or reach the server: {exc}") from None
    doc = {"id": hosted.id, "session_id": hosted.client.session_id, "handshake": handshake}
    return json_response(doc, status_code=201)


@router.get("/api/clients", response_model=ClientList, summary="The mock clients of this UI process")
async def list_clients(request: Request) -> Response:
    return json_response({"items": [h.summary() for h in manager_of(request).clients.values()]})


@router.get("/api/clients/{client_id}", response_model=ClientDetail, responses=_UNKNOWN)
async def get_client(request: Request, client_id: str) -> Response:
    return json_response(_hosted(request, client_id).detail())


async def _call(coro: Awaitable[_T]) -> _T:
    try:
        return await coro
    except HTTPException:
        raise
    except ResponseTimeout as exc:
        raise HTTPException(504, str(exc)) from None
    except RequestCancelled as exc:
        raise HTTPException(409, str(exc)) from None
    except ConnectionClosed as exc:
        raise HTTPException(502, f"the server connection is closed: {exc}") from None
    except Exception as exc:  # transport errors (HTTP status, connect errors)
        raise HTTPException(502, f"could not talk to the server: {describe(exc)}") from None


@router.post(
    "/api/clients/{client_id}/request",
    summary="Send a request; the final response message (input_required rounds go through the inbox)",
    responses={**_UNKNOWN, 504: {"description": "no response in time"}},
)
async def send_request(request: Request, client_id: str, body: RequestIn) -> dict[str, Any]:
    hosted = _connected(request, client_id)
    response = await _call(
        hosted.client.request(body.method, body.params, progress=body.progress, timeout=body.timeout)
    )
    # -32042: keep the URL elicitations it asks for, with this request to retry afterwards
    await hosted.client.note_response(body.method, body.params, response)
    return response


@router.post("/api/clients/{client_id}/notify", status_code=204, responses=_UNKNOWN)
async def send_notification(request: Request, client_id: str, body: NotifyIn) -> Response:
    hosted = _connected(request, client_id)
    assert hosted.client.endpoint is not None
    await _call(hosted.client.endpoint.notify(body.method, body.params))
    return Response(status_code=204)


@router.post("/api/clients/{client_id}/raw", response_model=RawOut, responses=_UNKNOWN)
async def send_raw(request: Request, client_id: str, body: RawIn) -> Response:
    """Send the text as one message, then collect what the server sends within `wait` seconds
    (until the response to its id, when it is a request)."""
    import anyio

    hosted = _connected(request, client_id)
    endpoint = hosted.client.endpoint
    assert endpoint is not None
    before = len(endpoint.received)
    await _call(endpoint.send_raw(body.text.encode()))
    wanted = _request_id(body.text)
    with anyio.move_on_after(body.wait):
        while True:
            new = endpoint.received[before:]
            if new and (wanted is None or any(m.get("id") == wanted for m in new)):
                break
            if endpoint.closed.is_set():
                break
            await anyio.sleep(0.02)
    return json_response({"sent": True, "received": endpoint.received[before:]})


def _request_id(text: str) -> Any:
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return doc.get("id") if isinstance(doc, dict) and "method" in doc else None


@router.get("/api/clients/{client_id}/inbox/{key}", response_model=InboxItemOut, responses=_UNKNOWN)
async def get_inbox_item(request: Request, client_id: str, key: str) -> Response:
    item = _hosted(request, client_id).client.inbox.get(key)
    if item is None:
        raise HTTPException(404, f"no pending server request {key!r}")
    return json_response(item.to_json())


@router.post(
    "/api/clients/{client_id}/inbox/{key}",
    response_model=InboxItemOut,
    summary="Answer a pending server request with a result or an error",
    responses=_UNKNOWN,
)
async def answer_inbox_item(request: Request, client_id: str, key: str, body: AnswerIn) -> Response:
    hosted = _hosted(request, client_id)
    item = hosted.client.inbox.get(key)
    if item is None:
        raise HTTPException(404, f"no pending server request {key!r} (answered already, or timed out)")
    answer = {"error": body.error} if body.error is not None else {"result": body.result}
    problems = check_answer(item.method, item.params, answer, hosted.client.config.capabilities)
    if problems:  # a person's answer is sent only when it breaks no MUST and no SHOULD
        raise HTTPException(
            422,
            f"not sent: the answer breaks the {item.method} rules: {'; '.join(p.describe() for p in problems)}",
        )
    if not hosted.client.answer(key, result=body.result, error=body.error):
        raise HTTPException(404, f"no pending server request {key!r} (answered already, or timed out)")
    doc = item.to_json()
    manager_of(request).answered(client_id, doc, item.answer or {})
    return json_response(doc)


@router.put(
    "/api/clients/{client_id}/responders",
    summary="Set how server requests are answered, per method (replaces the whole map)",
    responses=_UNKNOWN,
)
async def put_responders(request: Request, client_id: str, body: dict[str, ResponderIn]) -> dict[str, Any]:
    hosted = _hosted(request, client_id)
    hosted.client.config.responders = await _responders(request, body)
    return {m: r.model_dump() for m, r in body.items()}


@router.delete("/api/clients/{client_id}", status_code=204, responses=_UNKNOWN)
async def delete_client(request: Request, client_id: str) -> Response:
    if not await manager_of(request).close(client_id):
        raise HTTPException(404, f"no mock client {client_id!r}")
    return Response(status_code=204)
