"""The control channel's listener in an intercepting process (`wrap`/`proxy`/`mock-server` with
`--intercept` or `--faults`).

`start_control` serves a small JSON API for one interceptor on a loopback
port of its own, in a thread of its own (uvicorn on its own event loop), so
the transport's threads or loop never wait for it. The UI server's API
(`inspector/api/routes_intercept.py`) and `mcp-inspect intercept` call it;
browsers never do:

- behind the one listener guard (`ListenerGuard`: loopback `Host` only);
- every request needs `Authorization: Bearer TOKEN`, must come from a
  loopback address and must not carry an `Origin` (a browser always sends
  one on a cross-site request, so a page cannot drive it even with the token);
- bodies are JSON objects (anything else is a 415 or 422 with the reason).

Routes: `GET /state` (the interceptor's snapshot, the process's session
ids, kind and target; `?version=V&wait=S` waits up to S seconds for a change
after version V, or for new hit counts, for live views), `POST /pending/{id}` (`action`: forward,
drop, edit with `raw` JSON text, respond with `result`, `error` or `raw`),
`POST /rules` (a rule), `PATCH /rules/{name}` (`enabled`),
`DELETE /rules/{name}`, `POST /breakpoints` (`on`). What each does to the
interceptor is its `commands(kind)` (`inspector.intercept.commands`, sans-IO);
here are the socket, the token, the long polls and the announcement.

The process announces the channel in the runtime directory as
`intercept-<pid>.json` (`inspector.control.announce`), rewritten when its
sessions change and removed at `ControlHandle.close()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from inspector.control.announce import PREFIX
from inspector.errors import ControlError, InspectorError
from inspector.guard import ListenerGuard, allowed_hosts, is_loopback
from inspector.runtime_dir import remove_file, write_json

if TYPE_CHECKING:
    import uvicorn

__all__ = ["Commands", "ControlHandle", "Controlled", "start_control"]


class Commands(Protocol):
    """What the channel's requests do (`inspector.intercept.engine.Commands`); a refusal is a
    `ControlError` with the HTTP status to answer."""

    def snapshot(self) -> dict[str, Any]: ...
    def counts(self, snapshot: dict[str, Any] | None = None) -> tuple[Any, ...]: ...
    def resolve(self, pending_id: str, body: dict[str, Any]) -> dict[str, Any]: ...
    def add_rule(self, body: dict[str, Any]) -> None: ...
    def set_enabled(self, name: str, body: dict[str, Any]) -> None: ...
    def remove_rule(self, name: str) -> None: ...
    def breakpoints(self, body: dict[str, Any]) -> None: ...


class Controlled(Protocol):
    """What the channel serves: an interceptor (`inspector.intercept.Interceptor`)."""

    def commands(self, kind: str) -> Commands: ...
    def subscribe(self, fn: Callable[[str, dict[str, Any]], None]) -> Callable[[], None]: ...


MAX_WAIT = 30.0
COUNTS_EVERY = 0.5  # seconds between checks of the rules' hit counts during a long poll


class _Changes:
    """A version number bumped on every change the interceptor reports, with waiters on the loop."""

    def __init__(self) -> None:
        self.version = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self.event: asyncio.Event | None = None

    def bump(self, *_args: Any) -> None:
        self.version += 1
        loop, event = self.loop, self.event
        if loop is not None and event is not None:
            with contextlib.suppress(RuntimeError):  # the loop has stopped
                loop.call_soon_threadsafe(event.set)

    async def wait(self, since: int, timeout: float) -> None:
        if self.event is None:
            self.loop = asyncio.get_running_loop()
            self.event = asyncio.Event()
        deadline = time.monotonic() + timeout
        while self.version == since:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self.event.clear()
            if self.version != since:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.event.wait(), left)


@dataclass
class _Channel:
    commands: Commands
    kind: str
    target: Any
    sessions: Callable[[], list[int]]
    token: str
    db: str | None
    changes: _Changes = field(default_factory=_Changes)
    name: str = field(default_factory=lambda: f"{PREFIX}{os.getpid()}.json")
    url: str = ""
    announced: list[int] | None = None
    seen_counts: tuple[Any, ...] = ()
    lock: threading.Lock = field(default_factory=threading.Lock)

    def session_ids(self) -> list[int]:
        try:
            return sorted(int(s) for s in self.sessions())
        except Exception:  # a transport's callback must never break the channel
            return []

    def announce(self) -> None:
        """Write (or rewrite) this process's announcement when its session ids changed."""
        ids = self.session_ids()
        with self.lock:
            if ids == self.announced:
                return
            self.announced = ids
            doc = {
                "pid": os.getpid(),
                "url": self.url,
                "token": self.token,
                "kind": self.kind,
                "target": self.target,
                "sessions": ids,
                "db": self.db,
            }
            write_json(self.name, doc)

    async def wait_for_change(self, since: int, wait: float) -> None:
        """Return once the version moved past `since`, the counts changed, or after `wait` seconds."""
        deadline = time.monotonic() + wait
        while self.changes.version == since:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            await self.changes.wait(since, min(left, COUNTS_EVERY))
            if self.changes.version == since and self.commands.counts() != self.seen_counts:
                self.changes.bump()

    def state(self) -> dict[str, Any]:
        snapshot = self.commands.snapshot()
        self.seen_counts = self.commands.counts(snapshot)
        ids = self.session_ids()
        if ids != self.announced:
            with contextlib.suppress(InspectorError, OSError):
                self.announce()
        snapshot.update(
            pid=os.getpid(),
            kind=self.kind,
            target=self.target,
            sessions=ids,
            version=self.changes.version,
        )
        return snapshot


def control_app(channel: _Channel) -> Starlette:
    async def guarded(request: Request) -> Response:
        client_host = request.client.host if request.client else ""
        if not is_loopback(client_host):
            return JSONResponse({"detail": "loopback only"}, 403)
        if "origin" in request.headers:
            return JSONResponse({"detail": "browsers may not call the intercept control channel"}, 403)
        given = request.headers.get("authorization", "")
        if not secrets.compare_digest(given.encode(), f"Bearer {channel.token}".encode()):
            return JSONResponse({"detail": "bad or missing token"}, 401)
        try:
            body: Any = {}
            if request.method in ("POST", "PATCH"):
                kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
                if kind != "application/json":
                    return JSONResponse(
                        {"detail": "the body must be JSON (Content-Type: application/json)"}, 415
                    )
                body = orjson.loads(await request.body() or b"{}")
                if not isinstance(body, dict):
                    raise ControlError(422, "the body must be a JSON object")
            return JSONResponse(await _route(channel, request, body))
        except ControlError as exc:
            return JSONResponse({"detail": str(exc)}, exc.status)
        except orjson.JSONDecodeError:
            return JSONResponse({"detail": "the body must be JSON"}, 422)

    return Starlette(
        routes=[
            Route("/state", guarded, methods=["GET"]),
            Route("/pending/{pid:path}", guarded, methods=["POST"]),
            Route("/rules", guarded, methods=["POST"]),
            Route("/rules/{name:path}", guarded, methods=["PATCH", "DELETE"]),
            Route("/breakpoints", guarded, methods=["POST"]),
        ]
    )


async def _route(channel: _Channel, request: Request, body: dict[str, Any]) -> Any:
    path = request.url.path
    if path == "/state":
        query = request.query_params
        try:
            since = int(query.get("version", "-1"))
            wait = min(max(float(query.get("wait", "0")), 0.0), MAX_WAIT)
        except ValueError:
            raise ControlError(422, "version must be an integer and wait a number of seconds") from None
        if wait and since == channel.changes.version:
            await channel.wait_for_change(since, wait)
        return channel.state()
    commands = channel.commands
    if path.startswith("/pending/"):
        return commands.resolve(request.path_params["pid"], body)
    if path == "/breakpoints":
        commands.breakpoints(body)
    elif path == "/rules":
        commands.add_rule(body)
    elif request.method == "PATCH":
        commands.set_enabled(request.path_params["name"], body)
    else:
        commands.remove_rule(request.path_params["name"])
    return channel.state()


@dataclass
class ControlHandle:
    """A running control channel: its URL and token; `close()` stops it and removes its file."""

    url: str
    token: str
    name: str
    _channel: _Channel
    _server: uvicorn.Server
    _thread: threading.Thread
    _closed: bool = False

    def announce(self) -> None:
        """Rewrite the announcement now (a transport calls it when it opens a session)."""
        with contextlib.suppress(InspectorError, OSError):
            self._channel.announce()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        remove_file(self.name)
        self._channel.changes.bump()  # wakes the long polls, so the server stops at once
        self._server.should_exit = True
        self._thread.join(5)


def start_control(
    interceptor: Controlled,
    *,
    kind: str,
    target: Any,
    sessions: Callable[[], list[int]],
    db: str | None = None,
    timeout: float = 10.0,
) -> ControlHandle:
    """Serve `interceptor`'s control channel on a loopback port in a thread and announce it.

    `kind` and `target` say what the process is (`wrap` and its command, `proxy` and its URL);
    `sessions` gives the ids of the sessions it records now; `db` the database they are in
    (`inspector.scenario.control.db_key`), so a UI on another database does not list it.
    Raises `InspectorError` when the channel cannot start or be announced (an unsafe runtime
    directory: `RuntimeDirError`)."""
    import uvicorn

    from inspector.transports.serve import bind

    token = secrets.token_urlsafe(24)
    sock = bind("127.0.0.1", 0, option="the intercept control channel")
    sock.set_inheritable(False)  # never handed to the wrapped server
    port = sock.getsockname()[1]
    channel = _Channel(interceptor.commands(kind), kind, target, sessions, token, db)
    channel.url = f"http://127.0.0.1:{port}"
    app = ListenerGuard(control_app(channel), hosts=allowed_hosts("127.0.0.1", port))
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2
    )
    server = uvicorn.Server(config)

    def run() -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(_serve(server, sock, channel))
        finally:
            loop.close()

    thread = threading.Thread(target=run, name="mcp-inspect-intercept-control", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    if not server.started:
        server.should_exit = True
        thread.join(2)
        sock.close()
        raise InspectorError("the intercept control channel did not start")
    handle = ControlHandle(channel.url, token, channel.name, channel, server, thread)
    try:
        channel.announce()
    except BaseException:
        handle.close()
        raise
    interceptor.subscribe(channel.changes.bump)
    return handle


async def _serve(server: uvicorn.Server, sock: Any, channel: _Channel) -> None:
    channel.changes.loop = asyncio.get_running_loop()
    channel.changes.event = asyncio.Event()
    # The thread is not the main thread: uvicorn installs no signal handlers there.
    await server.serve(sockets=[sock])
