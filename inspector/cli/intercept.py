"""`mcp-inspect intercept`: see and resolve paused messages, and change fault rules, from a terminal.

The commands talk to the control channels of the running `wrap`/`proxy`
processes started with `--intercept` (or `--faults`), found in the runtime
directory (`inspector.control.remote`); `intercept rules ...` is `cli/intercept_rules.py`.
This module imports only Typer at
load time (`mcp-inspect --help` stays fast); each command imports what it
uses. Recorded names are shown through `inspector.terminal_text` (controls escaped, markup
escaped). Output fits 80 columns; every failure is one red line and exit status 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from inspector.help_text import HELP
from inspector.terminal_text import markup_safe, visible, visible_json

if TYPE_CHECKING:
    from rich.console import Console

    from inspector.control.remote import Process, Remote

__all__ = ["app"]

app = typer.Typer(
    name="intercept",
    help="Drive live interception: list, forward, drop, edit or answer paused messages, change rules.",
    no_args_is_help=True,
    **HELP,
)

PidOption = Annotated[
    int | None,
    typer.Option("--pid", help="The intercepting process (when several run): its pid, as `list` shows."),
]
SessionOption = Annotated[
    int | None, typer.Option("--session", "-s", help="The process recording this session id.")
]
IdArgument = Annotated[str, typer.Argument(help="A paused message's id as `list` shows it (p3, or PID:p3).")]
WIDTH = 80


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False, width=min(WIDTH, Console().width))


def _remote(pid: int | None, session: int | None) -> Remote:
    from inspector.control.remote import Remote

    return Remote(pid=pid, session=session)


def _target(value: Any) -> str:
    if isinstance(value, list):
        import shlex

        return shlex.join(str(v) for v in value)
    return str(value or "?")


def _cut(text: str, width: int) -> str:
    """`text` as shown (a recorded name's control characters escaped), cut to `width` columns."""
    text = visible(text)
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _label(p: dict[str, Any]) -> str:
    arrow = {"c2s": "C→S", "s2c": "S→C"}.get(p.get("direction", ""), "?")
    what = p.get("method") or p.get("kind") or "?"
    if p.get("name"):
        what += f" {p['name']}"
    return f"{arrow} {p.get('kind') or '?'} {what}"


def _pending_id(process: Process, p: dict[str, Any], several: bool) -> str:
    return f"{process.pid}:{p['id']}" if several else str(p["id"])


def _print_process(console: Console, process: Process, several: bool, *, rules: bool) -> None:
    state = process.state
    sessions = ", ".join(str(s) for s in state.get("sessions") or []) or "none yet"
    console.print(
        f"[bold]{markup_safe(str(state.get('kind', '?')))}[/bold] pid {process.pid} · sessions {sessions} · "
        f"breakpoints {'on' if state.get('breakpoints') else 'off'} · seed {state.get('seed')}"
    )
    console.print(f"  [dim]{markup_safe(_cut(_target(state.get('target')), WIDTH - 2))}[/dim]")
    if rules:
        _print_rules(console, state)
    pending = state.get("pending") or []
    if not pending:
        console.print("  [dim]no paused message[/dim]")
        return
    for p in pending:
        ident = _pending_id(process, p, several)
        left = f"{p.get('seconds_left', 0):4.0f}s"
        room = WIDTH - 4 - len(ident) - 1 - len(left) - 1
        console.print(
            f"  [bold cyan]{markup_safe(ident)}[/bold cyan] {markup_safe(_cut(_label(p), room))} [yellow]{left}[/yellow]"
        )


def _print_rules(console: Console, state: dict[str, Any]) -> None:
    rules = state.get("rules") or []
    if not rules:
        console.print("  [dim]no rules[/dim]")
        return
    for r in rules:
        mark = "[green]on [/green]" if r.get("enabled") else "[dim]off[/dim]"
        hits = f"{r.get('hits', 0)} hit{'s' if r.get('hits', 0) != 1 else ''}"
        match = _match_text(r.get("match") or {})
        line = f"{r.get('name')}: {r.get('action')} {match}"
        console.print(f"  {mark} {markup_safe(_cut(line, WIDTH - 6 - len(hits) - 2))}  [dim]{hits}[/dim]")


def _match_text(match: dict[str, Any]) -> str:
    parts = []
    for key, value in match.items():
        if value in (None, [], ""):
            continue
        shown = ",".join(str(v) for v in value) if isinstance(value, list) else str(value)
        parts.append(f"{key}={shown}")
    return " ".join(parts) or "(every message)"


def _fail(message: str) -> NoReturn:
    from inspector.errors import InspectorError

    raise InspectorError(message)


@app.command("list")
def list_(pid: PidOption = None, session: SessionOption = None) -> None:
    """List the intercepting processes and their paused messages (id, what, seconds left)."""
    with _remote(pid, session) as remote:
        found = remote.processes()
        if not found:
            _fail(remote._none())
        console = _console()
        for process in found:
            _print_process(console, process, len(found) > 1, rules=False)


@app.command()
def show(
    message: Annotated[
        str | None,
        typer.Argument(help="A paused message's id: print it in full. Without: every process's state."),
    ] = None,
    pid: PidOption = None,
    session: SessionOption = None,
) -> None:
    """Show a paused message in full (its JSON), or each process's rules and queue."""
    import orjson

    with _remote(pid, session) as remote:
        if message is None:
            found = remote.processes()
            if not found:
                _fail(remote._none())
            console = _console()
            for process in found:
                _print_process(console, process, len(found) > 1, rules=True)
            return
        process, p = remote.find_pending(message)
    console = _console()
    console.print(
        f"[bold]{markup_safe(p['id'])}[/bold] {markup_safe(_label(p))} · rule {markup_safe(p.get('rule'))}"
        f" · {p.get('seconds_left', 0):.0f}s left · pid {process.pid}"
    )
    try:
        text = visible_json(orjson.dumps(orjson.loads(p["raw"]), option=orjson.OPT_INDENT_2).decode())
    except orjson.JSONDecodeError:
        text = visible(p["raw"], keep_layout=True)
    sys.stdout.write(text.rstrip("\n") + "\n")


def _resolve(message: str, body: dict[str, Any], pid: int | None) -> None:
    with _remote(pid, None) as remote:
        process, p = remote.find_pending(message)
        done = remote.resolve(process, p["id"], body)
    verb = {"forward": "forwarded", "drop": "dropped", "edit": "edited and forwarded", "respond": "answered"}
    _console().print(f"{markup_safe(p['id'])} ({markup_safe(_cut(_label(p), 50))}): {verb[done['action']]}")


@app.command()
def forward(message: IdArgument, pid: PidOption = None) -> None:
    """Let a paused message go on unchanged."""
    _resolve(message, {"action": "forward"}, pid)


@app.command()
def drop(message: IdArgument, pid: PidOption = None) -> None:
    """Drop a paused message: the peer never receives it."""
    _resolve(message, {"action": "drop"}, pid)


@app.command()
def edit(
    message: IdArgument,
    raw: Annotated[
        str | None,
        typer.Option("--raw", help="The message to send instead, as JSON (else $EDITOR opens it)."),
    ] = None,
    pid: PidOption = None,
) -> None:
    """Change a paused message, then forward it: with --raw JSON, or in $EDITOR (then save and quit)."""
    import orjson

    if raw is None:
        with _remote(pid, None) as remote:
            _process, p = remote.find_pending(message)
        raw = _edit_in_editor(p["raw"])
        if raw is None:
            _fail("nothing changed: the message stays paused (forward or drop it, or edit again)")
    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        _fail(f"not valid JSON, nothing sent: {exc}")
    _resolve(message, {"action": "edit", "raw": raw}, pid)


def _edit_in_editor(original: str) -> str | None:
    """The text after the user edited it in $VISUAL/$EDITOR (None when unchanged)."""
    import shlex
    import tempfile

    import orjson

    try:
        text = orjson.dumps(orjson.loads(original), option=orjson.OPT_INDENT_2).decode() + "\n"
    except orjson.JSONDecodeError:
        text = original
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    fd, path = tempfile.mkstemp(prefix="mcp-intercept-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        try:
            code = subprocess.call([*shlex.split(editor), path])
        except OSError as exc:
            _fail(f"cannot run the editor {editor!r} ($EDITOR): {exc.strerror}; use --raw JSON instead")
        if code != 0:
            _fail(f"the editor exited with status {code}: nothing sent")
        with open(path) as f:
            edited = f.read()
    finally:
        os.unlink(path)
    return None if edited.strip() == text.strip() else edited


@app.command()
def respond(
    message: IdArgument,
    result: Annotated[str | None, typer.Option("--result", help="Answer with this result (JSON).")] = None,
    error: Annotated[
        tuple[int, str] | None,
        typer.Option(
            "--error", metavar="CODE MESSAGE", help="Answer with this JSON-RPC error, e.g. -32603 'boom'."
        ),
    ] = None,
    data: Annotated[str | None, typer.Option("--data", help="The error's data (JSON), with --error.")] = None,
    pid: PidOption = None,
) -> None:
    """Answer a paused request yourself (the peer never sees it): --result JSON or --error CODE MESSAGE."""
    import orjson

    if (result is None) == (error is None):
        _fail("respond needs exactly one of --result JSON or --error CODE MESSAGE")
    body: dict[str, Any] = {"action": "respond"}
    if result is not None:
        try:
            body["result"] = orjson.loads(result)
        except orjson.JSONDecodeError as exc:
            _fail(f"--result is not valid JSON: {exc}")
        if not isinstance(body["result"], dict):
            _fail("--result must be a JSON object, e.g. '{\"content\": []}'")
    else:
        assert error is not None
        body["error"] = {"code": error[0], "message": error[1]}
        if data is not None:
            try:
                body["error"]["data"] = orjson.loads(data)
            except orjson.JSONDecodeError as exc:
                _fail(f"--data is not valid JSON: {exc}")
    _resolve(message, body, pid)


@app.command()
def breakpoints(
    on: Annotated[str, typer.Argument(help="on or off", metavar="on|off")],
    pid: PidOption = None,
    session: SessionOption = None,
) -> None:
    """Turn breakpoints (the pause rules) on or off."""
    if on not in ("on", "off"):
        _fail(f"say on or off, not {on!r}")
    with _remote(pid, session) as remote:
        process = remote.one()
        remote.call(process.reg, "POST", "/breakpoints", {"on": on == "on"})
    _console().print(f"breakpoints {on} (pid {process.pid})")


@app.command()
def watch(
    pid: PidOption = None,
    session: SessionOption = None,
    editor: Annotated[bool, typer.Option(help="e opens $EDITOR on the selected message.")] = True,
) -> None:
    """Follow the paused messages live and act with single keys (a terminal only).

    Keys: f forward, d drop, e edit in $EDITOR, r respond (type a result as JSON, or CODE MESSAGE
    for an error), j/k or the arrows select, b breakpoints on/off, q quit.
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        _fail("watch reads single keys: run it in a terminal (use list, forward, drop ... in scripts)")
    from inspector.control.watch import Watch

    with _remote(pid, session) as remote:
        Watch(remote, _console(), editor=editor, edit_text=_edit_in_editor).run()
