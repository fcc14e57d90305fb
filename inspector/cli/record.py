"""The recording commands: `wrap` (stdio), `proxy` (HTTP, or a gateway with --config), and
`pause` / `resume` of a live recording. Each parses its options and calls the composition root
(`wrap.run_wrap`, `proxy_run.run_proxy`, `recording_control.switch_command`)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from inspector.cli.common import (
    AllowHostOption,
    AllowOriginOption,
    AllowRemoteOption,
    CaBundleOption,
    ClientCertOption,
    ClientKeyOption,
    DbOption,
    FaultsOption,
    InsecureOption,
    InterceptOption,
    KeepSecretsOption,
    MaxConnectionsOption,
    MaxRecordBytesOption,
    MetadataOnlyOption,
    OtlpContentOption,
    OtlpOption,
    PauseDefaultOption,
    PauseTimeoutOption,
    RedactOption,
    RedactPathOption,
    SeedOption,
    open_store,
    options,
)
from inspector.errors import InspectorError

__all__ = ["WrapCommand", "pause", "proxy", "resume", "wrap"]


class WrapCommand(TyperCommand):
    """`wrap` keeps the arguments as given: `wrap.parse_wrap_args` reads them, as on the fast path
    (`inspector/entry.py`); Click's parse of the declared options only renders --help and refuses
    bad input in its words."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta["wrap.args"] = list(args)
        return super().parse_args(ctx, args)


def wrap(
    ctx: typer.Context,
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
    host: Annotated[
        str | None,
        typer.Option(
            help="The host whose config entry runs this wrap (`mcp-inspect install` sets it), "
            "recorded in the session's facts.",
            show_default=False,
        ),
    ] = None,
    host_file: Annotated[
        str | None,
        typer.Option(help="That host's config file (recorded with --host).", show_default=False),
    ] = None,
) -> None:
    """Wrap a stdio MCP server: forward every byte unchanged and record every message.

    Put this in your MCP client's config in place of the server command, e.g.
    `mcp-inspect wrap --db ~/mcp.db -- python server.py`. The exit status is the server's.
    With --faults or --intercept, rules may delay, drop, alter or answer messages; what each
    peer saw is recorded.
    """
    from inspector.wrap import parse_wrap_args, run_wrap

    given = ctx.meta["wrap.args"]
    opts = parse_wrap_args(given)
    if opts is None:  # what Click read but the one parser does not, e.g. a cluster of short flags
        raise InspectorError(f"wrap: give each option on its own, then -- COMMAND (got {' '.join(given)!r})")
    raise typer.Exit(run_wrap(opts))


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
            "target, headers, rewrite_auth_metadata, faults) and listen/allow_remote. Docs: "
            "'Record an HTTP server', One gateway for several servers.",
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
            "check the resource accept it (tokens are then issued for the proxy's URL: docs, 'Record an HTTP server').",
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
    prefix and recorded under its route's name (docs: 'Record an HTTP server', One gateway).

    Point your client at the printed URL instead of the server's. Every path is forwarded to
    the target's origin; each MCP session (or client run, for stateless servers: grouped by
    the client's address, User-Agent and credentials across its connections, a new
    initialize starting the next) is recorded as its own session. A session ends when the
    client ends it (DELETE), closes a legacy event stream, has had no connection open for
    --peer-gap (stateless), or after --idle-end.

    Listens on loopback only unless --allow-remote. A foreign Host or
    browser Origin gets 403, an MCP POST that is not JSON 415
    (docs: Security model).

    HTTPS_PROXY, HTTP_PROXY and NO_PROXY are honoured: through a forward
    proxy a slower client (httpx) is used; stderr says which.

    With --faults or --intercept, rules may delay, drop, alter or answer messages, answer
    with HTTP errors, drip or cut event streams; what each peer saw is recorded.
    """
    from inspector.proxy_run import ProxyOptions, run_proxy

    run_proxy(options(ProxyOptions, locals()))


def pause(
    session: Annotated[str, typer.Argument(help="The live session (id, name or `last`).")],
    db: DbOption = None,
) -> None:
    """Pause recording a live session: bytes keep flowing, nothing is recorded until `resume`.

    Signals the wrap or proxy that records it (SIGUSR1; a proxy pauses all its sessions). The
    session shows where recording paused. Works on the host the session is recorded on.
    """
    from inspector.recording_control import switch_command

    switch_command(open_store(db, create=False), session, paused=True)


def resume(
    session: Annotated[str, typer.Argument(help="The paused session (id, name or `last`).")],
    db: DbOption = None,
) -> None:
    """Resume recording a session paused with `pause`, the UI or SIGUSR1 (SIGUSR2)."""
    from inspector.recording_control import switch_command

    switch_command(open_store(db, create=False), session, paused=False)
