"""Wiring for `mcp-inspect mock-server`: load the recording, pick the record mode, serve, record.

Record modes, as in cassette libraries:
- `none`: play the recording only (unmatched requests follow `--unmatched`);
- `new`: play what matches, forward the rest to the real server (and record it);
- `all`: forward everything to the real server and record it;
- `once`: `all` when no recording of that name exists yet, else `none`.
Forwarding opens its own recorded connection (a session linked to the
mock session) and first repeats the client's handshake there. When that
server cannot be started or reached, or exits before answering, the client
gets a JSON-RPC error naming the forward target, the exit status and the
end of its stderr; the next forwarded request tries a new connection.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import orjson
from sqlalchemy import Engine

from inspector.capture import Recorder, Tap
from inspector.capture.pause import refuse_metadata_only
from inspector.capture.redact import active
from inspector.capture.sessions import open_session
from inspector.endpoint import Endpoint
from inspector.errors import (
    ConnectionClosed,
    InspectorError,
    NotFoundError,
    RequestError,
    ResponseTimeout,
    SpawnError,
)
from inspector.guard import Access
from inspector.mock.intercept import (
    HttpIntercept,
    MockIntercept,
    end_reason,
    mock_interceptor,
    start_mock_control,
    with_facts,
)
from inspector.mock.script import PLAYED_END, RecordedScript, RecordedScripts, recorded_ends
from inspector.mock.serve import mock_http_app, serve_stdio
from inspector.mock.session import FORWARD_FAILED_CODE, MockSession, Out
from inspector.protocol import id_key
from inspector.replay.matching import MatchPolicy
from inspector.store import StoreWriter, get_session, iter_messages
from inspector.transports.connect import Connection, StdioConnection, open_connection

__all__ = ["MockOptions", "prepare_mock", "run_mock"]

RECORD_MODES = ("none", "once", "new", "all")
FORWARD_TIMEOUT = 60.0  # seconds the real server has to answer a forwarded request
STDERR_SHOWN = 600  # characters of the real server's last stderr output put in the error


@dataclass
class MockOptions:
    session_ref: str
    also: tuple[str, ...] = ()  # more recordings played with the first (`mock-server A B C`)
    match: str = "strict"
    ignore: tuple[str, ...] = ()
    unmatched: str = "error"
    record_mode: str = "none"
    forward: Sequence[str] | str | None = None
    name: str | None = None
    faults: str | None = None  # --faults FILE (issue 17)
    seed: int | None = None
    intercept: bool = False  # breakpoints and the control channel
    pause_timeout: float | None = None
    pause_default: str | None = None


@dataclass
class MockPlan:
    script: RecordedScript | RecordedScripts  # several: each connection gets its own `connection()`
    play: bool
    unmatched: str
    source_id: int | None
    name: str
    notes: list[str] = field(default_factory=list)


def prepare_mock(engine: Engine, options: MockOptions) -> MockPlan:
    """Resolve the recording and the record mode into what to serve; clear errors for bad combinations."""
    if options.record_mode not in RECORD_MODES:
        raise InspectorError(f"--record-mode must be one of {', '.join(RECORD_MODES)}")
    if options.record_mode in ("new", "all", "once") and options.forward is None:
        raise InspectorError(
            f"--record-mode {options.record_mode} needs a real server: --forward URL or --forward-cmd"
        )
    policy = MatchPolicy(options.match, tuple(options.ignore))
    try:
        source = get_session(engine, options.session_ref)
        refuse_metadata_only(source, "served as a mock server")
    except NotFoundError:
        if options.record_mode not in ("once", "all"):
            raise
        source = None
    mode = options.record_mode
    if mode == "once":
        mode = "none" if source is not None else "all"
    if mode in ("new", "all") and options.forward is None:
        raise InspectorError(
            f"--record-mode {options.record_mode} needs a real server: --forward URL or --forward-cmd"
        )
    unmatched = "forward" if mode == "new" else options.unmatched
    if unmatched == "forward" and options.forward is None:
        raise InspectorError("--unmatched forward needs a real server: --forward URL or --forward-cmd")
    script: RecordedScript | RecordedScripts = _script(engine, source, policy)
    played = [source] if source is not None else []
    if options.also:
        if source is None:
            raise NotFoundError(f"no session {options.session_ref!r}")
        for ref in options.also:
            more = get_session(engine, ref)
            refuse_metadata_only(more, "served as a mock server")
            if all(more.id != p.id for p in played):
                played.append(more)
        if len(played) > 1:
            script = RecordedScripts([_script(engine, p, policy) for p in played])
    name = (
        options.name or (source.name if source is not None and source.name else None) or options.session_ref
    )
    notes = [
        f"record mode {mode}" + (f" (from {options.record_mode})" if mode != options.record_mode else "")
    ]
    if len(played) > 1:
        shown = ", ".join(str(p.id) for p in played)
        notes.append(
            f"playing {len(played)} sessions ({shown}), each connection answered from the one it fits"
        )
    elif source is not None:
        notes.append(f"playing session {source.id} ({len(script.requests)} distinct requests)")
    return MockPlan(script, mode != "all", unmatched, source.id if source else None, name, notes)


def _script(engine: Engine, source: Any, policy: MatchPolicy) -> RecordedScript:
    """The server's side of one recorded session (an empty script for none)."""
    if source is None or source.id is None:
        return RecordedScript.from_rows([], policy)
    rows = list(iter_messages(engine, source.id))
    return RecordedScript.from_rows(
        rows, policy, ends=recorded_ends(rows, source.exit_status, source.end_reason)
    )


class Forwarder:
    """A lazily opened, recorded connection to the real server, for unmatched requests."""

    def __init__(
        self, engine: Engine, recorder: Recorder, target: Sequence[str] | str, parent_id: int
    ) -> None:
        self.engine = engine
        self.recorder = recorder
        self.target = target
        self.parent_id = parent_id
        self.handshake: list[dict[str, Any]] = []
        self._endpoint: Endpoint | None = None
        self._conn: Connection | None = None
        self._tap: Tap | None = None
        self._generation = 0  # bumped each time a forward connection is given up
        self._lost_conn: tuple[Connection | None, Tap | None] = (None, None)
        self._lock = anyio.Lock()
        self._tg: anyio.abc.TaskGroup | None = None
        self.session: MockSession | None = None
        self._out: Out | None = None

    def remember(self, message: dict[str, Any]) -> None:
        """Keep the client's handshake, to repeat it when the forward connection opens."""
        if message.get("method") in ("initialize", "notifications/initialized"):
            self.handshake.append(message)

    async def __call__(self, message: dict[str, Any], out: Out) -> dict[str, Any] | None:
        """The real server's answer to `message` (None for a notification), or a JSON-RPC error
        saying why there is none: the server could not be started or reached, exited (its status
        and last stderr lines), or did not answer in time. The mock goes on serving either way."""
        self._out = out
        generation = self._generation
        try:
            endpoint = await self._open(message)
            await endpoint.send_raw(orjson.dumps(message))
            if "id" not in message:
                return None
            answer = await endpoint.response(id_key(message["id"]), timeout=FORWARD_TIMEOUT)
        except ResponseTimeout:
            why = f"did not answer within {FORWARD_TIMEOUT:g} s"
            return None if "id" not in message else {"error": self._error(why, {})}
        except (ConnectionClosed, InspectorError, OSError) as exc:
            why, data = await self._lost(generation, exc)
            if "id" not in message:
                announce(f"a notification was not forwarded: the real server {why}")
                return None
            return {"error": self._error(why, data)}
        return {k: v for k, v in answer.items() if k in ("result", "error")}

    def _error(self, why: str, data: dict[str, Any]) -> dict[str, Any]:
        shown = self.target if isinstance(self.target, str) else shlex.join(active().argv(list(self.target)))
        flag = "--forward" if isinstance(self.target, str) else "--forward-cmd"
        return {
            "code": FORWARD_FAILED_CODE,
            "message": f"mcp-inspect mock: the real server ({flag} {shown}) {why}",
            "data": {"forward": shown, **data},
        }

    async def _lost(self, generation: int, exc: BaseException) -> tuple[str, dict[str, Any]]:
        """Why the forward connection failed, in words and as data. The first request to see the
        failure closes the connection and ends its session; the next forwarded request opens a new one."""
        async with self._lock:
            mine = generation == self._generation
            if mine:
                self._lost_conn = (self._conn, self._tap)
                self._endpoint = self._conn = self._tap = None
                self._generation += 1
        conn, tap = self._lost_conn
        status: int | None = None
        tail = ""
        if isinstance(conn, StdioConnection):
            status = await conn.exit_status(timeout=5)
            tail = bytes(conn.stderr_tail).decode("utf-8", "replace").strip()[-STDERR_SHOWN:]
        if status is not None:
            why = f"exited with status {status} before answering"
        elif isinstance(exc, SpawnError):
            why = f"could not be started: {exc}"
        else:
            why = f"closed the connection before answering: {exc}"
        if tail:
            why += f"; its stderr ended with: {tail}"
        if mine:
            if conn is not None:
                with anyio.move_on_after(5, shield=True):
                    await conn.aclose()
            if tap is not None:
                tap.end(status, f"the real server {why}")
            announce(f"forwarding failed: the real server {why}")
        return why, {"exit_status": status, "stderr": tail, "reason": str(exc)}

    async def _open(self, current: dict[str, Any]) -> Endpoint:
        async with self._lock:
            if self._endpoint is not None:
                return self._endpoint
            assert self._tg is not None
            target = self.target if isinstance(self.target, str) else list(self.target)
            self._tap = open_session(
                self.recorder,
                self.engine,
                kind="mock-client",
                target=target,
                name=f"forwarded for mock #{self.parent_id}",
                parent_id=self.parent_id,
            )
            try:
                self._conn = await open_connection(self.target, self._tap, self._tg)
            except InspectorError as exc:
                self._tap.end(None, f"spawn failed: {exc}")
                self._tap = None
                raise
            endpoint = Endpoint(
                self._conn, on_request=self._relay_request, on_notification=self._relay_notification
            )
            await self._tg.start(endpoint.serve)
            # The real server has not seen the client's handshake (the recording answered it): repeat it.
            for earlier in self.handshake:
                if earlier is current:
                    continue
                await endpoint.send_raw(orjson.dumps(earlier))
                if "id" in earlier:
                    await endpoint.response(id_key(earlier["id"]), timeout=FORWARD_TIMEOUT)
            self._endpoint = endpoint
            return endpoint

    async def _relay_request(self, request: dict[str, Any]) -> Any:
        """The real server asks the client something (sampling, roots, ...): ask our client."""
        assert self.session is not None and self._out is not None
        payload = {k: v for k, v in request.items() if k not in ("id", "jsonrpc")}
        answer = await self.session.ask(payload, self._out)
        if answer is None:
            raise RequestError(-32001, "the client did not answer in time")
        if "error" in answer:
            err = answer["error"]
            raise RequestError(err.get("code", -32603), err.get("message", ""), err.get("data"))
        return answer.get("result")

    async def _relay_notification(self, notification: dict[str, Any]) -> None:
        if self._out is not None:
            await self._out(notification)

    def bind(self, tg: anyio.abc.TaskGroup, session: MockSession) -> None:
        self._tg = tg
        self.session = session


async def run_mock(
    engine: Engine,
    options: MockOptions,
    *,
    http: tuple[str, int] | None = None,
    access: Access | None = None,
) -> int | None:
    """Serve the mock on stdio (one client) or Streamable HTTP (until interrupted, behind the
    listener guard: Host, Origin, JSON POSTs; a non-loopback `http` needs `access.allow_remote`).

    Over stdio, when the recording's end was played (the recorded server exited), the exit status
    to leave with (the recorded one; 1 when none was recorded); otherwise None."""
    access = access or Access()
    plan = prepare_mock(engine, options)
    interceptor = mock_interceptor(
        options.faults,
        options.seed,
        http=http is not None,
        intercept=options.intercept,
        pause_timeout=options.pause_timeout,
        pause_default=options.pause_default,
    )
    recorder = make_recorder(engine)
    seen: list[int] = []
    control = None
    try:
        control = start_mock_control(
            interceptor, kind="mock-server", target=options.session_ref, sessions=seen, engine=engine
        )
        async with anyio.create_task_group() as tg:

            def make_session(target: Any) -> tuple[MockSession, Tap]:
                sid, tap = new_tap(engine, recorder, plan, target)
                forward = (
                    Forwarder(engine, recorder, options.forward, sid) if options.forward is not None else None
                )
                script = plan.script
                if isinstance(script, RecordedScripts):
                    script = script.connection()  # its own choices and counters
                session = MockSession(script, unmatched=plan.unmatched, forward=forward, play=plan.play)
                if forward is not None:
                    forward.bind(tg, session)
                    session.on_message = forward.remember
                return session, tap

            if http is None:
                session, tap = make_session("stdio")
                announce(f"mock server on stdio; {'; '.join(plan.notes)}")
                hook = None
                if interceptor is not None:
                    hook = MockIntercept(interceptor, tap)
                    tap.add_facts(hook.facts())
                    seen.append(tap.session_id)
                    announce(f"intercepting: {len(interceptor.rules())} rule(s), seed {interceptor.seed}")
                ended = await serve_stdio(session, tap, intercept=hook)
                tg.cancel_scope.cancel()
                if ended is None:
                    tap.end(0, "client EOF")
                    return None
                if (cut := end_reason(ended)) is not None:
                    tap.end(None, cut)  # a rule cut the connection: the session ends with its name
                    return None
                status = ended.get("exit_status")
                status = 1 if status is None else int(status)
                tap.end(status, f"{PLAYED_END}: {ended.get('reason')}")
                announce(f"{PLAYED_END} ({ended.get('reason')}): exiting with status {status}")
                return status
            from inspector.transports.serve import bind, serve_async

            sock = bind(*http, allow_remote=access.allow_remote, option="--http")
            port = sock.getsockname()[1]
            url = f"http://{_shown(http[0])}:{port}/mcp"
            mcp_app = mock_http_app(
                with_facts(lambda: make_session(url), interceptor, seen),
                intercept=HttpIntercept(interceptor) if interceptor is not None else None,
            )
            app = access.guard(mcp_app, http[0], port, json_paths={"/mcp"})
            await serve_async(
                app, sock, on_ready=lambda: announce(f"mock server at {url}; {'; '.join(plan.notes)}")
            )
            tg.cancel_scope.cancel()
            return None
        return None  # the task group was cancelled from outside (it swallows its own cancellation)
    finally:
        if control is not None:
            control.close()
        recorder.stop("mock server stopped")


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def announce(text: str) -> None:
    print(f"[mcp-inspect] {text}", file=sys.stderr, flush=True)


def new_tap(engine: Engine, recorder: Recorder, plan: MockPlan, target: Any) -> tuple[int, Tap]:
    tap = open_session(
        recorder, engine, kind="mock-server", target=target, name=plan.name, parent_id=plan.source_id
    )
    return tap.session_id, tap


def make_recorder(engine: Engine) -> Recorder:
    return Recorder([StoreWriter(engine)]).start()
