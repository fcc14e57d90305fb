"""`mcp-inspect proxy`: the composition root of the recording reverse proxy.

`run_proxy(ProxyOptions(...))` builds everything the command runs (the process's redaction and
outbound settings, the bound listener, the store and its recorder, the proxy with its
interceptor and control channel, the guard in front) and serves until Ctrl-C or SIGTERM (or
`opts.control.stop()`, a `ListenerControl`: the same stop, from a caller's thread); with `config`
it hands over to the gateway (`inspector/gateway_run.py`). The command line only fills the options
(`inspector/cli/record.py`); a test may call it in-process (tests/http_peers.py: `proxy_in_process`).

Bad input is refused before anything is opened, in this order: --max-record-bytes, the listener
header timeout, the redaction rules, the rules file, the TLS files, the listen address.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector import command_setup as setup
from inspector.errors import InspectorError

if TYPE_CHECKING:
    from inspector.transports.http_proxy import HttpProxy

__all__ = ["ProxyOptions", "run_proxy"]


@dataclass
class ProxyOptions:
    """Everything `mcp-inspect proxy` takes (see its --help)."""

    target: str | None = None
    config: str | None = None  # a gateway's TOML file instead of one target
    listen: str | None = None
    db: str | None = None
    name: str | None = None
    # access: who may call the listener
    allow_origin: list[str] = field(default_factory=list)
    allow_host: list[str] = field(default_factory=list)
    allow_remote: bool = False
    # redaction
    redact: list[str] = field(default_factory=list)
    redact_path: list[str] = field(default_factory=list)
    keep_secrets: bool = False
    # outbound: how the upstream is reached
    ca_bundle: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    insecure: bool = False
    max_connections: int = 64
    # sessions
    idle_end: float = 300.0
    peer_gap: float = 30.0
    rewrite_auth_metadata: bool = False
    # intercept and faults
    faults: str | None = None
    intercept: bool = False
    seed: int | None = None
    pause_timeout: float | None = None
    pause_default: str | None = None
    # what is recorded and exported
    otlp: str | None = None
    otlp_content: bool = False
    metadata_only: bool = False
    max_record_bytes: str | None = None
    # not a flag: a caller's handle on the listener (`http_listener.ListenerControl`: its address
    # once it serves, a stop that is not a signal); None: signals only
    control: Any = None


def run_proxy(opts: ProxyOptions) -> None:
    """Serve the proxy (or, with `opts.config`, the gateway) until stopped; sessions are saved on
    the way out. Raises InspectorError for bad input, before anything is opened."""
    from inspector.capture.recorder import record_cap

    cap = record_cap(opts.max_record_bytes)  # a bad value is refused before anything is opened
    if opts.config is not None:
        _run_gateway(opts, cap)
        return
    if opts.target is None:
        raise InspectorError("give --target URL (the server to record), or --config FILE for several")
    _run_single(opts, opts.target, cap)


def _run_gateway(opts: ProxyOptions, cap: int | None) -> None:
    assert opts.config is not None
    if opts.metadata_only:
        raise InspectorError(
            "--metadata-only is for one --target; with --config give the route a per-server"
            ' rule (record = "metadata") in the inspector\'s config file (docs: Always on)'
        )
    from inspector.gateway_run import GatewayFlags, refused_flags, run_gateway

    refused_flags(
        target=opts.target,
        name=opts.name,
        intercept=opts.intercept,
        rewrite_auth_metadata=opts.rewrite_auth_metadata,
    )
    access = setup.access(opts.allow_remote, opts.allow_host, opts.allow_origin)
    setup.redaction(opts.redact, opts.redact_path, opts.keep_secrets)
    setup.outbound(
        None,
        opts.ca_bundle,
        opts.client_cert,
        opts.client_key,
        opts.insecure,
        max_connections=opts.max_connections,
        needs_url=None,
    )
    flags = GatewayFlags(
        opts.listen,
        opts.db,
        access,
        opts.idle_end,
        opts.faults,
        opts.seed,
        opts.pause_timeout,
        opts.pause_default,
        opts.otlp,
        opts.otlp_content,
        cap,
        opts.control,
    )
    run_gateway(opts.config, flags)


def _run_single(opts: ProxyOptions, target: str, cap: int | None) -> None:
    from inspector.capture import Recorder
    from inspector.capture.redact import active as redaction
    from inspector.capture.sessions import create_session
    from inspector.gateway_run import DEFAULT_LISTEN
    from inspector.otel.endpoint import close_otel, otel_for
    from inspector.recording_control import pause_signals, record_mode, withdraw
    from inspector.store import StoreWriter
    from inspector.store.autoprune import start as start_retention
    from inspector.transports.http_listener import header_timeout_from_env, proxy_listener
    from inspector.transports.serve import bind, parse_listen

    access = setup.access(opts.allow_remote, opts.allow_host, opts.allow_origin)
    header_timeout = header_timeout_from_env()  # a bad value is refused before anything is opened
    setup.redaction(opts.redact, opts.redact_path, opts.keep_secrets)
    interceptor = None
    if opts.faults or opts.intercept:  # a bad rules file is refused before anything is opened
        from inspector.intercept.proxy import proxy_interceptor

        interceptor = proxy_interceptor(
            opts.faults,
            intercept=opts.intercept,
            seed=opts.seed,
            pause_timeout=opts.pause_timeout,
            pause_default=opts.pause_default,
        )
    setup.outbound(
        target,
        opts.ca_bundle,
        opts.client_cert,
        opts.client_key,
        opts.insecure,
        max_connections=opts.max_connections,
        say_proxy=False,
    )
    host, port = parse_listen(opts.listen or DEFAULT_LISTEN)
    sock = bind(host, port, allow_remote=access.allow_remote)  # refused before anything else is opened
    engine = setup.open_store(opts.db)
    subscribers = [
        StoreWriter(engine),
        *otel_for(opts.otlp, transport="tcp", content=opts.otlp_content, server_url=target),
    ]
    record = record_mode(metadata_only=opts.metadata_only, name=opts.name, url=target)
    rules = redaction().for_server(opts.name, target)  # every session's (capture/sessions.py)
    # Exchanges take milliseconds: commit every 50 ms rather than every 5 (fewer transactions per request).
    recorder = Recorder(
        subscribers,
        flush_interval=0.05,
        drain_interval=0.01,
        record=record,
        max_record_bytes=cap,
        redaction=rules,
    ).start()
    start_retention(engine, every=600)  # the policy, hourly at most across processes (store/autoprune.py)
    pausable = pause_signals(recorder, engine, "proxy")
    try:
        app, which = _build_proxy(
            opts,
            target,
            recorder,
            lambda _hint: create_session(
                engine, kind="http-proxy", target=target, name=opts.name, redaction=rules
            ),
            interceptor,
        )
    except ValueError as exc:
        withdraw(pausable)
        recorder.stop("bad target")
        sock.close()
        raise InspectorError(str(exc)) from None
    bound_port = sock.getsockname()[1]
    guarded = access.guard(app, host, bound_port, json_paths=app.mcp_paths)

    control = None
    if opts.intercept and interceptor is not None:
        from inspector.intercept.proxy import start_proxy_control

        try:
            control = start_proxy_control(app, recorder, target, engine)
        except BaseException:
            recorder.stop("the intercept control channel did not start")
            sock.close()
            raise

    def ready() -> None:
        from inspector.store.engine import store_name

        print(f"[mcp-inspect] proxy for {target}", file=sys.stderr)
        print(f"[mcp-inspect] {which}", file=sys.stderr)
        if interceptor is not None:
            from inspector.intercept.proxy import describe

            print(describe(interceptor, opts.intercept), file=sys.stderr)
        if control is not None:
            print(f"[mcp-inspect] intercept control channel at {control.url}", file=sys.stderr)
        print(f"[mcp-inspect] point your client at {client_url(target, host, bound_port)}", file=sys.stderr)
        print(
            f"[mcp-inspect] recording into {store_name(engine)}; Ctrl-C to stop", file=sys.stderr, flush=True
        )

    # Start-up's ~110,000 objects live as long as the process: out of the collector's sight, full
    # collections (set off by rows waiting for the writer) no longer walk them with the GIL held.
    gc.freeze()
    try:
        with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises the stop signal: a normal stop
            proxy_listener(header_timeout, opts.control)(
                guarded, sock, on_ready=ready, on_connection_lost=app.connection_closed
            )
    finally:
        if control is not None:
            control.close()
        withdraw(pausable)
        recorder.stop("proxy stopped")
        close_otel(subscribers)
        lost = ", ".join(f"session {sid}: {n}" for sid, n in recorder.losses().items())
        setup.err().print(
            f"\\[mcp-inspect] proxy stopped; NOT recorded (database failed): {lost}"
            if lost
            else "\\[mcp-inspect] proxy stopped; sessions saved"
        )


def _build_proxy(
    opts: ProxyOptions, target: str, recorder: Any, new_session: Any, interceptor: Any
) -> tuple[HttpProxy, str]:
    """The proxy application (intercepting when rules are given) and the line naming its upstream client."""
    from inspector.transports.http_proxy import HttpProxy
    from inspector.transports.outbound import active
    from inspector.transports.upstream_proxied import choose_upstream

    client, which = choose_upstream(target, active())
    more: dict[str, Any] = {}
    if interceptor is not None:
        from inspector.intercept.proxy import proxy_addons

        more["addons"] = proxy_addons(interceptor, opts.intercept)
    app = HttpProxy(
        target,
        recorder,
        new_session,
        client=client,  # type: ignore[arg-type]
        idle_after=opts.idle_end,
        peer_gap=opts.peer_gap,
        rewrite_auth_metadata=opts.rewrite_auth_metadata,
        **more,
    )
    return app, which


def client_url(target: str, host: str, port: int) -> str:
    """The URL a client is pointed at: the target's path and query on the proxy's address."""
    from urllib.parse import urlsplit

    parts = urlsplit(target)
    shown_host = f"[{host}]" if ":" in host else host
    return f"http://{shown_host}:{port}{parts.path or '/'}" + (f"?{parts.query}" if parts.query else "")
