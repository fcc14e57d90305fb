"""The control channel of an intercepting process (`wrap`/`proxy` with `--intercept` or `--faults`).

`start_control` serves a small JSON API for one `Interceptor` on a loopback
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
`DELETE /rules/{name}`, `POST /breakpoints` (`on`).

The process announces the channel in the runtime directory
(`inspector.runtime_dir`, the rules for its files) as `intercept-<pid>.json`:
url, token, pid, kind, target, the session ids it records and the database
(`db`, when the transport gives it), rewritten when its sessions change and
removed at `ControlHandle.close()`.
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
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from inspector.errors import ControlError, InspectorError
from inspector.guard import ListenerGuard, allowed_hosts, is_loopback
from inspector.runtime_dir import read_json_files, remove_file, write_json

if TYPE_CHECKING:
    import uvicorn

    from inspector.intercept.engine import Interceptor

__all__ = [
    "PREFIX",
    "ControlHandle",
    "announcements",
    "frame_like",
    "reply_to",
    "start_control",
]

PREFIX = "intercept-"
ACTIONS = ("forward", "drop", "edit", "respond")
MAX_WAIT = 30.0
COUNTS_EVERY = 0.5  # seconds between checks of the rules' hit counts during a long poll


def frame_like(original: bytes, obj: Any) -> bytes:
    """`obj` as compact JSON framed like `original`: the same line terminator (a stdio line keeps
    its newline; an HTTP body or SSE data has none), never a newline inside (NDJSON)."""
    body = orjson.dumps(obj)
    for end in (b"\r\n", b"\n"):
        if original.endswith(end):
            return body + end
    return body


def reply_to(rpc_id: Any, result: Any = None, error: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON-RPC response the inspector sends in the peer's place."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result if result is not None else {}
    return message


def _parse_json_text(text: Any, what: str) -> Any:
    if not isinstance(text, str) or not text.strip():
        raise ControlError(422, f"{what} needs `raw`: the message as JSON text")
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise ControlError(422, f"`raw` is not valid JSON: {exc}") from None


def _check_error(error: Any) -> dict[str, Any]:
    if not isinstance(error, dict):
        raise ControlError(422, "`error` must be an object {code, message, data?}")
    code, message = error.get("code"), error.get("message")
    if type(code) is not int:
        raise ControlError(422, "`error.code` must be an integer (a JSON-RPC error code)")
    if not isinstance(message, str):
        raise ControlError(422, "`error.message` must be a string")
    extra = set(error) - {"code", "message", "data"}
    if extra:
        raise ControlError(422, f"`error` takes code, message and data only, not {sorted(extra)}")
    return error


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
    interceptor: Interceptor
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

    def counts(self, snapshot: dict[str, Any] | None = None) -> tuple[Any, ...]:
        """The rules' match and hit counts: they change with every message a rule sees, which the
        interceptor does not announce (a notification per message would cost the forwarding path)."""
        rules = (snapshot or self.interceptor.snapshot())["rules"]
        return tuple((r.get("name"), r.get("matched"), r.get("hits")) for r in rules)

    async def wait_for_change(self, since: int, wait: float) -> None:
        """Return once the version moved past `since`, the counts changed, or after `wait` seconds."""
        deadline = time.monotonic() + wait
        while self.changes.version == since:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            await self.changes.wait(since, min(left, COUNTS_EVERY))
            if self.changes.version == since and self.counts() != self.seen_counts:
                self.changes.bump()

    def state(self) -> dict[str, Any]:
        snapshot = dict(self.interceptor.snapshot())
        self.seen_counts = self.counts(snapshot)
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

    def resolve(self, pending_id: str, body: dict[str, Any]) -> dict[str, Any]:
        action = body.get("action")
        if action not in ACTIONS:
            raise ControlError(422, f"`action` must be one of {', '.join(ACTIONS)}")
        extra = set(body) - {"action", "raw", "result", "error"}
        if extra:
            raise ControlError(422, f"unknown field(s) {sorted(extra)}: action, raw, result, error")
        pending = self.interceptor.get_pending(pending_id)
        if pending is None or pending.resolved:
            raise ControlError(404, f"no paused message {pending_id!r} (already resolved or timed out)")
        seen = pending.seen
        raw: bytes | None = None
        if action == "edit":
            raw = frame_like(seen.raw, _parse_json_text(body.get("raw"), "edit"))
        elif action == "respond":
            if seen.kind != "request" or seen.rpc_id is None:
                raise ControlError(409, f"only a request can be answered; this message is a {seen.kind}")
            given = [k for k in ("raw", "result", "error") if body.get(k) is not None]
            if len(given) != 1:
                raise ControlError(422, "respond takes exactly one of `result`, `error` or `raw`")
            rpc_id = seen.obj.get("id") if isinstance(seen.obj, dict) else seen.rpc_id  # as sent: 1, not "1"
            if given[0] == "raw":
                reply = _parse_json_text(body["raw"], "respond")
            elif given[0] == "error":
                reply = reply_to(rpc_id, error=_check_error(body["error"]))
            else:
                reply = reply_to(rpc_id, result=body["result"])
            raw = frame_like(seen.raw, reply)
        elif body.get("raw") is not None:
            raise ControlError(422, f"{action} takes no `raw` (use edit to change the message)")
        try:
            outcome = pending.resolve(action, raw, by="user")
        except ValueError as exc:
            raise ControlError(422, f"paused message {pending_id!r} cannot be resolved: {exc}") from None
        done = outcome.intervention
        if done is not None and done.by != "user":  # the timeout came first
            raise ControlError(409, f"paused message {pending_id!r} was resolved by the {done.by} already")
        return {
            "id": pending_id,
            "action": action,
            "sent": None if raw is None else raw.decode("utf-8", "replace"),
        }

    def add_rule(self, body: dict[str, Any]) -> dict[str, Any]:
        from inspector.intercept.rules import HTTP_ONLY_ACTIONS, Rule

        try:
            rule = Rule.model_validate(body)
        except ValidationError as exc:
            raise ControlError(422, f"not a rule: {_first_error(exc)}") from None
        if "wrap" in self.kind and rule.action in HTTP_ONLY_ACTIONS:  # stdio-wrap
            raise ControlError(422, f"action {rule.action} applies to HTTP only (proxy), not to a stdio wrap")
        if any(r.name == rule.name for r in self.interceptor.rules()):
            raise ControlError(409, f"a rule named {rule.name!r} exists already (remove it first)")
        try:
            self.interceptor.add_rule(rule)
        except InspectorError as exc:  # RulesError: the name is taken (added meanwhile)
            raise ControlError(409, str(exc)) from None
        return self.state()

    def set_enabled(self, name: str, body: dict[str, Any]) -> dict[str, Any]:
        enabled = body.get("enabled")
        if type(enabled) is not bool or set(body) != {"enabled"}:
            raise ControlError(422, 'the body must be {"enabled": true|false}')
        if not self.interceptor.set_enabled(name, enabled):
            raise ControlError(404, f"no rule named {name!r}")
        return self.state()

    def remove_rule(self, name: str) -> dict[str, Any]:
        if not self.interceptor.remove_rule(name):
            raise ControlError(404, f"no rule named {name!r}")
        return self.state()

    def breakpoints(self, body: dict[str, Any]) -> dict[str, Any]:
        on = body.get("on")
        if type(on) is not bool or set(body) != {"on"}:
            raise ControlError(422, 'the body must be {"on": true|false}')
        self.interceptor.breakpoints_on(on)
        return self.state()


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "rule"
    return f"{where}: {err.get('msg', 'invalid')}"


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
    if path.startswith("/pending/"):
        return channel.resolve(request.path_params["pid"], body)
    if path == "/breakpoints":
        return channel.breakpoints(body)
    if path == "/rules":
        return channel.add_rule(body)
    name = request.path_params["name"]
    if request.method == "PATCH":
        return channel.set_enabled(name, body)
    return channel.remove_rule(name)


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
    interceptor: Interceptor,
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
    channel = _Channel(interceptor, kind, target, sessions, token, db)
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


def _well_formed(data: dict[str, Any]) -> bool:
    pid = data.get("pid")
    url = data.get("url")
    return (
        type(pid) is int
        and pid > 0
        and isinstance(url, str)
        and url.startswith("http://127.0.0.1:")
        and isinstance(data.get("token"), str)
        and isinstance(data.get("sessions"), list)
        and all(type(s) is int for s in data["sessions"])
    )


def announcements(db: str | None = None) -> list[dict[str, Any]]:
    """The live intercepting processes' announcements (the user's own, well-formed files of running
    processes; with `db`, those recording into that database or not saying which)."""
    out = []
    for data in read_json_files(PREFIX, ".json"):
        if not _well_formed(data):
            continue
        try:
            os.kill(data["pid"], 0)
        except OSError:
            continue  # its process is gone
        if db is not None and data.get("db") not in (None, db):
            continue
        out.append(data)
    return out
