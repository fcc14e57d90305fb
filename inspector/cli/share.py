"""The commands that take recordings elsewhere: `export`, `import`, `test` (a folder of
recordings as a test suite) and `lint`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from inspector.cli.common import (
    CommandArgument,
    DbOption,
    MatchOption,
    OtlpContentOption,
    TimeoutOption,
    open_store,
    server_command,
)
from inspector.errors import InspectorError
from inspector.start_up import starting_up

__all__ = ["export", "import_", "lint", "test_recordings"]


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

        raise typer.Exit(otlp_command(open_store(db, create=False), sessions, otlp, content=otlp_content))
    from inspector.share.commands import export_command

    raise typer.Exit(export_command(open_store(db, create=False), sessions, fmt=fmt, output=output))


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

    raise typer.Exit(import_command(open_store(db), files))


def test_recordings(
    recordings: Annotated[
        str, typer.Argument(help="A folder of *.mcp.jsonl recordings (searched below too).")
    ],
    command: CommandArgument = None,
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
    match: MatchOption = "strict",
    timeout: TimeoutOption = 30.0,
) -> None:
    """Replay every recording of a folder against a server, as a test suite (for any CI).

    Each recording (from `export` or the pytest plugin) is replayed against the command or URL
    and its behaviour diffed; a line per recording, a summary and a JUnit XML report. Secrets
    come from the environment ($MCP_INSPECTOR_SECRET_NAME), as for `replay`.

    Exit status: 0 every recording passed, 1 some changed or could not run, 2 none could run.
    """
    from inspector.share.suite import run_suite

    command = server_command(command)
    if bool(command) == bool(url):
        raise InspectorError("test needs a target: either --url URL or -- COMMAND [ARGS...]")
    raise typer.Exit(
        run_suite(
            Path(recordings),
            url or command,
            junit=Path(junit_xml) if junit_xml else None,
            calibrate=calibrate,
            ignore=tuple(ignore or ()),
            match=match,
            timeout=timeout,
        )
    )


def lint(
    session: Annotated[str, typer.Argument(help="A session id, name, or 'last'.")],
    db: DbOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the findings as JSON.")] = False,
    min_severity: Annotated[
        str, typer.Option(help="Show only findings this severe: error, warning or info.")
    ] = "info",
) -> None:
    """Check a session against its protocol revision (exit 1 when there are errors)."""
    with starting_up():  # the command's modules: start-up, with the collector off (`start_up.starting_up`)
        from inspector.command_setup import open_db_store
        from inspector.lint.report import lint_command

    raise typer.Exit(
        lint_command(open_db_store(db, create=False), session, json_out=json_out, min_severity=min_severity)
    )
