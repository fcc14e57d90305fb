"""The commands that play a server's side: `mock-server` (a recording) and `serve` (a scenario)."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

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
    PauseDefaultOption,
    PauseTimeoutOption,
    RedactOption,
    RedactPathOption,
    SeedOption,
    StdioOption,
    access,
    open_store,
    outbound,
    redaction,
)
from inspector.errors import InspectorError

__all__ = ["mock_server", "serve_scenario"]


def mock_server(
    session: Annotated[
        list[str],
        typer.Argument(
            help="The recording to play: a session id, 'last', or a session name; several: a whole "
            "recorded run, each connection answered from the session it fits."
        ),
    ],
    stdio: StdioOption = False,
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

    Several sessions (`mock-server 12 13 14`: every session a proxy recorded during a run, one per
    client connection) are played as one server: each connection gets its own copy, and each of its
    messages is answered from the recording it fits best (the same params, the 2026-07-28 `_meta`
    client identity included; then the session that matched most of its earlier messages; then
    the order given), so a stateful exchange gets its own session's answers.
    SIGTERM stops it as Ctrl-C does: its sessions are ended ("mock server stopped"), exit status 0.

    --http listens on loopback only unless --allow-remote. A foreign Host or
    browser Origin gets 403, a POST that is not JSON 415 (docs: Security model).

    --auth (with --http) puts a mock OAuth authorization server in front of
    /mcp, on the same origin; --auth-fault makes it misbehave the ways a
    client must refuse or survive (docs: 'Test a client against a scenario server', serve --auth).
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
    redaction(redact, redact_path, keep_secrets)
    outbound(forward, ca_bundle, client_cert, client_key, insecure, needs_url="--forward")
    options = MockOptions(
        session_ref=session[0],
        also=tuple(session[1:]),
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
    allowed = access(allow_remote, allow_host, allow_origin)
    listen = parse_listen(http) if http else None
    if listen is not None:
        check_bind(listen[0], allow_remote=allowed.allow_remote, option="--http")
    store = open_store(db)
    try:
        status = anyio.run(lambda: run_mock(store, options, http=listen, access=allowed))
    except ValueError as exc:
        raise InspectorError(str(exc)) from None
    except KeyboardInterrupt:
        return
    if status is not None:
        # The recorded server exited: so do we, with its status, at once. The recorder is stopped
        # (everything is written); a thread still blocked reading the client's stdin must not keep
        # the process alive, as the server it stands for is gone.
        sys.stderr.flush()
        store.dispose()
        os._exit(status)


def serve_scenario(
    scenario: Annotated[
        str | None, typer.Argument(help="Scenario file (YAML or JSON); default: the built-in one.")
    ] = None,
    stdio: StdioOption = False,
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
    browser Origin gets 403, a POST that is not JSON 415 (docs: Security model).

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

    allowed = access(allow_remote, allow_host, allow_origin)
    if http:  # refused before the database is opened
        check_bind(parse_listen(http)[0], allow_remote=allowed.allow_remote, option="--http")
    redaction(redact, redact_path, keep_secrets)
    check_runtime_dir()  # before the database is opened: a refused start writes nothing
    serve_command(
        open_store(db),
        scenario,
        stdio=stdio,
        http=http,
        versions=protocol_version or [],
        name=name,
        access=allowed,
        auth=(auth, auth_fault or [], approve),
        faults=(faults, seed, intercept, pause_timeout, pause_default),
    )
