"""The `mcp-inspect` command line: one Typer app, each command a thin call into the packages."""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer
from rich.console import Console

from inspector.cli_config import app as config_app
from inspector.cli_db import app as db_app
from inspector.cli_intercept import app as intercept_app
from inspector.errors import InspectorError
from inspector.help_text import unwrap_commands
from inspector.terminal_text import markup_safe, visible, visible_json

if TYPE_CHECKING:
    from inspector.auth.connect import AuthRequest

__all__ = ["app", "main"]

app = typer.Typer(
    name="mcp-inspect",
    help="Record, browse and replay Model Context Protocol traffic. Settings (database, "
    "retention, redaction names, per-server rules) come from a config file: `mcp-inspect config` "
    "shows them and where each came from, `mcp-inspect doctor` checks the setup.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(intercept_app)  # `mcp-inspect intercept ...` (inspector/cli_intercept.py)
app.add_typer(db_app)  # `mcp-inspect db copy ...` (inspector/cli_db.py)
app.add_typer(config_app)  # `mcp-inspect config ...` (inspector/cli_config.py)

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Recording database: a file path, or a URL (postgresql://USER@HOST/DB for a store shared "
        "by a team; its password from ~/.pgpass or $PGPASSWORD, never printed). "
        "Default: $MCP_INSPECTOR_DB, else the config file's `db` (`mcp-inspect config`), "
        "else ./recordings/inspector.db. "
        "Readable by you only: created 0600 (new folders and ./recordings 0700); "
        "an existing one of yours that others can read is made 0600 (said on stderr).",
        show_default=False,
    ),
]
RedactOption = Annotated[
    list[str] | None,
    typer.Option(
        "--redact",
        metavar="NAME",
        help="Also redact this header, query parameter or JSON key (repeatable; "
        "also $MCP_INSPECTOR_REDACT, comma-separated).",
        show_default=False,
    ),
]
RedactPathOption = Annotated[
    list[str] | None,
    typer.Option(
        "--redact-path",
        metavar="PATH",
        help="Also redact the value at this JSON path of any message, e.g. "
        "params.arguments.api_key; '*' is any one key (repeatable).",
        show_default=False,
    ),
]
KeepSecretsOption = Annotated[
    bool,
    typer.Option(
        "--keep-secrets",
        help="Store credentials as they were sent (headers, URL query, OAuth bodies, "
        "--redact names). Default: each is stored as a \\[secret:NAME] placeholder.",
    ),
]


# Intercept and fault injection (the same flags on wrap and proxy; see README "Intercept and inject faults").
FaultsOption = Annotated[
    str | None,
    typer.Option(
        "--faults",
        metavar="FILE",
        help="Fault rules (YAML or JSON): delay, drop, duplicate, reorder, corrupt, truncate, "
        "replace, disconnect matching messages. See README 'Intercept and inject faults'.",
        show_default=False,
    ),
]
InterceptOption = Annotated[
    bool,
    typer.Option(
        "--intercept",
        help="Breakpoints on (rules with action: pause hold messages) and the control channel "
        "open for `mcp-inspect intercept` and the UI's Intercept panel.",
    ),
]
SeedOption = Annotated[
    int | None,
    typer.Option(
        "--seed",
        metavar="N",
        help="Seed of the rules' random choices (probability, jitter, corrupt): repeat a run. "
        "Default: the rules file's seed, else random (recorded in the session facts).",
        show_default=False,
    ),
]
PauseTimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--pause-timeout",
        metavar="S",
        help="Seconds a paused message waits for a decision (default: the rules file's, else 30).",
        show_default=False,
    ),
]
PauseDefaultOption = Annotated[
    str | None,
    typer.Option(
        "--pause-default",
        metavar="forward|drop",
        help="What happens to a paused message nobody decided on in time (default forward).",
        show_default=False,
    ),
]
OtlpOption = Annotated[
    str | None,
    typer.Option(
        "--otlp",
        metavar="URL",
        help="Export each request as an OpenTelemetry span, with the duration histograms, to this "
        "OTLP/HTTP collector (base URL, e.g. http://localhost:4318). Without it the standard "
        "OTEL_EXPORTER_OTLP_* variables are honoured (README, Export to OpenTelemetry).",
        show_default=False,
    ),
]
MaxRecordBytesOption = Annotated[
    str | None,
    typer.Option(
        "--max-record-bytes",
        help="Record at most this much of one message (e.g. 32MiB, the default: storage.max_record_bytes);"
        " a longer one is forwarded whole and recorded as its first bytes, its size and SHA-256.",
        show_default=False,
    ),
]
MetadataOnlyOption = Annotated[
    bool,
    typer.Option(
        "--metadata-only",
        help="Record methods, ids, sizes, timing and header names, but no bodies (sensitive servers).",
    ),
]
OtlpContentOption = Annotated[
    bool,
    typer.Option(
        "--otlp-content",
        help="Also export tool arguments and results as span attributes (opt-in; redacted as stored).",
    ),
]


def _redaction(names: list[str] | None, paths: list[str] | None, keep: bool) -> None:
    """Set this process's redaction rules (every recorder and session of the command uses them)."""
    from inspector.capture.redact import configure

    try:
        configure(names or (), paths or (), keep=keep)
    except ValueError as exc:
        raise InspectorError(str(exc)) from None


SecretOption = Annotated[
    list[str] | None,
    typer.Option(
        "--secret",
        metavar="NAME=VALUE",
        help="A secret the recording holds as a \\[secret:NAME] placeholder, put back when "
        "sending (repeatable; else $MCP_INSPECTOR_SECRET_NAME).",
        show_default=False,
    ),
]


AllowRemoteOption = Annotated[
    bool,
    typer.Option(
        "--allow-remote",
        help="Allow listening on a non-loopback interface (other machines can then connect).",
    ),
]
AllowHostOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-host",
        metavar="NAME",
        help="Also answer to this Host name, e.g. behind another name or a reverse proxy "
        "(NAME or NAME:PORT; repeatable). Loopback names are always accepted.",
        show_default=False,
    ),
]
AllowOriginOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-origin",
        metavar="ORIGIN",
        help="Let a browser page on this origin call the listener, e.g. a browser-based MCP client "
        "at http://localhost:5173 (repeatable; 'null' for sandboxed pages). Other origins get 403.",
        show_default=False,
    ),
]


CaBundleOption = Annotated[
    str | None,
    typer.Option(
        "--ca-bundle",
        metavar="FILE",
        help="Trust the HTTPS server's certificate only if these PEM CA certificates "
        "sign it, e.g. a private CA (instead of the system's trust store).",
        show_default=False,
    ),
]
ClientCertOption = Annotated[
    str | None,
    typer.Option(
        "--client-cert",
        metavar="FILE",
        help="Client certificate (PEM) for HTTPS servers that ask for one; may also hold the private key.",
        show_default=False,
    ),
]
ClientKeyOption = Annotated[
    str | None,
    typer.Option(
        "--client-key",
        metavar="FILE",
        help="The private key (PEM, unencrypted) of --client-cert, when not in that file.",
        show_default=False,
    ),
]
InsecureOption = Annotated[
    bool,
    typer.Option(
        "--insecure",
        help="Do not check the HTTPS server's certificate (anyone on the path can then "
        "read and change the traffic). For test servers only.",
    ),
]
AuthOption = Annotated[
    bool,
    typer.Option(
        "--auth",
        help="Authorize with OAuth when the server answers 401 (--url only). Tokens are kept in "
        "a user-only file ($MCP_INSPECTOR_AUTH_FILE, else ~/.config/mcp-inspector/auth.json), "
        "never in the recording.",
    ),
]
ClientIdOption = Annotated[
    str | None,
    typer.Option("--client-id", help="--auth: a client registered with the AS.", show_default=False),
]
ClientSecretOption = Annotated[
    str | None, typer.Option("--client-secret", help="--auth: that client's secret.", show_default=False)
]
ClientMetadataUrlOption = Annotated[
    str | None,
    typer.Option(
        "--client-metadata-url",
        help="--auth: an https URL of this client's metadata document (CIMD).",
        show_default=False,
    ),
]
ScopeOption = Annotated[
    str | None,
    typer.Option("--scope", help="--auth: the scopes to ask for (space-separated).", show_default=False),
]
AuthNonInteractiveOption = Annotated[
    bool,
    typer.Option(
        "--auth-non-interactive",
        help="--auth: follow the AS's redirects instead of opening a browser (an AS that approves by itself).",
    ),
]
AuthWaitOption = Annotated[
    float, typer.Option("--auth-wait", help="--auth: seconds to wait for the browser to come back.")
]
MaxConnectionsOption = Annotated[
    int,
    typer.Option(
        "--max-connections",
        metavar="N",
        help="At most N connections to the upstream server at once; more requests wait for one.",
    ),
]


def _outbound(
    url: str | None,
    ca_bundle: str | None,
    client_cert: str | None,
    client_key: str | None,
    insecure: bool,
    *,
    max_connections: int | None = None,
    needs_url: str | None = "--url",
    say_proxy: bool = True,
) -> None:
    """Set this process's outbound HTTP settings (every client of the command uses them) and say on
    stderr what a user must know: a forward proxy in use, certificate checks turned off.
    `needs_url`: the option a TLS setting is meaningless without (a stdio target has no TLS)."""
    from inspector.transports.outbound import DEFAULT_MAX_CONNECTIONS, Outbound, configure, proxy_for

    settings = Outbound(
        ca_bundle, client_cert, client_key, insecure, max_connections or DEFAULT_MAX_CONNECTIONS
    )
    if url is None and needs_url and settings.tls_customised:
        raise InspectorError(
            f"--ca-bundle, --client-cert and --insecure are for HTTPS servers: give {needs_url} URL"
        )
    configure(settings)
    if insecure:
        _err().print(
            "[bold red]WARNING: --insecure: the server's certificate is not checked; anyone on "
            "the path can read and change this traffic.[/bold red]"
        )
    if url is not None and say_proxy and (proxy := proxy_for(url)):
        from httpx import URL

        shown = URL(proxy).copy_with(username=None, password=None)
        _err().print(f"\\[mcp-inspect] through the forward proxy {shown} (from the environment)")


def _access(allow_remote: bool, hosts: list[str] | None, origins: list[str] | None):
    from inspector.guard import Access, parse_origins

    return Access(allow_remote, tuple(hosts or ()), parse_origins(origins or ()))


def _err() -> Console:
    return Console(stderr=True, soft_wrap=True)


def _engine(db: str | None, *, create: bool = True):
    from inspector.config import default_db
    from inspector.store import open_engine

    return open_engine(db or default_db(), create=create)


@app.command(
    context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True},
)
def wrap(
    command: Annotated[
        list[str],
        typer.Argument(help="The server command and its arguments (after --)."),
    ],
    db: DbOption = None,
    name: Annotated[str | None, typer.Option(help="A name for the recorded session.")] = None,
    durable: Annotated[
        bool, typer.Option(help="Commit each message to the database before forwarding it (slower).")
    ] = False,
    grace: Annotated[
        float,
        typer.Option(help="Seconds to wait for the server after the client closes stdin, before SIGTERM."),
    ] = 2.0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing of our own on stderr.")] = False,
    redact: RedactOption = None,
    redact_path: RedactPathOption = None,
    keep_secrets: KeepSecretsOption = False,
    faults: FaultsOption = None,
    intercept: InterceptOption = False,
    seed: SeedOption = None,
    pause_timeout: PauseTimeoutOption = None,
    pause_default: PauseDefaultOption = None,
    otlp: OtlpOption = None,
    otlp_content: OtlpContentOption = False,
    metadata_only: MetadataOnlyOption = False,
    max_record_bytes: MaxRecordBytesOption = None,
) -> None:
    """Wrap a stdio MCP server: forward every byte unchanged and record every message.

    Put this in your MCP client's config in place of the server command, e.g.
    `mcp-inspect wrap --db ~/mcp.db -- python server.py`. The exit status is the server's.
    With --faults or --intercept, rules may delay, drop, alter or answer messages; what each
    peer saw is recorded.
    """
    from inspector.wrap import WrapOptions, run_wrap

    options = WrapOptions(
        command=command,
        db=db,
        name=name,
        durable=durable,
        grace=grace,
        quiet=quiet,
        redact=list(redact or ()),
        redact_path=list(redact_path or ()),
        keep_secrets=keep_secrets,
        faults=faults,
        intercept=intercept,
        seed=seed,
        pause_timeout=pause_timeout,
        pause_default=pause_default,
        otlp=otlp,
        otlp_content=otlp_content,
        metadata_only=metadata_only,
        max_record_bytes=max_record_bytes,
    )
    if command and command[0] == "--":
        options.command = command[1:]
    raise typer.Exit(run_wrap(options))


@app.command()
def proxy(
    target: Annotated[
        str | None,
        typer.Option(
            help="The server's MCP URL as you would give it to a client, e.g. http://127.0.0.1:3001/mcp.",
            show_default=False,
        ),
    ] = None,
    config: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="Several servers behind one listener: a TOML file of [[route]] tables (name, prefix, "
            "target, headers, rewrite_auth_metadata, faults) and listen/allow_remote. README "
            "'One gateway for several servers'.",
            show_default=False,
        ),
    ] = None,
    listen: Annotated[
        str | None,
        typer.Option(
            help="Where the proxy listens, HOST:PORT (port 0 picks a free one). "
            "Default 127.0.0.1:6280, or the --config file's listen.",
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
    name: Annotated[str | None, typer.Option(help="A name for the recorded sessions.")] = None,
    allow_origin: AllowOriginOption = None,
    allow_host: AllowHostOption = None,
    allow_remote: AllowRemoteOption = False,
    redact: RedactOption = None,
    redact_path: RedactPathOption = None,
    keep_secrets: KeepSecretsOption = False,
    ca_bundle: CaBundleOption = None,
    client_cert: ClientCertOption = None,
    client_key: ClientKeyOption = None,
    insecure: InsecureOption = False,
    max_connections: MaxConnectionsOption = 64,
    idle_end: Annotated[
        float,
        typer.Option(
            min=0.1,
            metavar="SECONDS",
            help="End a recorded session after this long with no request and no open stream.",
        ),
    ] = 300.0,
    peer_gap: Annotated[
        float,
        typer.Option(
            min=0.1,
            metavar="SECONDS",
            help="A client of a stateless server (no Mcp-Session-Id) is one session across its "
            "connections: it ends when none of them has been open for this long.",
        ),
    ] = 30.0,
    rewrite_auth_metadata: Annotated[
        bool,
        typer.Option(
            "--rewrite-auth-metadata",
            help="For OAuth-protected targets: point the upstream's URLs in WWW-Authenticate "
            "resource_metadata and in OAuth metadata documents at the proxy, so clients that "
            "check the resource accept it (tokens are then issued for the proxy's URL: README).",
        ),
    ] = False,
    faults: FaultsOption = None,
    intercept: InterceptOption = False,
    seed: SeedOption = None,
    pause_timeout: PauseTimeoutOption = None,
    pause_default: PauseDefaultOption = None,
    otlp: OtlpOption = None,
    otlp_content: OtlpContentOption = False,
    metadata_only: MetadataOnlyOption = False,
    max_record_bytes: MaxRecordBytesOption = None,
) -> None:
    """Record an HTTP MCP server (Streamable HTTP or legacy HTTP+SSE) as a reverse proxy.

    With --config FILE (TOML), one listener serves several servers, each under its own path
    prefix and recorded under its route's name (README 'One gateway for several servers').

    Point your client at the printed URL instead of the server's. Every path is forwarded to
    the target's origin; each MCP session (or client run, for stateless servers: grouped by
    the client's address, User-Agent and credentials across its connections, a new
    initialize starting the next) is recorded as its own session. A session ends when the
    client ends it (DELETE), closes a legacy event stream, has had no connection open for
    --peer-gap (stateless), or after --idle-end.

    Listens on loopback only unless --allow-remote. A foreign Host or
    browser Origin gets 403, an MCP POST that is not JSON 415
    (README, Security).

    HTTPS_PROXY, HTTP_PROXY and NO_PROXY are honoured: through a forward
    proxy a slower client (httpx) is used; stderr says which.

    With --faults or --intercept, rules may delay, drop, alter or answer messages, answer
    with HTTP errors, drip or cut event streams; what each peer saw is recorded.
    """
    from inspector.capture.recorder import record_cap

    cap = record_cap(max_record_bytes)  # a bad value is refused before anything is opened
    if config is not None:  # a gateway: the body is inspector/cli_gateway.py
        if metadata_only:
            raise InspectorError(
                "--metadata-only is for one --target; with --config give the route a per-server"
                ' rule (record = "metadata") in the inspector\'s config file (README, Always on)'
            )
        from inspector.cli_gateway import GatewayFlags, refused_flags, run_gateway

        refused_flags(
            target=target, name=name, intercept=intercept, rewrite_auth_metadata=rewrite_auth_metadata
        )
        access = _access(allow_remote, allow_host, allow_origin)
        _redaction(redact, redact_path, keep_secrets)
        _outbound(
            None,
            ca_bundle,
            client_cert,
            client_key,
            insecure,
            max_connections=max_connections,
            needs_url=None,
        )
        flags = GatewayFlags(
            listen, db, access, idle_end, faults, seed, pause_timeout, pause_default, otlp, otlp_content, cap
        )
        run_gateway(config, flags)
        return
    if target is None:
        raise InspectorError("give --target URL (the server to record), or --config FILE for several")
    listen = listen or "127.0.0.1:6280"
    from urllib.parse import urlsplit

    from inspector.capture import Recorder
    from inspector.capture.redact import active as redaction
    from inspector.capture.sessions import create_session
    from inspector.otel.endpoint import close_otel, otel_for
    from inspector.store import StoreWriter
    from inspector.store.engine import store_name
    from inspector.transports.http_listener import PROXY_LISTENER_ENV, header_timeout_from_env, serve_proxy
    from inspector.transports.http_proxy import HttpProxy
    from inspector.transports.outbound import active
    from inspector.transports.serve import bind, parse_listen, serve
    from inspector.transports.upstream_proxied import choose_upstream

    access = _access(allow_remote, allow_host, allow_origin)
    header_timeout = header_timeout_from_env()  # a bad value is refused before anything is opened
    _redaction(redact, redact_path, keep_secrets)
    interceptor = None
    if faults or intercept:  # a bad rules file is refused before anything is opened
        from inspector.intercept.proxy import proxy_interceptor

        interceptor = proxy_interceptor(
            faults, intercept=intercept, seed=seed, pause_timeout=pause_timeout, pause_default=pause_default
        )
    _outbound(
        target, ca_bundle, client_cert, client_key, insecure, max_connections=max_connections, say_proxy=False
    )
    host, port = parse_listen(listen)
    sock = bind(host, port, allow_remote=access.allow_remote)  # refused before anything else is opened
    engine = _engine(db)
    subscribers = [
        StoreWriter(engine),
        *otel_for(otlp, transport="tcp", content=otlp_content, server_url=target),
    ]
    # Exchanges take milliseconds: commit every 50 ms rather than every 5 (fewer transactions per request).
    from inspector.recording_control import pause_signals, record_mode, withdraw
    from inspector.store.autoprune import start as start_retention

    record = record_mode(metadata_only=metadata_only, name=name, url=target)
    rules = redaction().for_server(name, target)  # every session's (capture/sessions.py)
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
        client, which = choose_upstream(target, active())
        proxy_class: type[HttpProxy] = HttpProxy
        more: dict[str, Any] = {}
        if interceptor is not None:
            from inspector.intercept.proxy import proxy_class as intercepting

            proxy_class, more = intercepting(interceptor, intercept), {"interceptor": interceptor}
        app_ = proxy_class(
            target,
            recorder,
            lambda _hint: create_session(
                engine, kind="http-proxy", target=target, name=name, redaction=rules
            ),
            client=client,  # type: ignore[arg-type]
            idle_after=idle_end,
            peer_gap=peer_gap,
            rewrite_auth_metadata=rewrite_auth_metadata,
            **more,
        )
    except ValueError as exc:
        withdraw(pausable)
        recorder.stop("bad target")
        sock.close()
        raise InspectorError(str(exc)) from None
    bound_port = sock.getsockname()[1]
    guarded = access.guard(app_, host, bound_port, json_paths=app_.mcp_paths)
    parts = urlsplit(target)
    shown_host = f"[{host}]" if ":" in host else host
    client_url = f"http://{shown_host}:{bound_port}{parts.path or '/'}" + (
        f"?{parts.query}" if parts.query else ""
    )

    control = None
    if intercept and interceptor is not None:
        from inspector.intercept.proxy import start_proxy_control

        try:
            control = start_proxy_control(app_, recorder, target, engine)  # type: ignore[arg-type]
        except BaseException:
            recorder.stop("the intercept control channel did not start")
            sock.close()
            raise

    def ready() -> None:
        print(f"[mcp-inspect] proxy for {target}", file=sys.stderr)
        print(f"[mcp-inspect] {which}", file=sys.stderr)
        if interceptor is not None:
            from inspector.intercept.proxy import describe

            print(describe(interceptor, intercept), file=sys.stderr)
        if control is not None:
            print(f"[mcp-inspect] intercept control channel at {control.url}", file=sys.stderr)
        print(f"[mcp-inspect] point your client at {client_url}", file=sys.stderr)
        print(
            f"[mcp-inspect] recording into {store_name(engine)}; Ctrl-C to stop", file=sys.stderr, flush=True
        )

    # The proxy's own listener is faster than uvicorn (bench/http_bench.py); uvicorn stays behind the
    # seam as the library fallback, should the own listener misbehave with some client.
    serve_with = (
        serve
        if os.environ.get(PROXY_LISTENER_ENV, "").lower() == "uvicorn"
        else functools.partial(serve_proxy, header_timeout=header_timeout)
    )
    # Start-up's ~110,000 objects live as long as the process: out of the collector's sight, full
    # collections (set off by rows waiting for the writer) no longer walk them with the GIL held.
    gc.freeze()
    try:
        with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises the stop signal: a normal stop
            serve_with(guarded, sock, on_ready=ready, on_connection_lost=app_.connection_closed)
    finally:
        if control is not None:
            control.close()
        withdraw(pausable)
        recorder.stop("proxy stopped")
        close_otel(subscribers)
        lost = ", ".join(f"session {sid}: {n}" for sid, n in recorder.losses().items())
        _err().print(
            f"\\[mcp-inspect] proxy stopped; NOT recorded (database failed): {lost}"
            if lost
            else "\\[mcp-inspect] proxy stopped; sessions saved"
        )


@app.command()
def pause(
    session: Annotated[str, typer.Argument(help="The live session (id, name or `last`).")],
    db: DbOption = None,
) -> None:
    """Pause recording a live session: bytes keep flowing, nothing is recorded until `resume`.

    Signals the wrap or proxy that records it (SIGUSR1; a proxy pauses all its sessions). The
    session shows where recording paused. Works on the host the session is recorded on.
    """
    from inspector.recording_control import switch_command

    switch_command(_engine(db, create=False), session, paused=True)


@app.command()
def resume(
    session: Annotated[str, typer.Argument(help="The paused session (id, name or `last`).")],
    db: DbOption = None,
) -> None:
    """Resume recording a session paused with `pause`, the UI or SIGUSR1 (SIGUSR2)."""
    from inspector.recording_control import switch_command

    switch_command(_engine(db, create=False), session, paused=False)


@app.command("mock-server")
def mock_server(
    session: Annotated[
        str, typer.Argument(help="The recording to play: a session id, 'last', or a session name.")
    ],
    stdio: Annotated[
        bool, typer.Option("--stdio", help="Serve one client on stdin/stdout (default).")
    ] = False,
    http: Annotated[
        str | None, typer.Option(help="Serve Streamable HTTP on HOST:PORT (at /mcp) instead of stdio.")
    ] = None,
    db: DbOption = None,
    match: Annotated[
        str,
        typer.Option(
            help="strict: params must equal the recorded ones; lenient: ignore _meta and extra keys."
        ),
    ] = "strict",
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            metavar="PATH", help="A params path to ignore when matching, e.g. arguments.when (repeatable)."
        ),
    ] = None,
    unmatched: Annotated[
        str, typer.Option(help="What an unmatched request gets: error, forward or drop.")
    ] = "error",
    record_mode: Annotated[
        str,
        typer.Option(
            help="none (play only), once, new (play, forward the rest) or all (forward everything)."
        ),
    ] = "none",
    forward: Annotated[str | None, typer.Option(help="The real server's URL, for forwarding.")] = None,
    forward_cmd: Annotated[
        str | None, typer.Option(help="The real server's command line, for forwarding.")
    ] = None,
    name: Annotated[
        str | None, typer.Option(help="Name of the recorded mock session (default: the recording's).")
    ] = None,
    allow_origin: AllowOriginOption = None,
    allow_host: AllowHostOption = None,
    allow_remote: AllowRemoteOption = False,
    redact: RedactOption = None,
    redact_path: RedactPathOption = None,
    keep_secrets: KeepSecretsOption = False,
    ca_bundle: CaBundleOption = None,
    client_cert: ClientCertOption = None,
    client_key: ClientKeyOption = None,
    insecure: InsecureOption = False,
    faults: FaultsOption = None,
    intercept: InterceptOption = False,
    seed: SeedOption = None,
    pause_timeout: PauseTimeoutOption = None,
    pause_default: PauseDefaultOption = None,
) -> None:
    """Play the server's side of a recording to a real client (stdio by default, or --http).

    Requests are matched against the recorded ones by method and params (never the JSON-RPC id);
    recorded notifications and server-to-client requests (sampling, roots, elicitation) are
    sent at their recorded points. An unmatched request gets error -32050 naming the nearest
    recorded request and what differed. Every message is recorded as a `mock-server` session.
    SIGTERM stops it as Ctrl-C does: its sessions are ended ("mock server stopped"), exit status 0.

    --http listens on loopback only unless --allow-remote. A foreign Host or
    browser Origin gets 403, a POST that is not JSON 415 (README, Security).

    --auth (with --http) puts a mock OAuth authorization server in front of
    /mcp, on the same origin; --auth-fault makes it misbehave the ways a
    client must refuse or survive (README, serve --auth).
    """
    import shlex

    import anyio

    from inspector.guard import check_bind
    from inspector.mock.runner import MockOptions, run_mock
    from inspector.transports.serve import parse_listen

    if stdio and http:  # the same words as serve's
        raise InspectorError("give either --stdio or --http HOST:PORT, not both")
    if forward and forward_cmd:
        raise InspectorError("give either --forward URL or --forward-cmd COMMAND, not both")
    _redaction(redact, redact_path, keep_secrets)
    _outbound(forward, ca_bundle, client_cert, client_key, insecure, needs_url="--forward")
    options = MockOptions(
        session_ref=session,
        match=match,
        ignore=tuple(ignore or ()),
        unmatched=unmatched,
        record_mode=record_mode,
        forward=forward or (shlex.split(forward_cmd) if forward_cmd else None),
        name=name,
        faults=faults,
        seed=seed,
        intercept=intercept,
        pause_timeout=pause_timeout,
        pause_default=pause_default,
    )
    access = _access(allow_remote, allow_host, allow_origin)
    listen = parse_listen(http) if http else None
    if listen is not None:
        check_bind(listen[0], allow_remote=access.allow_remote, option="--http")
    engine = _engine(db)
    try:
        status = anyio.run(lambda: run_mock(engine, options, http=listen, access=access))
    except ValueError as exc:
        raise InspectorError(str(exc)) from None
    except KeyboardInterrupt:
        return
    if status is not None:
        # The recorded server exited: so do we, with its status, at once. The recorder is stopped
        # (everything is written); a thread still blocked reading the client's stdin must not keep
        # the process alive, as the server it stands for is gone.
        sys.stderr.flush()
        engine.dispose()
        os._exit(status)


@app.command("serve")
def serve_scenario(
    scenario: Annotated[
        str | None, typer.Argument(help="Scenario file (YAML or JSON); default: the built-in one.")
    ] = None,
    stdio: Annotated[
        bool, typer.Option("--stdio", help="Serve one client on stdin/stdout (default).")
    ] = False,
    http: Annotated[str | None, typer.Option(help="Serve Streamable HTTP on HOST:PORT (at /mcp).")] = None,
    protocol_version: Annotated[
        list[str] | None, typer.Option(metavar="REVISION", help="Negotiate only this revision (repeatable).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Name of the recorded sessions.")] = None,
    db: DbOption = None,
    allow_origin: AllowOriginOption = None,
    allow_host: AllowHostOption = None,
    allow_remote: AllowRemoteOption = False,
    redact: RedactOption = None,
    redact_path: RedactPathOption = None,
    keep_secrets: KeepSecretsOption = False,
    auth: Annotated[
        bool,
        typer.Option(
            "--auth",
            help="--http: require OAuth authorization from a built-in authorization server on the same "
            "origin (resource and AS metadata, /register, /authorize with PKCE S256, /token).",
        ),
    ] = False,
    auth_fault: Annotated[
        list[str] | None,
        typer.Option(
            "--auth-fault",
            metavar="FAULT",
            help="Implies --auth. A fault clients must refuse or survive (repeatable): wrong-issuer, "
            "resource-mismatch, no-s256, expired-token, step-up.",
        ),
    ] = None,
    approve: Annotated[
        str | None,
        typer.Option(
            "--approve",
            metavar="auto|ui",
            help="Implies --auth. auto (default): approve at once; ui: show an approval page.",
        ),
    ] = None,
    faults: FaultsOption = None,
    intercept: InterceptOption = False,
    seed: SeedOption = None,
    pause_timeout: PauseTimeoutOption = None,
    pause_default: PauseDefaultOption = None,
) -> None:
    """An MCP server from a scenario, to test clients; every message is recorded (kind `mock-server`).

    --http listens on loopback only unless --allow-remote. A foreign Host or
    browser Origin gets 403, a POST that is not JSON 415 (README, Security).

    The UI reaches it through a control channel announced in a file in the
    runtime directory: $MCP_INSPECTOR_RUNTIME, else
    $XDG_RUNTIME_DIR/mcp-inspector/serve (without it: /run/user/UID/... when
    that exists), else ~/.cache/mcp-inspector/serve. That directory must be
    yours with mode 0700 (created so when missing); any other is refused
    before anything is written.
    """
    from inspector.guard import check_bind
    from inspector.runtime_dir import check_runtime_dir
    from inspector.scenario.command import serve_command
    from inspector.transports.serve import parse_listen

    access = _access(allow_remote, allow_host, allow_origin)
    if http:  # refused before the database is opened
        check_bind(parse_listen(http)[0], allow_remote=access.allow_remote, option="--http")
    _redaction(redact, redact_path, keep_secrets)
    check_runtime_dir()  # before the database is opened: a refused start writes nothing
    serve_command(
        _engine(db),
        scenario,
        stdio=stdio,
        http=http,
        versions=protocol_version or [],
        name=name,
        access=access,
        auth=(auth, auth_fault or [], approve),
        faults=(faults, seed, intercept, pause_timeout, pause_default),
    )


@app.command()
def replay(
    session: Annotated[
        str, typer.Argument(help="The recording to replay: a session id, 'last', or a session name.")
    ],
    command: Annotated[
        list[str] | None,
        typer.Argument(help="The server command (after --), for stdio."),
    ] = None,
    url: Annotated[
        str | None, typer.Option(help="The server's URL instead of a command (.../sse: legacy HTTP+SSE).")
    ] = None,
    db: DbOption = None,
    calibrate: Annotated[
        bool, typer.Option(help="Replay twice and ignore what differs between those two runs (noise).")
    ] = False,
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            metavar="PATH",
            help="A JSON path to ignore in the diff, e.g. '**.timestamp' (repeatable). "
            "A leading ! compares a path again: '!tools/call:result.content' (the last match wins).",
        ),
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", help="List the default ignored paths.")] = False,
    strict_volatile: Annotated[
        bool,
        typer.Option(
            "--strict-volatile",
            help="Count strings that changed only in times, dates, ids or numbers (shown as "
            "volatile) as changes too.",
        ),
    ] = False,
    match: Annotated[
        str,
        typer.Option(help="How the server's requests are matched to recorded answers: strict or lenient."),
    ] = "strict",
    header: Annotated[
        list[str] | None,
        typer.Option(metavar="HEADER", help="An HTTP header for the target, 'Name: value' (repeatable)."),
    ] = None,
    secret: SecretOption = None,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for each response.")] = 30.0,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    redact: RedactOption = None,
    redact_path: RedactPathOption = None,
    keep_secrets: KeepSecretsOption = False,
    ca_bundle: CaBundleOption = None,
    client_cert: ClientCertOption = None,
    client_key: ClientKeyOption = None,
    insecure: InsecureOption = False,
    auth: AuthOption = False,
    client_id: ClientIdOption = None,
    client_secret: ClientSecretOption = None,
    client_metadata_url: ClientMetadataUrlOption = None,
    scope: ScopeOption = None,
    auth_non_interactive: AuthNonInteractiveOption = False,
    auth_wait: AuthWaitOption = 300.0,
) -> None:
    """Re-drive a server with a recorded client and diff its behaviour against the recording.

    With --url and --auth a 401 starts the OAuth flow of the recording's revision (as `call
    --auth` does); a token from an earlier run is reused. The recorded Authorization header, if
    any, is not sent then.

    Exit status: 0 behaviour unchanged, 1 changed, 2 the replay could not run. The replay is
    recorded as a new session (kind `replay`) linked to the original.
    """
    from inspector.replay.report import replay_and_diff

    if command and command[0] == "--":
        command = command[1:]
    if bool(command) == bool(url):
        raise InspectorError("replay needs a target: either --url URL or -- COMMAND [ARGS...]")
    _redaction(redact, redact_path, keep_secrets)
    _outbound(url, ca_bundle, client_cert, client_key, insecure)
    wanted = _auth_request(
        auth, url, client_id, client_secret, client_metadata_url, scope, auth_non_interactive, auth_wait
    )
    headers = _parse_headers(header or [])
    engine = _engine(db, create=False)
    code = replay_and_diff(
        engine,
        session,
        url or list(command or []),
        calibrate=calibrate,
        ignore=tuple(ignore or ()),
        match=match,
        headers=headers,
        secrets=_parse_secrets(secret or []),
        timeout=timeout,
        json_out=json_out,
        verbose=verbose,
        strict_volatile=strict_volatile,
        auth=wanted,
    )
    raise typer.Exit(code)


@app.command()
def diff(
    session_a: Annotated[str, typer.Argument(help="The first session (id, 'last' or name): the baseline.")],
    session_b: Annotated[str, typer.Argument(help="The second session, compared with the first.")],
    db: DbOption = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            metavar="PATH",
            help="A JSON path to ignore, e.g. '**.timestamp' (repeatable). A leading ! compares "
            "a path again: '!tools/call:result.content' (the last match wins).",
        ),
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", help="List the default ignored paths.")] = False,
    strict_volatile: Annotated[
        bool,
        typer.Option(
            "--strict-volatile",
            help="Count strings that changed only in times, dates, ids or numbers (shown as "
            "volatile) as changes too.",
        ),
    ] = False,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the report as one JSON document: the counts, then the exchanges that "
            "differ (or were intervened on), each with its index in the whole report.",
        ),
    ] = False,
    all_exchanges: Annotated[
        bool, typer.Option("--all", help="List the equal exchanges too (text and --json).")
    ] = False,
) -> None:
    """Semantic diff of two recorded sessions (exit 1 when their behaviour differs).

    The report counts every exchange and lists those that differ: a long session that mostly
    agrees gives a short report. --all lists every exchange."""
    from inspector.replay.report import diff_recorded

    engine = _engine(db, create=False)
    raise typer.Exit(
        diff_recorded(
            engine,
            session_a,
            session_b,
            ignore=tuple(ignore or ()),
            json_out=json_out,
            verbose=verbose,
            strict_volatile=strict_volatile,
            all_exchanges=all_exchanges,
        )
    )


@app.command(context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True})
def versions(
    command: Annotated[
        list[str] | None,
        typer.Argument(help="The server command (after --), for stdio."),
    ] = None,
    url: Annotated[str | None, typer.Option(help="The server's URL instead of a command.")] = None,
    revisions: Annotated[
        str | None,
        typer.Option(help="Comma-separated revisions (YYYY-MM-DD) to probe. Default: all five known ones."),
    ] = None,
    replay: Annotated[
        str | None,
        typer.Option(help="Also send this recorded session's client requests under each revision."),
    ] = None,
    header: Annotated[
        list[str] | None, typer.Option(metavar="HEADER", help="An HTTP header, 'Name: value' (repeatable).")
    ] = None,
    secret: SecretOption = None,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for each response.")] = 30.0,
    db: DbOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the matrix as JSON.")] = False,
    show_all: Annotated[
        bool, typer.Option("--all", help="Also show field rows that are equal under every revision.")
    ] = False,
    redact: RedactOption = None,
    redact_path: RedactPathOption = None,
    keep_secrets: KeepSecretsOption = False,
    ca_bundle: CaBundleOption = None,
    client_cert: ClientCertOption = None,
    client_key: ClientKeyOption = None,
    insecure: InsecureOption = False,
    auth: AuthOption = False,
    client_id: ClientIdOption = None,
    client_secret: ClientSecretOption = None,
    client_metadata_url: ClientMetadataUrlOption = None,
    scope: ScopeOption = None,
    auth_non_interactive: AuthNonInteractiveOption = False,
    auth_wait: AuthWaitOption = 300.0,
) -> None:
    """Probe a server once per protocol revision and show what changes between them.

    Each revision gets its own connection (initialize, or server/discover for 2026-07-28), then
    tools, resources, templates and prompts are listed (all pages) for the capabilities the server
    declared. Each run is recorded as a session named `versions REVISION`, all labelled
    `versions:RUN`; compare two with `mcp-inspect diff A B`. A well-formed date that is not a
    known revision is offered through initialize (to see the server's counter-offer).

    With --url and --auth each revision authorizes by its own OAuth rules (as `call --auth`
    does); a token one revision got is reused by the next when the server accepts it.

    Exit status: 0 every revision answered (a refused handshake is an answer), 1 some revisions
    got no answer at all, 2 none did or the input was bad.
    """
    from inspector.versions.report import check_target
    from inspector.versions.report import versions as run

    if command and command[0] == "--":
        command = command[1:]
    target = check_target(command, url)
    _redaction(redact, redact_path, keep_secrets)
    _outbound(url, ca_bundle, client_cert, client_key, insecure)
    wanted = _auth_request(
        auth, url, client_id, client_secret, client_metadata_url, scope, auth_non_interactive, auth_wait
    )
    given = _parse_secrets(secret or [])
    engine = _engine(db)
    raise typer.Exit(
        run(
            engine,
            target,
            revisions=revisions,
            replay=replay,
            timeout=timeout,
            headers=_parse_headers(header or []),
            secrets=given,
            json_out=json_out,
            show_all=show_all,
            auth=wanted,
        )
    )


@app.command()
def export(
    sessions: Annotated[
        list[str], typer.Argument(help="Sessions to export: ids, names or 'last' (a parent goes first).")
    ],
    db: DbOption = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="jsonl: the inspector's own session file (exact bytes); har: HTTP Archive 1.2 of "
            "HTTP sessions (DevTools, mitmproxy); html: one self-contained report to read offline.",
        ),
    ] = "jsonl",
    output: Annotated[
        str | None,
        typer.Option("-o", "--output", metavar="FILE", help="Write here ('-': stdout; default: stdout)."),
    ] = None,
    otlp: Annotated[
        str | None,
        typer.Option(
            "--otlp",
            metavar="URL",
            help="Send the sessions to this OTLP/HTTP collector (base URL, e.g. http://localhost:4318) "
            "as OpenTelemetry spans, one per request, instead of writing a file.",
            show_default=False,
        ),
    ] = None,
    otlp_content: OtlpContentOption = False,
) -> None:
    """Write sessions to a file to share, keep in git or import elsewhere.

    The JSONL session file holds one message per line with the exact bytes (base64 when not
    UTF-8), direction, channel, timestamps, HTTP metadata, pairing and each session's facts,
    keys sorted so it diffs well. Secrets are in it as the recording holds them: placeholders.
    HAR holds each HTTP exchange (SSE events too) with MCP facts in `_mcp` fields; the HTML
    report shows facts, timeline, pairs, lint findings and a replay's diff.
    With --otlp URL the sessions go to an OpenTelemetry collector instead: a span per request.
    """
    if otlp is not None:  # spans to a collector instead of a file
        from inspector.share.otlp import otlp_command

        raise typer.Exit(otlp_command(_engine(db, create=False), sessions, otlp, content=otlp_content))
    from inspector.share.commands import export_command

    raise typer.Exit(export_command(_engine(db, create=False), sessions, fmt=fmt, output=output))


@app.command("import")
def import_(
    files: Annotated[
        list[str], typer.Argument(help="Session files (.mcp.jsonl) or HAR files to import ('-': stdin).")
    ],
    db: DbOption = None,
) -> None:
    """Add the sessions of session files (from `export`) to the database as new sessions.

    A file is imported whole or not at all: a bad line stops it with its line number and
    removes what that file had added. The sessions keep their kinds, names and facts.
    A HAR file (Chrome DevTools, mitmproxy's savehar) becomes one session per MCP session
    (Mcp-Session-Id) found in its JSON-RPC requests and JSON or event-stream responses.
    """
    from inspector.share.commands import import_command

    raise typer.Exit(import_command(_engine(db), files))


@app.command("test")
def test_recordings(
    recordings: Annotated[
        str, typer.Argument(help="A folder of *.mcp.jsonl recordings (searched below too).")
    ],
    command: Annotated[
        list[str] | None, typer.Argument(help="The server command (after --), for stdio.")
    ] = None,
    url: Annotated[str | None, typer.Option(help="The server's URL instead of a command.")] = None,
    junit_xml: Annotated[
        str | None,
        typer.Option(
            "--junit-xml", metavar="FILE", help="Where to write the JUnit XML report ('' for none)."
        ),
    ] = "mcp-inspect-junit.xml",
    calibrate: Annotated[
        bool, typer.Option(help="Replay each twice and ignore what differs between those runs.")
    ] = False,
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            metavar="PATH", help="A JSON path to ignore in the diffs, e.g. '**.timestamp' (repeatable)."
        ),
    ] = None,
    match: Annotated[
        str,
        typer.Option(help="How the server's requests are matched to recorded answers: strict or lenient."),
    ] = "strict",
    timeout: Annotated[float, typer.Option(help="Seconds to wait for each response.")] = 30.0,
) -> None:
    """Replay every recording of a folder against a server, as a test suite (for any CI).

    Each recording (from `export` or the pytest plugin) is replayed against the command or URL
    and its behaviour diffed; a line per recording, a summary and a JUnit XML report. Secrets
    come from the environment ($MCP_INSPECTOR_SECRET_NAME), as for `replay`.

    Exit status: 0 every recording passed, 1 some changed or could not run, 2 none could run.
    """
    from pathlib import Path

    from inspector.share.suite import run_suite

    if command and command[0] == "--":
        command = command[1:]
    if bool(command) == bool(url):
        raise InspectorError("test needs a target: either --url URL or -- COMMAND [ARGS...]")
    raise typer.Exit(
        run_suite(
            Path(recordings),
            url or list(command or []),
            junit=Path(junit_xml) if junit_xml else None,
            calibrate=calibrate,
            ignore=tuple(ignore or ()),
            match=match,
            timeout=timeout,
        )
    )


@app.command()
def lint(
    session: Annotated[str, typer.Argument(help="A session id, name, or 'last'.")],
    db: DbOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the findings as JSON.")] = False,
    min_severity: Annotated[
        str, typer.Option(help="Show only findings this severe: error, warning or info.")
    ] = "info",
) -> None:
    """Check a session against its protocol revision (exit 1 when there are errors)."""
    from inspector.lint.report import lint_command

    raise typer.Exit(
        lint_command(_engine(db, create=False), session, json_out=json_out, min_severity=min_severity)
    )


def _parse_secrets(values: list[str]) -> dict[str, str]:
    secrets = {}
    for value in values:
        name, sep, content = value.partition("=")
        if not sep or not name.strip():
            raise InspectorError(f"--secret wants NAME=VALUE, got {value!r}")
        secrets[name.strip().lower()] = content
    return secrets


def _parse_headers(values: list[str]) -> dict[str, str]:
    headers = {}
    for value in values:
        name, sep, content = value.partition(":")
        if not sep or not name.strip():
            raise InspectorError(f"--header wants 'Name: value', got {value!r}")
        headers[name.strip()] = content.strip()
    return headers


@app.command()
def call(
    method: Annotated[str, typer.Argument(help="The JSON-RPC method, e.g. tools/list or tools/call.")],
    command: Annotated[
        list[str] | None,
        typer.Argument(help="The server command (after --), for stdio."),
    ] = None,
    params: Annotated[str | None, typer.Option(help="The params as a JSON object.")] = None,
    url: Annotated[
        str | None, typer.Option(help="The server's URL instead of a command (.../sse: legacy HTTP+SSE).")
    ] = None,
    protocol_version: Annotated[
        str,
        typer.Option(
            help="The revision to offer: 2024-11-05 .. 2025-11-25 (initialize), 2026-07-28 (discover), or any string."
        ),
    ] = "2025-11-25",
    root: Annotated[
        list[str] | None,
        typer.Option(metavar="URI", help="A root URI to give the server if it asks (repeatable)."),
    ] = None,
    header: Annotated[
        list[str] | None, typer.Option(metavar="HEADER", help="An HTTP header, 'Name: value' (repeatable).")
    ] = None,
    progress: Annotated[
        bool, typer.Option(help="Ask for progress notifications and print them on stderr.")
    ] = False,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the answer.")] = 60.0,
    db: DbOption = None,
    redact: RedactOption = None,
    redact_path: RedactPathOption = None,
    keep_secrets: KeepSecretsOption = False,
    ca_bundle: CaBundleOption = None,
    client_cert: ClientCertOption = None,
    client_key: ClientKeyOption = None,
    insecure: InsecureOption = False,
    auth: AuthOption = False,
    client_id: ClientIdOption = None,
    client_secret: ClientSecretOption = None,
    client_metadata_url: ClientMetadataUrlOption = None,
    scope: ScopeOption = None,
    auth_non_interactive: AuthNonInteractiveOption = False,
    auth_wait: AuthWaitOption = 300.0,
) -> None:
    """Connect, perform the handshake the revision needs, send one request and print the result as JSON.

    With --auth, a 401 starts the OAuth flow of the revision in use: discovery, registration (or
    --client-id, or --client-metadata-url), PKCE, the browser (a loopback listener takes the
    redirect), tokens. Tokens are kept in a user-only file ($MCP_INSPECTOR_AUTH_FILE, else
    ~/.config/mcp-inspector/auth.json), never in the recording; every leg is recorded with its step (`meta.auth_step`).

    Exit status 0 for a result, 1 for an error response, 2 when the server could not be reached
    or authorization failed.
    Sampling requests are refused and elicitations declined (nobody is there to answer); roots
    come from --root. The session is recorded (kind `mock-client`).
    """
    import anyio

    from inspector.auth.connect import authorizer
    from inspector.mock.client import ClientConfig, MockClient, Responder

    if command and command[0] == "--":
        command = command[1:]
    if bool(command) == bool(url):
        raise InspectorError("call needs a target: either --url URL or -- COMMAND [ARGS...]")
    _redaction(redact, redact_path, keep_secrets)
    _outbound(url, ca_bundle, client_cert, client_key, insecure)
    try:
        parsed = orjson.loads(params) if params else None
    except orjson.JSONDecodeError as exc:
        raise InspectorError(f"--params is not valid JSON: {exc}") from None
    if parsed is not None and not isinstance(parsed, dict):
        raise InspectorError("--params must be a JSON object")
    wanted = _auth_request(
        auth, url, client_id, client_secret, client_metadata_url, scope, auth_non_interactive, auth_wait
    )
    config = ClientConfig(
        target=url or list(command or []),
        protocol_version=protocol_version,
        headers=_parse_headers(header or []),
        timeout=timeout,
        responders={
            "sampling/createMessage": Responder("reject"),
            "elicitation/create": Responder("fixed", {"action": "decline"}),
            "roots/list": Responder("fixed", {"roots": [{"uri": r} for r in root or []]}),
        },
    )
    engine = _engine(db)

    async def log_progress(kind: str, payload: dict) -> None:
        if kind == "notification":
            sys.stderr.write(visible_json(orjson.dumps(payload).decode()) + "\n")

    async def run() -> dict:
        client = MockClient(engine, config, listener=log_progress if progress else None)
        # The stack (the callback listener, OAuth's client) outlives the group cancelled below.
        async with contextlib.AsyncExitStack() as stack:
            if wanted is not None:
                config.auth = await stack.enter_async_context(authorizer(wanted, str(url), protocol_version))
            async with anyio.create_task_group() as tg:
                try:
                    first = await client.start(tg)
                    if method in ("initialize", "server/discover") or "error" in first:
                        answer = first
                    else:
                        answer = await client.request(method, parsed, progress=progress)
                finally:
                    await client.close()
                    tg.cancel_scope.cancel()
        return answer

    try:
        answer = anyio.run(run)
    except InspectorError:
        raise
    except Exception as exc:
        cause: BaseException = exc
        while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
            cause = cause.exceptions[0]
        if isinstance(cause, InspectorError):  # an AuthFailure inside the task group: its own words
            print_error(cause)
            raise typer.Exit(2) from None
        _err().print(
            f"[red]error:[/red] could not talk to the server: {type(cause).__name__}: {markup_safe(cause)}"
        )
        raise typer.Exit(2) from None
    if "error" in answer:
        sys.stdout.write(
            visible_json(orjson.dumps(answer["error"], option=orjson.OPT_INDENT_2).decode()) + "\n"
        )
        raise typer.Exit(1)
    sys.stdout.write(
        visible_json(orjson.dumps(answer.get("result"), option=orjson.OPT_INDENT_2).decode()) + "\n"
    )


def _auth_request(
    auth: bool,
    url: str | None,
    client_id: str | None,
    client_secret: str | None,
    client_metadata_url: str | None,
    scope: str | None,
    non_interactive: bool,
    wait: float,
) -> AuthRequest | None:
    """The checked `--auth` options of `call`, `replay` and `versions` (None without --auth)."""
    from inspector.auth.connect import AuthRequest, check_auth_options

    given = AuthRequest(client_id, client_secret, client_metadata_url, scope, non_interactive, wait)
    return check_auth_options(auth, url, given)


@app.command()
def sessions(
    db: DbOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    limit: Annotated[int, typer.Option(help="How many sessions to list.")] = 50,
    name: Annotated[
        str | None,
        typer.Option(help="Only sessions whose name contains this (any case), e.g. a gateway route's."),
    ] = None,
) -> None:
    """List recorded sessions, newest first."""
    from inspector.console import sessions_table
    from inspector.store import session_state
    from inspector.store.queries import SessionFilter, find_sessions, session_idle

    engine = _engine(db, create=False)
    found, _total = find_sessions(engine, SessionFilter(name=name), limit=limit)
    if json_out:
        docs = [{**s.to_json(), "state": session_state(s), "idle": session_idle(s)} for s in found]
        sys.stdout.write(visible_json(orjson.dumps(docs, option=orjson.OPT_INDENT_2).decode()) + "\n")
        return
    if not found:
        _err().print("No recorded sessions yet. Record one with: mcp-inspect wrap -- COMMAND")
        return
    console = Console()
    console.print(sessions_table(found, console.width))


@app.command()
def prune(
    db: DbOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would go; change nothing.")] = False,
    max_age: Annotated[
        str | None, typer.Option("--max-age", help="Remove sessions older than this: 12h, 30d, 2w.")
    ] = None,
    max_total_size: Annotated[
        str | None,
        typer.Option(
            "--max-total-size", help="Remove the oldest sessions until the store is within this: 2GB."
        ),
    ] = None,
    max_session_size: Annotated[
        str | None, typer.Option("--max-session-size", help="Remove ended sessions bigger than this: 200MB.")
    ] = None,
) -> None:
    """Apply the retention policy now: remove old or large sessions and give the space back.

    The policy is the config file's \\[retention] table, then MCP_INSPECTOR_MAX_AGE / _MAX_TOTAL_SIZE /
    _MAX_SESSION_SIZE, then these flags. Pinned sessions (`mcp-inspect pin`), labelled ones and
    sessions still recording are never removed; the oldest go first. Every recorder applies the
    same policy by itself (at most hourly); this command is for doing it now or seeing what would go.
    """
    from inspector.cli_prune import load_policy
    from inspector.cli_prune import prune as run_prune

    effective = load_policy(max_age, max_total_size, max_session_size)
    engine = _engine(db, create=False) if effective.settings.retention.active else None
    raise typer.Exit(run_prune(engine, effective, dry_run=dry_run))


@app.command()
def pin(
    session: Annotated[str, typer.Argument(help="Session id, name, or `last`.")],
    db: DbOption = None,
) -> None:
    """Pin a session: retention (`prune`, recorders) never removes it."""
    from inspector.cli_prune import pin as set_pin

    print(visible(set_pin(_engine(db, create=False), session, True)))


@app.command()
def unpin(
    session: Annotated[str, typer.Argument(help="Session id, name, or `last`.")],
    db: DbOption = None,
) -> None:
    """Unpin a session: retention may remove it again."""
    from inspector.cli_prune import pin as set_pin

    print(visible(set_pin(_engine(db, create=False), session, False)))


def _session_to_show(db: str | None, session: str, *, follow: bool, poll: float):
    """The engine and the session `show` prints. With --follow, a database or session that does not
    exist yet is waited for (as `tail -F` waits for a file): a recorder started a moment earlier
    creates both off its forwarding path."""
    from pathlib import Path

    from inspector.config import default_db
    from inspector.errors import NotFoundError
    from inspector.store import database_url, get_session

    url = database_url(db or default_db())
    path = Path(url.split("///", 1)[1]) if url.startswith("sqlite") else None
    told = False
    while True:
        missing = path is not None and not path.exists()
        if not missing:
            engine = _engine(db, create=False)
            try:
                return engine, get_session(engine, session)
            except NotFoundError as exc:
                if not follow:
                    raise
                reason = str(exc)
            engine.dispose()
        elif not follow:
            _engine(db, create=False)  # raises the clear "no recording database" error
        else:
            reason = f"no recording database at {path} yet"
        if not told:
            _err().print(f"[dim]{markup_safe(reason)}; waiting for it (Ctrl-C to stop) ...[/dim]")
            told = True
        time.sleep(poll)


@app.command()
def show(
    session: Annotated[str, typer.Argument(help="A session id, or 'last'.")] = "last",
    db: DbOption = None,
    follow: Annotated[
        bool, typer.Option("--follow", "-f", help="Keep printing new messages while recording.")
    ] = False,
    json_out: Annotated[
        bool, typer.Option("--json", help="One JSON object per message (raw text included).")
    ] = False,
    poll: Annotated[float, typer.Option(help="Seconds between checks with --follow.")] = 0.25,
) -> None:
    """Show a session's timeline: seq, time, direction, kind, method, id, latency, size."""
    from inspector.console import WIDE, message_line, method_width, timeline_header
    from inspector.store import get_session, iter_messages, session_state

    engine, found = _session_to_show(db, session, follow=follow, poll=poll)
    assert found.id is not None
    console = Console(highlight=False)
    out = sys.stdout
    width = method_width(console)
    clock = console.width >= WIDE
    if not json_out:
        timeline_header(console, found)
    last = 0
    while True:
        for m in iter_messages(engine, found.id, after_seq=last):
            last = m.seq
            if json_out:
                out.write(visible_json(orjson.dumps(m.to_json()).decode()) + "\n")
            else:
                console.print(message_line(m, width, clock=clock), no_wrap=True, overflow="ellipsis")
        out.flush()
        if not follow:
            break
        current = get_session(engine, found.id)
        if session_state(current) != "recording" and current.message_count <= last:
            if not json_out:
                console.print(
                    f"[dim]session ended: {markup_safe(current.end_reason or current.status)}[/dim]"
                )
            break
        time.sleep(poll)


@app.command()
def search(
    words: Annotated[str, typer.Argument(help="Words that must all appear in the message text.")],
    session: Annotated[str | None, typer.Option(help="Only this session (an id or 'last').")] = None,
    db: DbOption = None,
    syntax: Annotated[
        bool,
        typer.Option(
            help="Treat WORDS as the store's own query syntax (SQLite FTS5; websearch_to_tsquery on PostgreSQL)."
        ),
    ] = False,
    limit: Annotated[int, typer.Option(help="At most this many messages.")] = 100,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per message.")] = False,
) -> None:
    """Full-text search over recorded messages."""
    from inspector.console import WIDE, message_line, method_width
    from inspector.store import get_session, search_messages

    engine = _engine(db, create=False)
    session_id = get_session(engine, session).id if session else None
    found = search_messages(engine, words, session_id=session_id, limit=limit, syntax=syntax)
    console = Console(highlight=False)
    width = method_width(console)
    for m in found:
        if json_out:
            sys.stdout.write(visible_json(orjson.dumps(m.to_json()).decode()) + "\n")
        else:
            line = message_line(m, width, clock=console.width >= WIDE)
            line.append(f"  session {m.session_id}", style="dim")
            console.print(line, no_wrap=True, overflow="ellipsis")
    if not found and not json_out:
        _err().print(f"No message contains {markup_safe(repr(words))}.")


@app.command()
def demo(
    db: DbOption = None,
    mode: Annotated[
        str, typer.Option(help="Client connect mode: legacy (initialize) or auto (server/discover first).")
    ] = "legacy",
    no_ui: Annotated[
        bool, typer.Option("--no-ui", help="Only record and print; do not start the web UI.")
    ] = False,
    port: Annotated[
        int | None, typer.Option(help="The web UI's port (default 6290, else a free one).")
    ] = None,
    no_open: Annotated[bool, typer.Option("--no-open", help="Do not open a browser.")] = False,
) -> None:
    """Record a demo session: an SDK client drives the bundled demo server through `wrap`, then show it
    in the terminal and in the web UI (until Ctrl-C)."""
    import anyio
    from mcp import StdioServerParameters

    from inspector.config import default_db
    from inspector.demo.driver import drive_demo
    from inspector.store import get_session

    path = db or default_db()
    engine = _engine(path)
    wrapped = [sys.executable, "-m", "inspector", "wrap", "--db", path, "--name", f"demo ({mode})", "--"]
    params = StdioServerParameters(
        command=wrapped[0], args=[*wrapped[1:], sys.executable, "-m", "inspector.demo"]
    )
    from inspector.store.engine import masked_url

    _err().print(f"Recording a demo session into {masked_url(path)} ...")
    anyio.run(lambda: drive_demo(params, mode=mode))
    latest = get_session(engine, "last")
    show(str(latest.id), db=path, follow=True, json_out=False, poll=0.1)
    _err().print(f"\nBrowse it again with: {sys.argv[0]} show {latest.id} --db {masked_url(path)}")
    if not no_ui:
        from inspector.api import serve

        serve(
            engine,
            host="127.0.0.1",
            port=port,
            allow_remote=False,
            open_browser=not no_open,
            path=f"/sessions/{latest.id}",
        )


@app.command()
def ui(
    db: DbOption = None,
    host: Annotated[
        str, typer.Option(help="Interface to listen on (loopback unless --allow-remote).")
    ] = "127.0.0.1",
    port: Annotated[int | None, typer.Option(help="Port (default 6290, else a free one).")] = None,
    no_open: Annotated[bool, typer.Option("--no-open", help="Do not open a browser.")] = False,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote", help="Allow --host to be a non-loopback interface (token still required)."
        ),
    ] = False,
    allow_host: AllowHostOption = None,
    redact: RedactOption = None,
    redact_path: RedactPathOption = None,
    keep_secrets: KeepSecretsOption = False,
    ca_bundle: CaBundleOption = None,
    client_cert: ClientCertOption = None,
    client_key: ClientKeyOption = None,
    insecure: InsecureOption = False,
) -> None:
    """Serve the web UI and its JSON + websocket API on recorded sessions (prints the URL with its token).

    Mock clients, replays and serve processes started from the UI record with its --redact,
    --redact-path and --keep-secrets rules, and reach HTTPS servers with its
    --ca-bundle, --client-cert and --insecure."""
    from inspector.api import serve

    _redaction(redact, redact_path, keep_secrets)
    _outbound(None, ca_bundle, client_cert, client_key, insecure, needs_url=None)
    serve(
        _engine(db),
        host=host,
        port=port,
        allow_remote=allow_remote,
        open_browser=not no_open,
        allow_hosts=tuple(allow_host or ()),
    )


unwrap_commands(app)  # docstring paragraphs as single lines: Rich wraps them to the terminal


@app.command()
def doctor(
    home: Annotated[
        Path | None, typer.Option(help="Look for the hosts' user config files here. Default: your home.")
    ] = None,
    project: Annotated[
        Path | None,
        typer.Option(
            help="Look for project config files (.mcp.json, .vscode/mcp.json, ...) here. Default: the current directory."
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="The database to check. Default: the one every command uses ($MCP_INSPECTOR_DB, "
            "else the config file's `db`, else ./recordings/inspector.db).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check the setup for always-on recording, changing nothing: the MCP servers in the config files
    of Claude Desktop, Claude Code, Cursor, VS Code, Windsurf and Gemini CLI (wrapped or not, and the
    keys of the entry to change), the database (integrity, revision, size, free space, permissions,
    retention) and the config file. Exit status 0 when all is well, 1 when something needs action.
    """
    from inspector.doctor import doctor_command

    raise typer.Exit(doctor_command(home, project, db, as_json))


def print_error(exc: InspectorError) -> None:
    """A user error as one red line on stderr (its text is never read as Rich markup: a path or a
    TOML table name in brackets is printed as it is), and a recorded name in it is shown with its
    control characters escaped."""
    _err().print(f"[red]error:[/red] {markup_safe(str(exc))}")


def _terminated(_signum: int, _frame: object) -> None:
    """SIGTERM stops a command as Ctrl-C does (see `main`): by raising SIGINT, whoever handles it
    now (Python's KeyboardInterrupt, asyncio's runner cancelling its main task, uvicorn)."""
    import signal

    signal.raise_signal(signal.SIGINT)


def main() -> None:
    """The Typer CLI (`inspector.entry.main` is the console script): user errors are one red line
    and exit status 2, not a traceback.

    SIGTERM is SIGINT here: service managers and CI stop with SIGTERM, and its default action killed
    a long-running command with its sessions still `recording` (uvicorn re-raises the signal it
    caught once it has shut down). Every command that runs until stopped (`proxy`, `mock-server`,
    `serve`, `ui`, `demo`, `intercept watch`, `call`) then ends its sessions and exits as after Ctrl-C.
    `wrap` passes both to its server (`inspector/wrap.py`)."""
    import signal

    # A shell starts a background job (`mcp-inspect proxy ... &`) with SIGINT ignored, and so may a
    # service manager: the SIGINT that SIGTERM raises would then be dropped, and asyncio's runner
    # would not install its Ctrl-C handling. Stopping on SIGTERM needs SIGINT handled.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _terminated)
    try:
        app()
    except InspectorError as exc:
        print_error(exc)
        sys.exit(2)
    except KeyboardInterrupt:  # Ctrl-C (or SIGTERM) before or after a command's own handling of it
        sys.exit(130)
