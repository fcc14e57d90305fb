"""`mcp-inspect proxy --config FILE`: several upstreams behind one recording listener (a gateway).

`proxy_run.run_proxy` hands over here when --config is given. The config file is read
and checked first (`gateway_config`), then the listener is bound, then one recording proxy per
route is built exactly as the single proxy builds its own (`transports/gateway.py` routes by
prefix in front of them, the one `guard.ListenerGuard` in front of that).

What the single proxy has and a gateway refuses: --target and --name (each route has its own),
--rewrite-auth-metadata (per route in the file), --intercept (one control channel per process
serves one proxy; `--faults` works, per route or for all).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from dataclasses import dataclass
from typing import Any

from inspector.errors import InspectorError

__all__ = ["GatewayFlags", "run_gateway"]

DEFAULT_LISTEN = "127.0.0.1:6280"


@dataclass
class GatewayFlags:
    """The proxy command's flags that mean something for a gateway."""

    listen: str | None
    db: str | None
    access: Any  # guard.Access from the command line (the file's lists are added)
    idle_end: float
    faults: str | None
    seed: int | None
    pause_timeout: float | None
    pause_default: str | None
    otlp: str | None = None  # spans to an OpenTelemetry collector, as the single proxy's --otlp
    otlp_content: bool = False
    max_record_bytes: int | None = None  # --max-record-bytes (None: the setting)
    control: Any = None  # not a flag: `http_listener.ListenerControl` (address, a stop that is not a signal)


def refused_flags(
    *, target: str | None, name: str | None, intercept: bool, rewrite_auth_metadata: bool
) -> None:
    """The single-proxy flags that have no meaning with --config: one clear line for the first."""
    for given, flag, why in (
        (target is not None, "--target", "each [[route]] has its own target"),
        (name is not None, "--name", "each [[route]] has its own name"),
        (rewrite_auth_metadata, "--rewrite-auth-metadata", "set rewrite_auth_metadata per route"),
        (intercept, "--intercept", "breakpoints need one proxy per process; --faults works"),
    ):
        if given:
            raise InspectorError(f"{flag} does not go with --config: {why} (docs: One gateway)")


def fit(line: str, width: int = 80) -> str:
    """`line` cut to `width` columns (an ellipsis says so)."""
    return line if len(line) <= width else line[: width - 1] + "…"


def route_line(route: Any, hide: Any) -> str:
    """A route's start-up line: its name, the path a client uses and the target, their secrets
    (a token in the target's query) shown as placeholders by `hide` (the recording's rules)."""
    shown = hide.target(route.target)
    return fit(f"  {route.name}  {route.client_path(shown)} -> {shown}")


def run_gateway(config_path: str, flags: GatewayFlags) -> None:
    """Serve every route of the config file until Ctrl-C (or `flags.control.stop()`); sessions are
    saved on the way out."""
    from inspector.capture import Recorder
    from inspector.capture.redact import active as redaction
    from inspector.capture.sessions import create_session
    from inspector.config import default_db
    from inspector.gateway_config import load_gateway_config
    from inspector.guard import Access, parse_origins
    from inspector.intercept.proxy import proxy_addons, proxy_interceptor
    from inspector.otel.endpoint import close_otel, otel_for
    from inspector.store import StoreWriter, open_engine
    from inspector.transports.gateway import AddedHeaders, Gateway, Mounted
    from inspector.transports.http_listener import header_timeout_from_env, proxy_listener
    from inspector.transports.http_proxy import HttpProxy
    from inspector.transports.outbound import active
    from inspector.transports.serve import bind, parse_listen
    from inspector.transports.upstream_proxied import choose_upstream

    config = load_gateway_config(config_path)
    header_timeout = header_timeout_from_env()  # a bad value is refused before anything is opened
    cli_access: Access = flags.access
    access = Access(
        cli_access.allow_remote or config.allow_remote,
        cli_access.hosts + tuple(config.allow_hosts),
        cli_access.origins + parse_origins(config.allow_origins),
    )
    interceptors = {}
    for route in config.route:  # a bad rules file is refused before anything is opened
        rules = route.faults or flags.faults
        if rules is not None:
            try:
                interceptors[route.name] = proxy_interceptor(
                    rules,
                    intercept=False,
                    seed=flags.seed,
                    pause_timeout=flags.pause_timeout,
                    pause_default=flags.pause_default,
                )
            except InspectorError as exc:
                raise InspectorError(f"{config_path}: route {route.name!r}: faults: {exc}") from None
    keyed = [route.name for route in config.route if route.headers]
    token: tuple[str, Any, bool] | None = None
    if keyed and not config.allow_shared_credentials:
        from inspector.gateway_token import client_token

        token = client_token(config_path)  # an unsafe token file is refused before anything is opened
    host, port = parse_listen(flags.listen or config.listen or DEFAULT_LISTEN)
    option = "--listen" if flags.listen else f"{config_path}: listen"
    # Refused before anything else is opened.
    sock = bind(host, port, allow_remote=access.allow_remote, option=option)
    engine = open_engine(flags.db or default_db())
    # One recorder for every route: no server.address on client spans (it differs per route).
    subscribers = [StoreWriter(engine), *otel_for(flags.otlp, transport="tcp", content=flags.otlp_content)]
    recorder = Recorder(
        subscribers, flush_interval=0.05, drain_interval=0.01, max_record_bytes=flags.max_record_bytes
    ).start()
    from inspector.recording_control import pause_signals, record_mode, withdraw
    from inspector.store.autoprune import start as start_retention

    start_retention(engine, every=600)  # the policy, hourly at most across processes (store/autoprune.py)
    pausable = pause_signals(recorder, engine, "gateway")  # SIGUSR1/SIGUSR2: every route's sessions
    mounted: list[Mounted] = []
    clients: list[str] = []
    for route in config.route:
        client, which = choose_upstream(route.target, active())
        if not which.startswith("upstream client: built-in"):
            clients.append(f"{route.name}: {which}")
        added = route.upstream_headers(os.environ)
        upstream: Any = AddedHeaders(client, added) if added else client
        more: dict[str, Any] = {}
        if (interceptor := interceptors.get(route.name)) is not None:
            more["addons"] = proxy_addons(interceptor, False)
        facts: dict[str, Any] = {"route": route.name, "prefix": route.prefix}
        if added:
            facts["added_headers"] = sorted(name.decode() for name, _ in added)
        proxy = HttpProxy(
            route.target,
            recorder,
            _creator(create_session, engine, route.target, route.name),
            client=upstream,
            idle_after=flags.idle_end,
            rewrite_auth_metadata=route.rewrite_auth_metadata,
            mount=route.prefix,
            session_facts={"gateway": facts},
            **more,
        )
        proxy.record = record_mode(metadata_only=False, name=route.name, url=route.target)
        proxy.redaction = redaction().for_server(route.name, route.target)  # capture/sessions.py
        asked = token[0].encode() if token is not None and route.headers else None
        mounted.append(Mounted(route.name, route.prefix, proxy, asked))
    gateway = Gateway(mounted)
    bound_port = sock.getsockname()[1]
    guarded = access.guard(gateway, host, bound_port, json_paths=gateway.json_paths)
    shown_host = f"[{host}]" if ":" in host else host
    base = f"http://{shown_host}:{bound_port}"
    hide = redaction()

    def ready() -> None:
        lines = [f"[mcp-inspect] gateway on {base}: {len(mounted)} route{'s' * (len(mounted) != 1)}"]
        for route in config.route:
            lines.append(route_line(route, hide))
            if route.name in interceptors:
                rules = interceptors[route.name].rules()
                lines.append(
                    fit(
                        f"    faults: {len(rules)} rule{'s' * (len(rules) != 1)}, seed {interceptors[route.name].seed}"
                    )
                )
        lines += [fit(f"[mcp-inspect] {line}") for line in clients]
        lines += _credential_lines(keyed, token)
        lines.append(fit(f"[mcp-inspect] recording into {engine.url.database}; Ctrl-C to stop"))
        print("\n".join(lines), file=sys.stderr, flush=True)

    gc.freeze()  # as the single proxy: start-up's objects out of the collector's sight
    try:
        with contextlib.suppress(KeyboardInterrupt):
            proxy_listener(header_timeout, flags.control)(
                guarded, sock, on_ready=ready, on_connection_lost=gateway.connection_closed
            )
    finally:
        withdraw(pausable)
        recorder.stop("proxy stopped")
        close_otel(subscribers)
        print("[mcp-inspect] gateway stopped; sessions saved", file=sys.stderr)


def _credential_lines(keyed: list[str], token: tuple[str, Any, bool] | None) -> list[str]:
    """What the start-up says about routes that add headers: the client token they ask for (printed
    when it is new, else where it is kept), or that every local user can use them."""
    from inspector.gateway_token import TOKEN_HEADER

    if not keyed:
        return []
    names = ", ".join(keyed)
    if token is None:
        return [
            fit(f"[mcp-inspect] allow_shared_credentials: the headers of {names} are added"),
            "  for every local user (and with allow_remote, the network)",
        ]
    value, path, made = token
    lines = [fit(f"[mcp-inspect] {names}: requests need the gateway's client token")]
    # The token once, when it is made; the file's path is never cut (it says where the token is).
    lines.append(f"  {TOKEN_HEADER}: {value if made else '(the value kept in the file below)'}")
    lines.append(f"  {'new, kept' if made else 'kept'} in {path}")
    return lines


def _creator(create_session: Any, engine: Any, target: str, name: str) -> Any:
    """The route's session-row factory (a closure per route, not over the loop variable)."""
    return lambda _hint: create_session(engine, kind="http-proxy", target=target, name=name)
