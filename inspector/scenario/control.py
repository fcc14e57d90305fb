"""The control channel of `mcp-inspect serve`: push requests to a connected client, edit its tools.

`Controller` acts on the live connections (`ServedSessions`): send any
server-to-client request (waiting for the answer, timing it and checking it
with `protocol.client_answers.check_exchange`) or notification, add or remove a tool and say
`list_changed`. `control_app` serves it over HTTP for the UI process: on the
MCP port under `/control` with `--http`, else on a loopback port of its own.
Every request needs `Authorization: Bearer TOKEN`, must come from loopback,
and must not carry an `Origin` (browsers never call it; the UI's API does).
Each serve process announces its control URL and token in a file of its own
(mode 0600) in the runtime directory (`inspector.runtime_dir`: the rules for
that directory and its files), removed when it stops.
"""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Engine
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from inspector.capture import Tap
from inspector.errors import ControlError
from inspector.mock.session import MockSession
from inspector.protocol.client_answers import check_exchange
from inspector.runtime_dir import live_files, remove_file, write_json
from inspector.scenario.features import wire_tool
from inspector.scenario.models import Tool
from inspector.scenario.script import ScenarioScript
from inspector.store.db import db_key

__all__ = [
    "LOOPBACK",
    "Controller",
    "Registration",
    "Served",
    "ServedSessions",
    "control_app",
    "db_key",
    "registrations",
]

LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


@dataclass
class Served:
    """One connected client: its recorded session, the mock session playing to it, its script."""

    session_id: int
    mock: MockSession
    script: ScenarioScript
    tap: Tap


@dataclass
class ServedSessions:
    by_id: dict[int, Served] = field(default_factory=dict)


def _stateless(entry: Served) -> bool:
    return entry.script.version in ("2026-07-28",)


class Controller:
    def __init__(self, served: ServedSessions) -> None:
        self.served = served

    def entry(self, session_id: int) -> Served:
        found = self.served.by_id.get(session_id)
        if found is None:
            raise ControlError(404, f"no connected client in session {session_id}")
        return found

    def describe(self, entry: Served) -> dict[str, Any]:
        stateless = _stateless(entry)
        return {
            "sessionId": entry.session_id,
            "client": entry.script.client,
            "protocolVersion": entry.script.version,
            "closed": entry.mock.closed.is_set(),
            "canPush": not stateless and entry.mock.background is not None and not entry.mock.closed.is_set(),
            "tools": [wire_tool(t) for t in entry.script.offer.tools.values()],
        }

    def sessions(self) -> list[dict[str, Any]]:
        return [self.describe(e) for e in self.served.by_id.values()]

    def _pushable(self, session_id: int) -> Served:
        entry = self.entry(session_id)
        if entry.mock.closed.is_set():
            raise ControlError(409, "the client has disconnected")
        if _stateless(entry) or entry.mock.background is None:
            raise ControlError(
                409,
                "this client speaks the stateless 2026-07-28 revision: server-to-client requests only reach "
                "it inside an input_required result (use a scenario tool's steps)",
            )
        return entry

    async def request(
        self, session_id: int, method: str, params: dict[str, Any] | None, timeout: float
    ) -> dict[str, Any]:
        entry = self._pushable(session_id)
        payload: dict[str, Any] = {"method": method}
        if params is not None:
            payload["params"] = params
        assert entry.mock.background is not None
        started = time.perf_counter()
        answer = await entry.mock.ask(payload, entry.mock.background, timeout=timeout)
        latency = (time.perf_counter() - started) * 1000
        answer = None if answer is None else {k: v for k, v in answer.items() if k in ("result", "error")}
        capabilities = (entry.script.client or {}).get("capabilities") or {}
        findings = check_exchange(method, params, answer, capabilities)
        return {
            "answer": answer,
            "latencyMs": None if answer is None else round(latency, 3),
            "findings": [f.to_json() for f in findings],
        }

    async def notify(self, session_id: int, method: str, params: dict[str, Any] | None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        entry = self.entry(session_id)
        if _stateless(entry) and not entry.mock.closed.is_set():
            # 2026-07-28: notifications travel only on the client's subscriptions/listen streams.
            if not entry.mock.listens:
                raise ControlError(
                    409,
                    "this 2026-07-28 client has no subscriptions/listen stream open: notifications "
                    "reach it only on one (and only the kinds it asked for)",
                )
            await entry.mock.broadcast(message)
            return
        entry = self._pushable(session_id)
        assert entry.mock.background is not None
        await entry.mock.background(message)

    async def set_tool(self, session_id: int, tool: dict[str, Any], announce: bool) -> dict[str, Any]:
        entry = self.entry(session_id)
        try:
            model = Tool.model_validate(tool)
        except ValidationError as exc:
            raise ControlError(
                422, f"not a scenario tool: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}"
            ) from None
        entry.script.offer.tools[model.name] = model
        if announce:
            await self.notify(session_id, "notifications/tools/list_changed", None)
        return self.describe(entry)

    async def remove_tool(self, session_id: int, name: str, announce: bool) -> dict[str, Any]:
        entry = self.entry(session_id)
        if entry.script.offer.tools.pop(name, None) is None:
            raise ControlError(404, f"no tool {name!r}")
        if announce:
            await self.notify(session_id, "notifications/tools/list_changed", None)
        return self.describe(entry)


def control_app(controller: Controller, token: str) -> Starlette:
    async def guarded(request: Request) -> Response:
        client_host = request.client.host if request.client else ""
        if client_host not in LOOPBACK:
            return JSONResponse({"detail": "loopback only"}, 403)
        if "origin" in request.headers:
            return JSONResponse({"detail": "browsers may not call the control channel"}, 403)
        given = request.headers.get("authorization", "")
        if not secrets.compare_digest(given.encode(), f"Bearer {token}".encode()):
            return JSONResponse({"detail": "bad or missing token"}, 401)
        try:
            body = await request.json() if request.method in ("POST", "PUT") else {}
            if not isinstance(body, dict):
                raise ControlError(422, "the body must be a JSON object")
            return JSONResponse(await _route(controller, request, body))
        except ControlError as exc:
            return JSONResponse({"detail": str(exc)}, exc.status)
        except ValueError:
            return JSONResponse({"detail": "the body must be JSON"}, 422)

    return Starlette(
        routes=[
            Route("/sessions", guarded, methods=["GET"]),
            Route("/sessions/{sid:int}/{action}", guarded, methods=["POST"]),
            Route("/sessions/{sid:int}/tools", guarded, methods=["PUT"]),
            Route("/sessions/{sid:int}/tools/{name}", guarded, methods=["DELETE"]),
        ]
    )


async def _route(controller: Controller, request: Request, body: dict[str, Any]) -> Any:
    if request.url.path.endswith("/sessions"):
        return controller.sessions()
    sid = int(request.path_params["sid"])
    params = body.get("params")
    if params is not None and not isinstance(params, dict):
        raise ControlError(422, "params must be an object")
    if request.method == "PUT":
        return await controller.set_tool(sid, body.get("tool") or {}, bool(body.get("announce", True)))
    if request.method == "DELETE":
        announce = request.query_params.get("announce", "1") != "0"
        return await controller.remove_tool(sid, request.path_params["name"], announce)
    method = body.get("method")
    if not isinstance(method, str) or not method:
        raise ControlError(422, "method is required")
    action = request.path_params["action"]
    if action == "request":
        timeout = float(body.get("timeout") or 60)
        return await controller.request(sid, method, params, min(max(timeout, 0.1), 600))
    if action == "notify":
        await controller.notify(sid, method, params)
        return {"sent": True}
    raise ControlError(404, f"no control action {action!r}")


class Registration:
    """This process's announcement of its control channel (a file removed on close).

    Written through `inspector.runtime_dir`: a runtime directory that is not
    the user's own with mode 0700 raises `RuntimeDirError` and nothing is written.
    """

    def __init__(self, engine: Engine, url: str, token: str) -> None:
        self.name = f"serve-{os.getpid()}.json"
        self.path = write_json(
            self.name, {"pid": os.getpid(), "url": url, "token": token, "db": db_key(engine)}
        )

    def close(self) -> None:
        remove_file(self.name)


def _well_formed(data: dict[str, Any]) -> bool:
    pid = data.get("pid")
    # pid 0 or below would make os.kill signal a process group: such a file is not ours.
    return (
        type(pid) is int and pid > 0 and all(isinstance(data.get(key), str) for key in ("url", "token", "db"))
    )


def registrations(engine: Engine) -> list[dict[str, Any]]:
    """The live serve processes recording into the same database (the user's own, well-formed files)."""
    key = db_key(engine)
    return [data for data in live_files("serve-", _well_formed) if data["db"] == key]
