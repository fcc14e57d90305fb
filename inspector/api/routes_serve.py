"""Mock server workspace routes: the clients connected to `mcp-inspect serve` processes, driven by hand.

The serve processes recording into this UI's database announce a control
channel (`inspector/scenario/control.py`); these routes find the process
that holds a session and relay to it with its token, so the browser never
sees a serve process's token or address. Only loopback control URLs are used.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from inspector.api.deps import json_response, state_of
from inspector.api.params import SqlInt
from inspector.scenario.control import LOOPBACK, registrations

__all__ = ["router"]

router = APIRouter(prefix="/api/serve", tags=["serve"])

_UNKNOWN: dict[int | str, dict[str, Any]] = {404: {"description": "no connected client in that session"}}


class Finding(BaseModel):
    level: str
    rule: str
    text: str


class ServedClient(BaseModel):
    """A client connected to a serve process (its `mock-server` session)."""

    sessionId: int
    client: dict[str, Any] = Field(
        description="protocolVersion, clientInfo and capabilities as the client sent them"
    )
    protocolVersion: str | None
    closed: bool
    canPush: bool = Field(description="false for stateless 2026-07-28 clients (no channel outside a request)")
    tools: list[dict[str, Any]]


class ServedList(BaseModel):
    clients: list[ServedClient]
    processes: int


class PushIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    method: str = Field(min_length=1, max_length=200)
    params: dict[str, Any] | None = None
    timeout: float = Field(60, gt=0, le=600, description="Seconds to wait for the client's answer")


class NotifyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    method: str = Field(min_length=1, max_length=200)
    params: dict[str, Any] | None = None


class PushOut(BaseModel):
    answer: dict[str, Any] | None = Field(
        description="{result} or {error}; null when the client did not answer"
    )
    latencyMs: float | None
    findings: list[Finding]


class ToolIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tool: dict[str, Any] = Field(description="A scenario tool (name, description, inputSchema, result, ...)")
    announce: bool = Field(True, description="Send notifications/tools/list_changed")


def _usable(reg: dict[str, Any]) -> bool:
    return urlsplit(str(reg.get("url", ""))).hostname in LOOPBACK


async def _call(
    reg: dict[str, Any], method: str, path: str, body: Any = None, timeout: float = 10
) -> httpx.Response:
    async with httpx.AsyncClient(timeout=timeout, trust_env=False) as http:
        return await http.request(
            method, reg["url"] + path, json=body, headers={"authorization": f"Bearer {reg['token']}"}
        )


async def _served(request: Request) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], int]:
    regs = [r for r in await anyio.to_thread.run_sync(registrations, state_of(request).engine) if _usable(r)]
    found: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for reg in regs:
        try:
            answer = await _call(reg, "GET", "/sessions", timeout=5)
        except httpx.HTTPError:
            continue  # the process is stopping
        if answer.status_code == 200:
            found += [(reg, client) for client in answer.json()]
    return found, len(regs)


async def _owner(request: Request, session_id: int) -> dict[str, Any]:
    found, _ = await _served(request)
    for reg, client in found:
        if client["sessionId"] == session_id:
            return reg
    raise HTTPException(404, f"no client connected to a running `mcp-inspect serve` in session {session_id}")


async def _relay(
    reg: dict[str, Any], method: str, path: str, body: Any = None, timeout: float = 10
) -> Response:
    try:
        answer = await _call(reg, method, path, body, timeout)
    except httpx.HTTPError as exc:
        raise HTTPException(502, f"the serve process did not answer: {exc}") from None
    if answer.status_code != 200:
        raise HTTPException(answer.status_code, answer.json().get("detail", answer.text))
    return json_response(answer.json())


@router.get(
    "", response_model=ServedList, summary="Clients connected to running `mcp-inspect serve` processes"
)
async def list_served(request: Request) -> Response:
    found, processes = await _served(request)
    return json_response({"clients": [c for _reg, c in found], "processes": processes})


@router.post(
    "/{session_id}/request",
    response_model=PushOut,
    responses=_UNKNOWN,
    summary="Send a request to the client",
)
async def push_request(request: Request, session_id: SqlInt, body: PushIn) -> Response:
    reg = await _owner(request, session_id)
    return await _relay(reg, "POST", f"/sessions/{session_id}/request", body.model_dump(), body.timeout + 10)


@router.post("/{session_id}/notify", responses=_UNKNOWN, summary="Send a notification to the client")
async def push_notification(request: Request, session_id: SqlInt, body: NotifyIn) -> Response:
    reg = await _owner(request, session_id)
    return await _relay(reg, "POST", f"/sessions/{session_id}/notify", body.model_dump())


@router.put(
    "/{session_id}/tools", response_model=ServedClient, responses=_UNKNOWN, summary="Add or replace a tool"
)
async def put_tool(request: Request, session_id: SqlInt, body: ToolIn) -> Response:
    reg = await _owner(request, session_id)
    return await _relay(reg, "PUT", f"/sessions/{session_id}/tools", body.model_dump())


@router.delete(
    "/{session_id}/tools/{name}", response_model=ServedClient, responses=_UNKNOWN, summary="Remove a tool"
)
async def delete_tool(request: Request, session_id: SqlInt, name: str, announce: bool = True) -> Response:
    reg = await _owner(request, session_id)
    return await _relay(reg, "DELETE", f"/sessions/{session_id}/tools/{name}?announce={int(announce)}")
