"""Intercept routes: drive the breakpoints and fault rules of live `wrap`/`proxy` processes.

A process started with `--intercept` (or `--faults`) announces its control
channel in the runtime directory (`inspector/control/`). These
routes find the process that records a session and relay to it with its
token, so the browser never sees a control token or address; only loopback
control URLs are used. A process that is gone, an unknown paused message or
rule, a message or rule the process refuses: each a 4xx with the reason
(400, 404, 409, 410; 422 for a body that does not fit the schema), never a 5xx.
"""

from __future__ import annotations

from typing import Any, Literal

import anyio
import httpx
from fastapi import APIRouter, HTTPException, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from inspector.api.deps import json_response, state_of
from inspector.api.params import SqlInt
from inspector.control.announce import announcements
from inspector.intercept.rules import ErrorSpec, Rule
from inspector.store.db import db_key

__all__ = ["router"]

router = APIRouter(prefix="/api/intercept", tags=["intercept"])

_GONE: dict[int | str, dict[str, Any]] = {
    404: {"description": "no intercepting process records that session"},
    410: {"description": "the intercepting process stopped (or does not answer)"},
}


class InterceptRule(BaseModel):
    """A rule as the process runs it: the rule's fields (as given) plus how often it matched and fired."""

    model_config = ConfigDict(extra="allow")
    name: str
    action: str
    enabled: bool
    matched: int = Field(0, description="How many messages matched its filter")
    hits: int = Field(0, description="How many messages it acted on")
    match: dict[str, Any] = Field(default_factory=dict, description="Its filter (empty: every message)")


class PausedMessage(BaseModel):
    """A message held at a breakpoint."""

    id: str
    direction: str = Field(description="c2s (client to server) or s2c")
    kind: str | None = Field(None, description="request, notification, response or error")
    method: str | None = None
    name: str | None = Field(None, description="The tool or prompt name, or the resource URI")
    rpc_id: Any = Field(None, description="The JSON-RPC id")
    rule: str | None = Field(None, description="The rule that paused it")
    raw: str = Field(description="The message's bytes as the sender sent them (as text)")
    seconds_left: float = Field(description="Seconds until the timeout applies pause_default")


class InterceptState(BaseModel):
    """One intercepting process: its rules, its paused messages, its breakpoint switch."""

    pid: int
    kind: str = Field(description="wrap or proxy")
    target: Any = Field(description="The wrapped command or the proxied URL")
    sessions: list[int] = Field(description="The sessions it records")
    seed: int | None = Field(None, description="The seed of its random choices (repeat a run with --seed)")
    file: str | None = Field(None, description="The rules file it started with")
    breakpoints: bool = Field(description="Whether pause rules hold messages")
    active: bool = Field(description="Whether any rule can act or breakpoints are on")
    pause_timeout_s: float = Field(description="Seconds a paused message waits for a decision")
    pause_default: str = Field(description="What the timeout does: forward or drop")
    rules: list[InterceptRule]
    pending: list[PausedMessage]
    version: int = Field(
        description="Changes with every change; pass it back with `wait` to wait for the next"
    )


class InterceptProcess(BaseModel):
    pid: int
    kind: str
    target: Any
    sessions: list[int]
    paused: int = Field(description="Messages held at a breakpoint now")
    rules: int
    breakpoints: bool


class InterceptProcessList(BaseModel):
    processes: list[InterceptProcess]


class ResolveIn(BaseModel):
    """What to do with a paused message."""

    model_config = ConfigDict(extra="forbid")
    action: Literal["forward", "drop", "edit", "respond"]
    raw: str | None = Field(
        None,
        max_length=10_000_000,
        description="edit: the message to send instead, as JSON text; respond: the whole reply as JSON text",
    )
    result: dict[str, Any] | None = Field(None, description="respond: the result to answer with")
    error: ErrorSpec | None = Field(None, description="respond: the JSON-RPC error to answer with")


class ResolveOut(BaseModel):
    id: str
    action: str
    sent: str | None = Field(description="The bytes sent instead (edit) or back (respond), as text")


class EnabledIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    enabled: bool


class BreakpointsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    on: bool


async def _call(
    reg: dict[str, Any], method: str, path: str, body: Any = None, timeout: float = 10
) -> httpx.Response:
    async with httpx.AsyncClient(timeout=timeout, trust_env=False) as http:
        return await http.request(
            method, reg["url"] + path, json=body, headers={"authorization": f"Bearer {reg['token']}"}
        )


async def _announced(request: Request) -> list[dict[str, Any]]:
    db = db_key(state_of(request).engine)
    return await anyio.to_thread.run_sync(lambda: announcements(db))


async def _owner(request: Request, session_id: int) -> dict[str, Any]:
    """The live process recording `session_id` (its announcement; the process is asked when its
    file is older than the session)."""
    regs = await _announced(request)
    for reg in regs:
        if session_id in reg["sessions"]:
            return reg
    for reg in regs:  # a proxy opens sessions as clients connect: ask for its current ones
        try:
            answer = await _call(reg, "GET", "/state", timeout=5)
        except httpx.HTTPError:
            continue
        if answer.status_code == 200 and session_id in (answer.json().get("sessions") or []):
            return reg
    raise HTTPException(
        404, f"no intercepting process (wrap or proxy with --intercept) records session {session_id}"
    )


async def _relay(
    reg: dict[str, Any], method: str, path: str, body: Any = None, timeout: float = 10
) -> Response:
    try:
        answer = await _call(reg, method, path, body, timeout)
    except httpx.HTTPError as exc:
        raise HTTPException(
            410,
            f"the intercepting process (pid {reg['pid']}) did not answer: it has stopped ({type(exc).__name__})",
        ) from None
    if answer.status_code != 200:
        try:
            detail = answer.json().get("detail", answer.text)
        except ValueError:
            detail = answer.text
        if answer.status_code >= 500:  # a bug in the control channel: shown, never disguised as a 4xx
            raise HTTPException(502, f"the intercepting process (pid {reg['pid']}) failed: {detail}")
        # The process's own refusals (a message that is not JSON, a rule that does not fit) are 400s:
        # this API's 422 is FastAPI's, with a list of invalid fields.
        raise HTTPException(400 if answer.status_code == 422 else answer.status_code, detail)
    return json_response(answer.json())


@router.get(
    "",
    response_model=InterceptProcessList,
    summary="The live intercepting processes (wrap/proxy --intercept)",
)
async def list_processes(request: Request) -> Response:
    out = []
    for reg in await _announced(request):
        try:
            answer = await _call(reg, "GET", "/state", timeout=5)
        except httpx.HTTPError:
            continue  # stopping
        if answer.status_code != 200:
            continue
        state = answer.json()
        out.append(
            {
                "pid": reg["pid"],
                "kind": state.get("kind", reg.get("kind")),
                "target": state.get("target", reg.get("target")),
                "sessions": state.get("sessions", reg["sessions"]),
                "paused": len(state.get("pending") or []),
                "rules": len(state.get("rules") or []),
                "breakpoints": bool(state.get("breakpoints")),
            }
        )
    return json_response({"processes": out})


@router.get(
    "/sessions/{session_id}",
    response_model=InterceptState,
    responses=_GONE,
    summary="The intercept state of the process recording a session (rules, paused messages)",
)
async def get_state(
    request: Request,
    session_id: SqlInt,
    version: int | None = Query(None, ge=-1, le=2**62, description="The version last seen"),
    wait: float = Query(0, ge=0, le=25, description="Seconds to wait for a change after `version`"),
) -> Response:
    reg = await _owner(request, session_id)
    query = f"?version={version}&wait={wait:g}" if version is not None and wait else ""
    return await _relay(reg, "GET", f"/state{query}", timeout=wait + 10)


@router.post(
    "/sessions/{session_id}/pending/{pending_id}",
    response_model=ResolveOut,
    responses={**_GONE, 409: {"description": "that message cannot be answered (not a request)"}},
    summary="Forward, drop, edit or answer a paused message",
)
async def resolve(request: Request, session_id: SqlInt, pending_id: str, body: ResolveIn) -> Response:
    reg = await _owner(request, session_id)
    doc = body.model_dump(exclude_none=True, mode="json")
    if body.error is not None:
        doc["error"] = body.error.model_dump(exclude_unset=True, mode="json")
    return await _relay(reg, "POST", f"/pending/{_segment(pending_id)}", doc)


@router.post(
    "/sessions/{session_id}/rules",
    response_model=InterceptState,
    responses={**_GONE, 409: {"description": "a rule of that name exists"}},
    summary="Add a rule to the process",
)
async def add_rule(request: Request, session_id: SqlInt, body: Rule) -> Response:
    reg = await _owner(request, session_id)
    return await _relay(reg, "POST", "/rules", body.model_dump(mode="json", exclude_unset=True))


@router.patch(
    "/sessions/{session_id}/rules/{name}",
    response_model=InterceptState,
    responses=_GONE,
    summary="Enable or disable a rule",
)
async def set_enabled(request: Request, session_id: SqlInt, name: str, body: EnabledIn) -> Response:
    reg = await _owner(request, session_id)
    return await _relay(reg, "PATCH", f"/rules/{_segment(name)}", body.model_dump())


@router.delete(
    "/sessions/{session_id}/rules/{name}",
    response_model=InterceptState,
    responses=_GONE,
    summary="Remove a rule",
)
async def remove_rule(request: Request, session_id: SqlInt, name: str) -> Response:
    reg = await _owner(request, session_id)
    return await _relay(reg, "DELETE", f"/rules/{_segment(name)}")


@router.post(
    "/sessions/{session_id}/breakpoints",
    response_model=InterceptState,
    responses=_GONE,
    summary="Turn breakpoints (the pause rules) on or off",
)
async def breakpoints(request: Request, session_id: SqlInt, body: BreakpointsIn) -> Response:
    reg = await _owner(request, session_id)
    return await _relay(reg, "POST", "/breakpoints", body.model_dump())


def _segment(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")
