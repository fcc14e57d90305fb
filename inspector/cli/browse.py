"""The commands that browse recordings and set up the inspector: `sessions`, `show`, `search`,
`demo`, `ui` (the web UI) and `doctor`."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from inspector.cli.common import (
    AllowHostOption,
    CaBundleOption,
    ClientCertOption,
    ClientKeyOption,
    DbOption,
    InsecureOption,
    KeepSecretsOption,
    NoOpenOption,
    RedactOption,
    RedactPathOption,
    err,
    open_store,
    outbound,
    redaction,
)
from inspector.start_up import starting_up
from inspector.terminal_text import markup_safe, visible_json

if TYPE_CHECKING:
    from inspector.store.db import Db
    from inspector.store.models import Session

__all__ = ["demo", "doctor", "search", "sessions", "show", "ui"]


def _reader(db: str | None) -> Db:
    """The store of `--db` (None: the default one) opened for reading over DB-API (`store.db`)."""
    with starting_up():  # the store's modules: start-up (`start_up.starting_up`)
        from inspector.config import default_db
        from inspector.store.opening import open_db

    return open_db(db or default_db(), create=False)


def sessions(
    db: DbOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    limit: Annotated[int, typer.Option(help="How many sessions to list.")] = 50,
    name: Annotated[
        str | None,
        typer.Option(help="Only sessions whose name contains this (any case), e.g. a gateway route's."),
    ] = None,
    by_host: Annotated[
        bool,
        typer.Option(
            "--by-host",
            help="Group the stdio sessions by the host process that started them (host runs), newest first.",
        ),
    ] = False,
) -> None:
    """List recorded sessions, newest first."""
    if by_host:
        _sessions_by_host(_reader(db), json_out=json_out, limit=limit, name=name)
        return
    with starting_up():  # the command's modules: start-up, with the collector off (`start_up.starting_up`)
        import orjson
        from rich.console import Console

        from inspector.console import sessions_table
        from inspector.store import session_state
        from inspector.store.queries import SessionFilter, find_sessions, session_idle

    found, _total = find_sessions(_reader(db), SessionFilter(name=name), limit=limit)
    if json_out:
        docs = [{**s.to_json(), "state": session_state(s), "idle": session_idle(s)} for s in found]
        sys.stdout.write(visible_json(orjson.dumps(docs, option=orjson.OPT_INDENT_2).decode()) + "\n")
        return
    if not found:
        err().print("No recorded sessions yet. Record one with: mcp-inspect wrap -- COMMAND")
        return
    console = Console()
    console.print(sessions_table(found, console.width))


def _sessions_by_host(store: Db, *, json_out: bool, limit: int, name: str | None) -> None:
    """`sessions --by-host`: the host runs (store/host_runs.py), each with its sessions."""
    with starting_up():  # the command's modules: start-up, with the collector off (`start_up.starting_up`)
        import orjson
        from rich.console import Console

        from inspector.console import host_runs_lines
        from inspector.store import session_state
        from inspector.store.host_runs import host_runs

    runs, _total = host_runs(store, limit=limit, name=name)
    if json_out:
        docs = [
            {**r.summary(), "sessions": [{**s.to_json(), "state": session_state(s)} for s in r.sessions]}
            for r in runs
        ]
        sys.stdout.write(visible_json(orjson.dumps(docs, option=orjson.OPT_INDENT_2).decode()) + "\n")
        return
    if not runs:
        err().print(
            "No host runs yet: a host run is the sessions one host process started through"
            " mcp-inspect wrap (see mcp-inspect install)."
        )
        return
    console = Console(highlight=False)
    for line in host_runs_lines(runs):
        console.print(line, no_wrap=True, overflow="ellipsis")


def _session_to_show(db: str | None, session: str, *, follow: bool, poll: float) -> tuple[Db, Session]:
    """The open store and the session `show` prints. With --follow, a database or session that does not
    exist yet is waited for (as `tail -F` waits for a file): a recorder started a moment earlier
    creates both off its forwarding path."""
    with starting_up():  # the store's modules: start-up, with the collector off (`start_up.starting_up`)
        from inspector.config import default_db
        from inspector.errors import NotFoundError
        from inspector.store import database_url, get_session

    url = database_url(db or default_db())
    path = Path(url.split("///", 1)[1]) if url.startswith("sqlite") else None
    told = False
    while True:
        missing = path is not None and not path.exists()
        if not missing:
            engine = _reader(db)
            try:
                return engine, get_session(engine, session)
            except NotFoundError as exc:
                if not follow:
                    raise
                reason = str(exc)
            engine.dispose()
        elif not follow:
            _reader(db)  # raises the clear "no recording database" error
        else:
            reason = f"no recording database at {path} yet"
        if not told:
            err().print(f"[dim]{markup_safe(reason)}; waiting for it (Ctrl-C to stop) ...[/dim]")
            told = True
        time.sleep(poll)


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
    """Show a session's timeline: seq, time, direction, kind, method, id, latency, size.

    A stdio server's stdout lines that no client reads carry their class (log line, banner, pretty
    JSON, ...; with --json: what clients do with it and the fix), and a request the server crashed
    on says so (`protocol.stdout_lines`)."""
    with starting_up():  # the command's modules: start-up, with the collector off (`start_up.starting_up`)
        import orjson
        from rich.console import Console

        from inspector.console import WIDE, message_line, method_width, timeline_header
        from inspector.store import get_session, iter_messages, session_state

    engine, found = _session_to_show(db, session, follow=follow, poll=poll)
    assert found.id is not None
    notes = _stdio_notes(engine, found) if not follow else {}
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
            told = notes.get(m.seq)
            if json_out:
                row = m.to_json()
                if told:
                    row["stdio"] = [n.to_json() for n in told]
                out.write(visible_json(orjson.dumps(row).decode()) + "\n")
            else:
                label = "; ".join(n.label for n in told) if told else None
                console.print(
                    message_line(m, width, clock=clock, label=label), no_wrap=True, overflow="ellipsis"
                )
        out.flush()
        if not follow:
            if not json_out:
                for told in notes.values():
                    for n in told:
                        if n.to_json()["class"] == "server-crashed":
                            console.print(f"[bold red]{markup_safe(n.explain())}[/bold red]", soft_wrap=True)
            break
        current = get_session(engine, found.id)
        if session_state(current) != "recording" and current.message_count <= last:
            if not json_out:
                console.print(
                    f"[dim]session ended: {markup_safe(current.end_reason or current.status)}[/dim]"
                )
            break
        time.sleep(poll)


def _stdio_notes(engine: Db, found: Session) -> dict[int, list[Any]]:
    """The notes of a stdio session's rows (`protocol.stdout_lines.notes_of`), by seq; none for HTTP."""
    if found.kind == "http-proxy":
        return {}
    with starting_up():  # the command's modules: start-up, with the collector off (`start_up.starting_up`)
        from inspector.protocol.stdout_lines import notes_of
        from inspector.store import iter_messages

    assert found.id is not None
    return notes_of(iter_messages(engine, found.id))


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
    with starting_up():  # the command's modules: start-up, with the collector off (`start_up.starting_up`)
        import orjson
        from rich.console import Console

        from inspector.console import WIDE, message_line, method_width
        from inspector.store import get_session, search_messages

    engine = _reader(db)
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
        err().print(f"No message contains {markup_safe(repr(words))}.")


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
    no_open: NoOpenOption = False,
) -> None:
    """Record a demo session: an SDK client drives the bundled demo server through `wrap`, then show it
    in the terminal and in the web UI (until Ctrl-C)."""
    import anyio
    from mcp import StdioServerParameters

    from inspector.config import default_db
    from inspector.demo.driver import drive_demo
    from inspector.store import get_session

    path = db or default_db()
    engine = open_store(path)
    wrapped = [sys.executable, "-m", "inspector", "wrap", "--db", path, "--name", f"demo ({mode})", "--"]
    params = StdioServerParameters(
        command=wrapped[0], args=[*wrapped[1:], sys.executable, "-m", "inspector.demo"]
    )
    from inspector.store.engine import masked_url

    err().print(f"Recording a demo session into {masked_url(path)} ...")
    anyio.run(lambda: drive_demo(params, mode=mode))
    latest = get_session(engine, "last")
    show(str(latest.id), db=path, follow=True, json_out=False, poll=0.1)
    err().print(f"\nBrowse it again with: {sys.argv[0]} show {latest.id} --db {masked_url(path)}")
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


def ui(
    db: DbOption = None,
    host: Annotated[
        str, typer.Option(help="Interface to listen on (loopback unless --allow-remote).")
    ] = "127.0.0.1",
    port: Annotated[int | None, typer.Option(help="Port (default 6290, else a free one).")] = None,
    no_open: NoOpenOption = False,
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

    redaction(redact, redact_path, keep_secrets)
    outbound(None, ca_bundle, client_cert, client_key, insecure, needs_url=None)
    serve(
        open_store(db),
        host=host,
        port=port,
        allow_remote=allow_remote,
        open_browser=not no_open,
        allow_hosts=tuple(allow_host or ()),
    )


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
    of Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI and Codex (wrapped or not, and the
    keys of the entry to change), the database (integrity, revision, size, free space, permissions,
    retention) and the config file. Exit status 0 when all is well, 1 when something needs action.
    """
    from inspector.doctor import doctor_command

    raise typer.Exit(doctor_command(home, project, db, as_json))
