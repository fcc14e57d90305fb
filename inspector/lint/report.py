"""`mcp-inspect lint` output: a Rich table (or JSON) of a session's findings, a summary, the exit status.

The one printing module of `inspector.lint` (the CLI registers it in a few
lines). Exit status: 0 without errors, 1 with errors, 2 for bad input
(raised as `InspectorError`, which the CLI turns into 2).
"""

from __future__ import annotations

import sys

import orjson
from rich.console import Console
from rich.table import Table
from rich.text import Text
from sqlalchemy import Engine

from inspector.errors import InspectorError
from inspector.lint.findings import SEVERITIES, Finding, at_least
from inspector.lint.stored import lint_session
from inspector.store import get_session

__all__ = ["EXIT_CLEAN", "EXIT_ERRORS", "lint_command", "summary"]

EXIT_CLEAN, EXIT_ERRORS = 0, 1
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
        text = Text(f.explanation)
        text.append(f"\n{f.spec_section}", style="dim")
        table.add_row(str(f.seq), Text(f.severity, style=_STYLE[f.severity]), f.rule, f.revision or "-", text)
    return table


def lint_command(engine: Engine, ref: str, *, json_out: bool = False, min_severity: str = "info") -> int:
    """Lint a session (id, name or `last`), print its findings, return the exit status."""
    if min_severity not in SEVERITIES:
        raise InspectorError(f"--min-severity must be one of {', '.join(SEVERITIES)}, not {min_severity!r}")
    session = get_session(engine, ref)
    assert session.id is not None
    findings = lint_session(engine, session.id)
    shown = [f for f in findings if at_least(f.severity, min_severity)]
    counts = summary(findings)
    if json_out:
        doc = {"session": session.id, "summary": counts, "findings": [f.to_json() for f in shown]}
        sys.stdout.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        console = Console(highlight=False)
        name = f" ({session.name})" if session.name else ""
        console.print(
            f"[bold]session {session.id}{name}[/bold], protocol {session.protocol_version or 'unknown'}"
        )
        if shown:
            console.print(_table(shown))
        parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 and s != 'info' else ''}" for s in SEVERITIES]
        verdict = "[red]not conformant[/red]" if counts["error"] else "[green]no errors[/green]"
        console.print(f"{', '.join(parts)}: {verdict}")
    return EXIT_ERRORS if counts["error"] else EXIT_CLEAN
