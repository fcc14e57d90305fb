"""`mcp-inspect versions`: check the input, probe with a progress line, print the matrix, pick the exit status."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import anyio
import orjson
from rich.console import Console
from rich.table import Table
from rich.text import Text
from sqlalchemy import Engine

from inspector.auth.connect import AuthRequest
from inspector.capture.redact import missing_secrets_message
from inspector.errors import InspectorError
from inspector.store import get_session, iter_messages
from inspector.terminal_text import markup_safe, visible, visible_json
from inspector.versions.matrix import parse_revisions
from inspector.versions.probe import run_versions
from inspector.versions.runs import matrix_of_run

__all__ = [
    "EXIT_ALL_PROBED",
    "EXIT_NONE_PROBED",
    "EXIT_SOME_FAILED",
    "check_target",
    "exit_status",
    "versions",
]

EXIT_ALL_PROBED, EXIT_SOME_FAILED, EXIT_NONE_PROBED = 0, 1, 2

_OUTCOME_STYLE = {"accepted": "green", "counter-offer": "yellow", "refused": "red", "failed": "bold red"}


def check_target(command: Sequence[str] | None, url: str | None) -> list[str] | str:
    """The target as the probe takes it; `InspectorError` for a missing, doubled or bad one."""
    if bool(command) == bool(url):
        raise InspectorError("versions needs a target: either --url URL or -- COMMAND [ARGS...]")
    if url is not None:
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise InspectorError(f"--url must be an absolute http:// or https:// URL, got {url!r}")
        return url.strip()
    argv = list(command or [])
    program = argv[0]
    if not program.strip():
        raise InspectorError("the server command's program is empty")
    if shutil.which(program) is None:
        raise InspectorError(f"the server command {program!r} is not an executable file or on PATH")
    return argv


def exit_status(matrix: dict[str, Any]) -> int:
    """0: every revision answered (a refusal is an answer); 1: some got no answer; 2: none did."""
    failed = [c for c in matrix["columns"] if c["outcome"] == "failed"]
    if not failed:
        return EXIT_ALL_PROBED
    return EXIT_NONE_PROBED if len(failed) == len(matrix["columns"]) else EXIT_SOME_FAILED


def versions(
    engine: Engine,
    target: list[str] | str,
    *,
    revisions: str | None = None,
    replay: str | None = None,
    timeout: float = 30.0,
    headers: dict[str, str] | None = None,
    secrets: dict[str, str] | None = None,
    json_out: bool = False,
    show_all: bool = False,
    auth: AuthRequest | None = None,
) -> int:
    """Run the probe for every revision and print the matrix; return the exit status."""
    try:
        chosen = parse_revisions(revisions)
    except ValueError as exc:
        raise InspectorError(f"--revisions: {exc}") from None
    replay_rows = None
    if replay is not None:
        original = get_session(engine, replay)
        assert original.id is not None
        replay_rows = list(iter_messages(engine, original.id))
    err = Console(stderr=True, soft_wrap=True)
    with err.status("probing ...") as status:
        run = anyio.run(
            lambda: run_versions(
                engine,
                target,
                chosen,
                timeout=timeout,
                replay_rows=replay_rows,
                headers=headers,
                secrets=secrets,
                on_progress=lambda text: status.update(text),
                auth=auth,
            )
        )
    if run.missing_secrets:
        print(f"[mcp-inspect] warning: {missing_secrets_message(run.missing_secrets)}", file=sys.stderr)
    matrix = matrix_of_run(engine, run.run_id)
    code = exit_status(matrix)
    if json_out:
        sys.stdout.write(visible_json(orjson.dumps(matrix, option=orjson.OPT_INDENT_2).decode()) + "\n")
    else:
        out = Console()
        for table in matrix_tables(matrix, width=out.width, show_all=show_all):
            out.print(table)
        ids = ", ".join(f"{r}: #{s}" for r, s in run.sessions.items())
        print(f"[mcp-inspect] versions run {run.run_id}; sessions {ids}", file=sys.stderr)
        print("[mcp-inspect] compare two revisions' sessions with: mcp-inspect diff A B", file=sys.stderr)
    if code == EXIT_NONE_PROBED:
        first = matrix["columns"][0]["error"] if matrix["columns"] else None
        err.print(f"[red]error:[/red] no revision could be probed: {markup_safe(first)}")
    return code


def _cell(value: Any) -> str:
    """A matrix value as printed: what the server sent, its control characters shown, not run."""
    if value is None:
        return "—"
    return visible(value)


KEY_WIDTH = 28  # the row-name column; longer names fold
REVISION_WIDTH = 12  # a revision column ("2025-11-25" and short values fit); longer values fold
_BORDERS = 4  # the table's outer border and the key column's separator and padding


def revisions_per_table(width: int) -> int:
    """How many revision columns fit beside the row names in `width` terminal columns."""
    return max(1, (width - KEY_WIDTH - _BORDERS) // (REVISION_WIDTH + 3))


def matrix_tables(matrix: dict[str, Any], *, width: int = 80, show_all: bool = False) -> list[Table]:
    """The matrix as Rich tables that fit `width` columns: every revision is shown, as many per
    table as fit, each table with every row (so a narrow terminal or a pipe loses nothing).

    Field rows equal under every revision are left out unless `show_all`."""
    revs = list(matrix["revisions"])
    n = revisions_per_table(width)
    groups = [revs[i : i + n] for i in range(0, len(revs), n)] or [[]]
    tables = []
    for k, group in enumerate(groups):
        title = f"versions run {matrix['run']}"
        if len(groups) > 1:
            first = k * n + 1
            title += f" (revisions {first}-{first + len(group) - 1} of {len(revs)})"
        tables.append(_table(matrix, group, title, show_all=show_all, last=k == len(groups) - 1))
    return tables


def _table(matrix: dict[str, Any], revs: list[str], title: str, *, show_all: bool, last: bool) -> Table:
    table = Table(title=title, show_lines=False, highlight=False)
    table.add_column("", max_width=KEY_WIDTH, overflow="fold")
    sessions = {r: c["session_id"] for r, c in zip(matrix["revisions"], matrix["columns"], strict=True)}
    for rev in revs:
        table.add_column(f"{rev}\n#{sessions[rev]}", max_width=REVISION_WIDTH, overflow="fold")
    section = None
    hidden = 0
    for row in matrix["rows"]:
        if row["section"] == "fields" and not row["differs"] and not show_all:
            hidden += 1
            continue
        if row["section"] != section:
            section = row["section"]
            table.add_section()
            table.add_row(Text(visible(section), style="bold underline"), *[""] * len(revs))
        cells = []
        for rev in revs:
            value = row["values"].get(rev)
            style = _OUTCOME_STYLE.get(value, "") if row["key"] == "outcome" else ""
            if row["differs"] and not style:
                style = "bold yellow"
            cells.append(Text(_cell(value), style=style))
        key = Text(
            ("* " if row["differs"] else "  ") + visible(row["key"]),
            style="bold yellow" if row["differs"] else "",
        )
        table.add_row(key, *cells)
    if last:
        table.caption = "* differs between revisions that answered" + (
            f"; {hidden} field rows equal everywhere not shown (--all shows them)" if hidden else ""
        )
        table.caption += "; --json prints the whole matrix"
    return table
