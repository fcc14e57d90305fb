"""Mock client workspace routes: the roots list, URL elicitations and their retry, edit-and-resend.

- `PUT /api/clients/{id}/roots` replaces the workspace's roots (file:// URIs,
  validated); `roots/list` is then answered from them, and the client sends
  `notifications/roots/list_changed` when it declared `roots.listChanged`.
- `POST /api/clients/{id}/elicitations/{eid}/retry` re-sends the request that
  failed with -32042 (URL elicitation required) for that elicitation.
- `GET /api/sessions/{sid}/messages/{seq}/resend` gives what "edit and resend"
  needs for a client-to-server message of any recorded session: its body, the
  session's target as a client target, and the connected mock clients.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from inspector.api.deps import json_response, run_query, state_of
from inspector.api.params import SqlInt
from inspector.api.routes_client import _call, _connected, manager_of
from inspector.protocol.client_answers import valid_roots
from inspector.store import get_session
from inspector.store.queries import get_message

__all__ = ["router"]

router = APIRouter(tags=["client"])
_UNKNOWN: dict[int | str, dict[str, Any]] = {404: {"description": "no such mock client"}}
RESENDABLE = {"request", "notification", "batch", "invalid", "response", "error"}


class RootsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    roots: list[dict[str, Any]] = Field(description="each {uri: file://..., name?}")


class RootsOut(BaseModel):
    roots: list[dict[str, Any]]
    notified: bool = Field(
        description="notifications/roots/list_changed was sent (roots.listChanged declared)"
    )


@router.put(
    "/api/clients/{client_id}/roots",
    response_model=RootsOut,
    summary="Replace the workspace's roots; notify the server when roots.listChanged was declared",
    responses={**_UNKNOWN, 422: {"description": "a root is not a file:// URI"}},
)
async def put_roots(request: Request, client_id: str, body: RootsIn) -> Response:
    hosted = _connected(request, client_id)
    try:
        valid_roots(body.roots)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    notified = await _call(hosted.client.set_roots(body.roots))
    return json_response({"roots": hosted.client.config.roots, "notified": notified})


@router.post(
    "/api/clients/{client_id}/elicitations/{elicitation_id}/retry",
    summary="Re-send the request that failed with -32042 for this URL elicitation; its new response",
    responses=_UNKNOWN,
)
async def retry_elicitation(request: Request, client_id: str, elicitation_id: str) -> dict[str, Any]:
    hosted = _connected(request, client_id)
    item = hosted.client.elicitations.items.get(elicitation_id)
    if item is None or item.retry is None:
        raise HTTPException(404, f"no URL elicitation {elicitation_id!r} with a request to retry")
    method, params = item.retry["method"], item.retry["params"]
    response = await _call(hosted.client.request(method, params))
    await hosted.client.note_response(method, params, response)
    return response


class ResendOut(BaseModel):
    """What "edit and resend" starts from."""

    session_id: int
    seq: int
    text: str = Field(description="the message's body as recorded (pretty-printed when it is JSON)")
    target: dict[str, Any] | None = Field(description="the session's target as {command} or {url}, if known")
    clients: list[dict[str, Any]] = Field(description="connected mock clients (id, target, same_target)")


def _target(target: Any) -> dict[str, Any] | None:
    if isinstance(target, list) and target and all(isinstance(a, str) for a in target):
        return {"command": target}
    if isinstance(target, str) and target.startswith(("http://", "https://")):
        return {"url": target}
    return None


@router.get(
    "/api/sessions/{session_id}/messages/{seq}/resend",
    response_model=ResendOut,
    summary="A client-to-server message, ready to edit and resend from a mock client",
    responses={404: {"description": "no such message"}, 400: {"description": "not a client message"}},
)
async def resend_source(request: Request, session_id: SqlInt, seq: SqlInt) -> Response:
    engine = state_of(request).engine
    session = await run_query(get_session, engine, session_id)
    message = await run_query(get_message, engine, session_id, seq)
    if message.direction != "c2s" or message.kind not in RESENDABLE:
        raise HTTPException(
            400, f"#{seq} is not a client-to-server message ({message.direction} {message.kind})"
        )
    raw = message.raw.rstrip(b"\r\n")
    try:
        text = orjson.dumps(orjson.loads(raw), option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONDecodeError:
        text = raw.decode(errors="replace")
    target = _target(session.target)
    clients = [
        {**h.summary(), "same_target": target is not None and _target(h.summary()["target"]) == target}
        for h in manager_of(request).clients.values()
        if h.state == "connected"
    ]
    doc = {"session_id": session_id, "seq": seq, "text": text, "target": target, "clients": clients}
    return json_response(doc)
