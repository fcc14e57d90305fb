"""`mcp-inspect lint` output: a Rich table (or JSON) of a session's findings, a summary, the exit status.

The one printing module of `inspector.lint` (the CLI registers it in a few
lines). Below `WIDE` columns the table gives way to one block per finding
(its explanation wrapped at words under it, the spec page shortened to its
revision and path, the common address printed once), so that 80 columns
never fold a word or a URL. Exit status: 0 without errors, 1 with errors, 2 for bad input
(raised as `InspectorError`, which the CLI turns into 2).

A session whose stored findings are current (`stored.lint_is_stale`: it has not grown since it was
linted by this inspector's rule set) is not checked again: its stored findings are what a lint
would find, so the output is the same, and no message is validated (no `mcp-types` model loads).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import orjson
from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from inspector.errors import InspectorError
from inspector.lint.findings import SEVERITIES, SPEC_BASE, Finding, at_least
from inspector.lint.stored import findings_of, lint_is_stale, lint_session
from inspector.store import get_session
from inspector.terminal_text import markup_safe, visible, visible_json

if TYPE_CHECKING:
    from inspector.store.db import Store

__all__ = ["EXIT_CLEAN", "EXIT_ERRORS", "lint_command", "summary"]

EXIT_CLEAN, EXIT_ERRORS = 0, 1
WIDE = 120  # columns from which the findings are a table
_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def summary(findings: list[Finding]) -> dict[str, int]:
    """How many findings of each severity."""
    return {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES}


def _table(findings: list[Finding]) -> Table:
    table = Table(box=None, pad_edge=False, show_edge=False, expand=False)
    for name, style in (("seq", "dim"), ("severity", ""), ("rule", "bold"), ("revision", "dim")):
        table.add_column(name, style=style, no_wrap=True, justify="right" if name == "seq" else "left")
    table.add_column("explanation and spec section", overflow="fold")
    for f in findings:
        text = Text(visible(f.explanation))  # it quotes recorded methods and names
        text.append(f"\n{visible(_section(f))}", style="dim")
        table.add_row(
            str(f.seq),
            Text(f.severity, style=_STYLE[f.severity]),
            Text(visible(f.rule)),
            Text(visible(f.revision or "-")),
            text,
        )
    return table


def _section(f: Finding) -> str:
    """The spec section with its page shortened to revision/path (the common address is printed once:
    a whole URL is longer than a narrow column and would be folded mid-word)."""
    return f.spec_section.replace(f"({SPEC_BASE}/", "(spec ")


def _blocks(console: Console, findings: list[Finding]) -> None:
    """The findings for a narrow terminal: a heading line each, then its words wrapped under it."""
    for f in findings:
        head = Text(f"{f.seq:>5}  ", style="dim")
        head.append(f.severity, style=_STYLE[f.severity])
        head.append(f"  {visible(f.rule)}", style="bold")
        head.append(f"  {visible(f.revision or '-')}", style="dim")
        console.print(head, no_wrap=True, overflow="ellipsis")
        console.print(Padding(Text(visible(f.explanation)), (0, 0, 0, 7)))
        section = Text(visible(_section(f)), style="dim")
        console.print(Padding(section, (0, 0, 0, 7)), no_wrap=True, overflow="ellipsis")


def _lint_with_progress(engine: Store, session_id: int, total: int | None) -> list[Finding]:
    """`lint_session` with a transient progress bar on stderr (a terminal only; long sessions)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    err = Console(stderr=True)
    with Progress(
        TextColumn("linting"), BarColumn(), MofNCompleteColumn(), console=err, transient=True,
        disable=not err.is_terminal,
    ) as bar:  # fmt: skip
        task = bar.add_task("lint", total=total or None)
        return lint_session(engine, session_id, progress=lambda n: bar.update(task, completed=n))


def lint_command(engine: Store, ref: str, *, json_out: bool = False, min_severity: str = "info") -> int:
    """Lint a session (id, name or `last`), print its findings, return the exit status."""
    if min_severity not in SEVERITIES:
        raise InspectorError(f"--min-severity must be one of {', '.join(SEVERITIES)}, not {min_severity!r}")
    session = get_session(engine, ref)
    assert session.id is not None
    if lint_is_stale(engine, session.id):
        findings = _lint_with_progress(engine, session.id, session.message_count)
    else:
        findings = findings_of(engine, session.id, relint_if_stale=False)
    shown = [f for f in findings if at_least(f.severity, min_severity)]
    counts = summary(findings)
    if json_out:
        doc = {"session": session.id, "summary": counts, "findings": [f.to_json() for f in shown]}
        sys.stdout.write(visible_json(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode()) + "\n")
    else:
        console = Console(highlight=False)
        name = f" ({markup_safe(session.name)})" if session.name else ""
        console.print(
            f"[bold]session {session.id}{name}[/bold], protocol {markup_safe(session.protocol_version or 'unknown')}"
        )
        if shown and console.width >= WIDE:
            console.print(_table(shown))
        elif shown:
            _blocks(console, shown)
        if shown:
            shortened = Text(f"spec pages: {SPEC_BASE}/REVISION/PATH", style="dim")
            console.print(shortened, no_wrap=True, overflow="ellipsis")
        parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 and s != 'info' else ''}" for s in SEVERITIES]
        verdict = "[red]not conformant[/red]" if counts["error"] else "[green]no errors[/green]"
        console.print(f"{', '.join(parts)}: {verdict}")
    return EXIT_ERRORS if counts["error"] else EXIT_CLEAN
