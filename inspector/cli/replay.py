"""The commands that compare behaviour: `replay` (a recording against a server), `diff` (two
recordings) and `versions` (a server under each protocol revision)."""

from __future__ import annotations

from typing import Annotated

import typer

from inspector.cli.common import (
    AuthNonInteractiveOption,
    AuthOption,
    AuthWaitOption,
    CaBundleOption,
    ClientCertOption,
    ClientIdOption,
    ClientKeyOption,
    ClientMetadataUrlOption,
    ClientSecretOption,
    CommandArgument,
    DbOption,
    HeaderOption,
    InsecureOption,
    KeepSecretsOption,
    MatchOption,
    RedactOption,
    RedactPathOption,
    ScopeOption,
    SecretOption,
    StrictVolatileOption,
    TimeoutOption,
    VerboseOption,
    auth_request,
    open_store,
    outbound,
    parse_headers,
    parse_secrets,
    redaction,
    server_command,
)
from inspector.errors import InspectorError

__all__ = ["diff", "replay", "versions"]


def replay(
    session: Annotated[
        str, typer.Argument(help="The recording to replay: a session id, 'last', or a session name.")
    ],
    command: CommandArgument = None,
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
    verbose: VerboseOption = False,
    strict_volatile: StrictVolatileOption = False,
    match: MatchOption = "strict",
    header: Annotated[
        list[str] | None,
        typer.Option(metavar="HEADER", help="An HTTP header for the target, 'Name: value' (repeatable)."),
    ] = None,
    secret: SecretOption = None,
    timeout: TimeoutOption = 30.0,
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
    rate: Annotated[
        float | None,
        typer.Option(metavar="N", help="Load: send N messages a second (open loop); no diff."),
    ] = None,
    as_recorded: Annotated[
        bool,
        typer.Option("--as-recorded", help="Load: keep the recorded gaps between messages."),
    ] = False,
    max_pace: Annotated[
        bool,
        typer.Option("--max", help="Load: send each message as soon as a slot is free."),
    ] = False,
    concurrency: Annotated[
        int | None,
        typer.Option(
            metavar="K",
            help="Load: at most K requests in flight (--max: default 1; else no bound).",
        ),
    ] = None,
    speed: Annotated[
        float | None,
        typer.Option(metavar="X", help="Load --as-recorded: X times as fast as recorded."),
    ] = None,
    repeat: Annotated[
        int | None,
        typer.Option(metavar="N", help="Load: send the recorded messages N times (default 1)."),
    ] = None,
    duration: Annotated[
        float | None,
        typer.Option(metavar="S", help="Load: send them round and round for S seconds."),
    ] = None,
) -> None:
    """Re-drive a server with a recorded client and diff its behaviour against the recording.

    With --url and --auth a 401 starts the OAuth flow of the recording's revision (as `call
    --auth` does); a token from an earlier run is reused. The recorded Authorization header, if
    any, is not sent then.

    Exit status: 0 behaviour unchanged, 1 changed, 2 the replay could not run. The replay is
    recorded as a new session (kind `replay`) linked to the original.

    As load (--rate N, --as-recorded or --max): the handshake once, then the recorded client
    messages at that pace (--repeat N times, or for --duration S), and a report of latency
    percentiles and errors per method (those of `mcp-inspect stats` over the replay's session)
    instead of a diff. Exit status then: 0 every request answered, 1 some were not, 2 the replay
    could not run.
    """
    from inspector.replay.load import load_mode

    load = load_mode(
        rate=rate,
        as_recorded=as_recorded,
        max_pace=max_pace,
        concurrency=concurrency,
        speed=speed,
        repeat=repeat,
        duration=duration,
    )
    if load is not None:
        diffing = [
            name
            for name, on in (
                ("--calibrate", calibrate),
                ("--ignore", bool(ignore)),
                ("--strict-volatile", strict_volatile),
                ("--verbose", verbose),
            )
            if on
        ]
        if diffing:
            raise InspectorError(f"{', '.join(diffing)} shape the diff; a load replay has none")
    command = server_command(command)
    if bool(command) == bool(url):
        raise InspectorError("replay needs a target: either --url URL or -- COMMAND [ARGS...]")
    redaction(redact, redact_path, keep_secrets)
    outbound(url, ca_bundle, client_cert, client_key, insecure)
    wanted = auth_request(
        auth, url, client_id, client_secret, client_metadata_url, scope, auth_non_interactive, auth_wait
    )
    headers = parse_headers(header)
    store = open_store(db, create=False)
    if load is not None:
        from inspector.cli.load_output import run_load

        raise typer.Exit(
            run_load(
                store,
                session,
                url or command,
                load,
                match=match,
                headers=headers,
                secrets=parse_secrets(secret),
                timeout=timeout,
                auth=wanted,
                json_out=json_out,
            )
        )
    from inspector.replay.report import replay_and_diff

    code = replay_and_diff(
        store,
        session,
        url or command,
        calibrate=calibrate,
        ignore=tuple(ignore or ()),
        match=match,
        headers=headers,
        secrets=parse_secrets(secret),
        timeout=timeout,
        json_out=json_out,
        verbose=verbose,
        strict_volatile=strict_volatile,
        auth=wanted,
    )
    raise typer.Exit(code)


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
    verbose: VerboseOption = False,
    strict_volatile: StrictVolatileOption = False,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the report as one JSON document: the summary (buckets, latency), the "
            "counts, then the exchanges that differ (or were intervened on), each with its index "
            "in the whole report.",
        ),
    ] = False,
    all_exchanges: Annotated[
        bool, typer.Option("--all", help="List the equal exchanges too (text and --json).")
    ] = False,
) -> None:
    """Semantic diff of two recorded sessions (exit 1 when their behaviour differs).

    The report opens with the runs compared: the exchanges that regressed, were fixed, are new,
    removed, changed, volatile or unchanged, and each method's p50 / p95 latency in both. It
    counts every exchange and lists those that differ: a long session that mostly agrees gives a
    short report. --all lists every exchange."""
    from inspector.replay.report import diff_recorded

    store = open_store(db, create=False)
    raise typer.Exit(
        diff_recorded(
            store,
            session_a,
            session_b,
            ignore=tuple(ignore or ()),
            json_out=json_out,
            verbose=verbose,
            strict_volatile=strict_volatile,
            all_exchanges=all_exchanges,
        )
    )


def versions(
    command: CommandArgument = None,
    url: Annotated[str | None, typer.Option(help="The server's URL instead of a command.")] = None,
    revisions: Annotated[
        str | None,
        typer.Option(help="Comma-separated revisions (YYYY-MM-DD) to probe. Default: all five known ones."),
    ] = None,
    replay: Annotated[
        str | None,
        typer.Option(help="Also send this recorded session's client requests under each revision."),
    ] = None,
    header: HeaderOption = None,
    secret: SecretOption = None,
    timeout: TimeoutOption = 30.0,
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

    command = server_command(command)
    target = check_target(command, url)
    redaction(redact, redact_path, keep_secrets)
    outbound(url, ca_bundle, client_cert, client_key, insecure)
    wanted = auth_request(
        auth, url, client_id, client_secret, client_metadata_url, scope, auth_non_interactive, auth_wait
    )
    given = parse_secrets(secret)
    store = open_store(db)
    raise typer.Exit(
        run(
            store,
            target,
            revisions=revisions,
            replay=replay,
            timeout=timeout,
            headers=parse_headers(header),
            secrets=given,
            json_out=json_out,
            show_all=show_all,
            auth=wanted,
        )
    )
