"""Wiring for `mcp-inspect serve`: load the scenario, serve it on stdio or Streamable HTTP, record.

Each client connection gets its own `ScenarioScript` (its own negotiated
version and live tool list) and `MockSession`, recorded as a session of kind
`mock-server`. `ServedSessions` keeps the live connections so a control
channel (the UI) can push requests to a client.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from sqlalchemy import Engine

from inspector.capture import Recorder, Tap
from inspector.capture.sessions import open_session
from inspector.errors import InspectorError, NotFoundError
from inspector.guard import Access, ListenerGuard, allowed_hosts
from inspector.mock.auth_routes import AuthLog, authorization
from inspector.mock.auth_server import REGISTER_PATH, AuthServer, Settings
from inspector.mock.intercept import (
    HttpIntercept,
    MockIntercept,
    end_reason,
    mock_interceptor,
    start_mock_control,
    with_facts,
)
from inspector.mock.runner import announce, make_recorder
from inspector.mock.script import RecordedScript
from inspector.mock.serve import mock_http_app, serve_stdio
from inspector.mock.session import MockSession
from inspector.protocol.versions import KNOWN_PROTOCOL_VERSIONS
from inspector.replay.matching import MatchPolicy
from inspector.scenario.control import Controller, Registration, Served, ServedSessions, control_app
from inspector.scenario.load import load_scenario
from inspector.scenario.models import Scenario
from inspector.scenario.script import ScenarioScript
from inspector.store import get_session, iter_messages

__all__ = ["ServeOptions", "auth_settings", "prepare_scenario", "run_serve"]


@dataclass
class ServeOptions:
    scenario: str | None = None
    protocol_versions: Sequence[str] = ()
    name: str | None = None
    auth: bool = False  # --auth (the scenario's `auth` key turns it on too)
    auth_faults: Sequence[str] = ()  # --auth-fault, added to the scenario's
    approve: str | None = None  # --approve, over the scenario's
    faults: str | None = None  # --faults FILE (issue 17)
    seed: int | None = None
    intercept: bool = False  # breakpoints and the control channel
    pause_timeout: float | None = None
    pause_default: str | None = None


def auth_settings(scenario: Scenario, options: ServeOptions) -> Settings | None:
    """The authorization server's settings from the scenario's `auth` key and the options, or None."""
    if not (options.auth or options.auth_faults or options.approve or scenario.auth):
        return None
    base = scenario.auth
    faults = {*(base.faults if base else ()), *options.auth_faults}
    approve = options.approve or (base.approve if base else "auto")
    if approve not in ("auto", "ui"):
        raise InspectorError(f"--approve wants auto or ui, got {approve!r}")
    try:
        return Settings(
            frozenset(faults),
            "ui" if approve == "ui" else "auto",
            base.tokenLifetime if base else 3600,
        )
    except ValueError as exc:
        raise InspectorError(f"--auth-fault: {exc}") from None


def prepare_scenario(engine: Engine, options: ServeOptions) -> tuple[Scenario, dict[str, RecordedScript]]:
    """The scenario with the version restriction applied, and the recordings it refers to."""
    scenario = load_scenario(options.scenario)
    if options.protocol_versions:
        unknown = [v for v in options.protocol_versions if v not in KNOWN_PROTOCOL_VERSIONS]
        if unknown:
            raise InspectorError(
                f"--protocol-version: unknown revision(s) {', '.join(unknown)}; known: "
                + ", ".join(KNOWN_PROTOCOL_VERSIONS)
            )
        ordered = [v for v in KNOWN_PROTOCOL_VERSIONS if v in options.protocol_versions]
        scenario = scenario.model_copy(update={"protocolVersions": ordered})
    refs = {scenario.recording} if scenario.recording else set()
    for group in (scenario.tools, scenario.resources, scenario.resourceTemplates, scenario.prompts):
        refs |= {item.recording for item in group if item.recording}
    recordings: dict[str, RecordedScript] = {}
    for ref in sorted(refs):
        try:
            source = get_session(engine, ref)
        except NotFoundError as exc:
            raise InspectorError(f"scenario refers to recording {ref!r}: {exc}") from None
        assert source.id is not None
        rows = list(iter_messages(engine, source.id))
        recordings[ref] = RecordedScript.from_rows(rows, MatchPolicy("lenient"))
    return scenario, recordings


def _name(options: ServeOptions) -> str:
    if options.name:
        return options.name
    return f"serve {Path(options.scenario).name}" if options.scenario else "serve default scenario"


def session_factory(
    engine: Engine,
    recorder: Recorder,
    scenario: Scenario,
    recordings: dict[str, RecordedScript],
    name: str,
    served: ServedSessions,
) -> Callable[[Any], tuple[MockSession, Tap]]:
    def make(target: Any) -> tuple[MockSession, Tap]:
        tap = open_session(recorder, engine, kind="mock-server", target=target, name=name)
        sid = tap.session_id
        script = ScenarioScript(scenario, recordings)
        mock = MockSession(script, answer_timeout=scenario.answerTimeout)
        served.by_id[sid] = Served(sid, mock, script, tap)
        return mock, tap

    return make


async def run_serve(
    engine: Engine,
    options: ServeOptions,
    *,
    http: tuple[str, int] | None = None,
    served: ServedSessions | None = None,
    access: Access | None = None,
) -> None:
    """Serve the scenario on stdio (one client) or Streamable HTTP (until interrupted), with a control
    channel announced in the runtime directory. Every listener is behind the listener guard (Host,
    Origin, JSON POSTs to /mcp); a non-loopback `http` needs `access.allow_remote`."""
    from starlette.applications import Starlette
    from starlette.routing import Mount

    from inspector.transports.serve import bind, serve_async

    access = access or Access()
    scenario, recordings = prepare_scenario(engine, options)
    auth = auth_settings(scenario, options)
    if auth is not None and http is None:
        raise InspectorError(
            "authorization (--auth, --auth-fault, --approve or the scenario's auth key) needs "
            "--http HOST:PORT: over stdio there is no HTTP to authorize"
        )
    interceptor = mock_interceptor(
        options.faults,
        options.seed,
        http=http is not None,
        intercept=options.intercept,
        pause_timeout=options.pause_timeout,
        pause_default=options.pause_default,
    )
    intercepted: list[int] = []  # the sessions the intercept control channel reports
    served = served if served is not None else ServedSessions()
    token = secrets.token_urlsafe(24)
    control = control_app(Controller(served), token)
    versions = ", ".join(scenario.protocolVersions)
    name = _name(options)
    recorder = make_recorder(engine)
    make = session_factory(engine, recorder, scenario, recordings, name, served)
    ic_control = None  # the intercept control channel (--intercept)
    registration: Registration | None = None
    auth_log: AuthLog | None = None
    try:
        ic_control = start_mock_control(
            interceptor, kind="serve", target=name, sessions=intercepted, engine=engine
        )
        if http is None:
            import uvicorn

            sock = bind("127.0.0.1", 0)
            port = sock.getsockname()[1]
            registration = Registration(engine, f"http://127.0.0.1:{port}", token)
            guarded = ListenerGuard(control, hosts=allowed_hosts("127.0.0.1", port))
            config = uvicorn.Config(guarded, log_level="warning", access_log=False, lifespan="off")
            server = uvicorn.Server(config)
            mock, tap = make("stdio")
            announce(f"serving {name} on stdio (protocol versions {versions})")
            hook = None
            if interceptor is not None:
                hook = MockIntercept(interceptor, tap)
                tap.add_facts(hook.facts())
                intercepted.append(tap.session_id)
                announce(f"intercepting: {len(interceptor.rules())} rule(s), seed {interceptor.seed}")
            async with anyio.create_task_group() as tg:
                tg.start_soon(server.serve, [sock])
                ended = await serve_stdio(mock, tap, intercept=hook)
                server.should_exit = True
            cut = end_reason(ended)
            tap.end(None if cut else 0, cut or "client EOF")
            return
        sock = bind(*http, allow_remote=access.allow_remote, option="--http")
        port = sock.getsockname()[1]
        shown = f"[{http[0]}]" if ":" in http[0] else http[0]
        url = f"http://{shown}:{port}/mcp"
        registration = Registration(engine, f"http://127.0.0.1:{port}/control", token)
        extra: list[Any] = []
        gate = None
        if auth is not None:

            def open_log() -> Tap:
                return open_session(
                    recorder, engine, kind="mock-server", target=url, name=f"{name} (authorization)"
                )

            extra, gate, auth_log = authorization(AuthServer(auth), open_log)
        mcp_app = mock_http_app(
            with_facts(lambda: make(url), interceptor, intercepted),
            gate=gate,
            intercept=HttpIntercept(interceptor) if interceptor is not None else None,
        )
        routes = Starlette(routes=[Mount("/control", control), *extra, *mcp_app.routes])
        json_paths = {"/mcp", REGISTER_PATH} if auth is not None else {"/mcp"}
        app = access.guard(routes, http[0], port, json_paths=json_paths)
        shown_auth = f"; {auth.describe()}" if auth is not None else ""
        await serve_async(
            app,
            sock,
            on_ready=lambda: announce(f"serving {name} at {url} (protocol versions {versions}){shown_auth}"),
        )
    finally:
        if ic_control is not None:
            ic_control.close()
        if auth_log is not None:
            auth_log.end("mock server stopped")
        if registration is not None:
            registration.close()
        for entry in served.by_id.values():
            entry.mock.close()
        recorder.stop("mock server stopped")
