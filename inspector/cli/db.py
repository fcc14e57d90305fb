"""`mcp-inspect db ...`: whole-store commands (today `db copy`), registered in cli/__init__.py.

Only Typer at import time; the store and Rich are imported when a command runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from inspector.help_text import HELP

__all__ = ["app"]

app = typer.Typer(
    name="db",
    help="Work on whole stores: copy sessions between SQLite and PostgreSQL.",
    no_args_is_help=True,
    **HELP,
)


@app.command("copy")
def copy(
    src: Annotated[str, typer.Argument(help="The store to read: an SQLite file or a postgresql:// URL.")],
    dst: Annotated[str, typer.Argument(help="The store to add to (created when it is a new SQLite file).")],
    session: Annotated[
        list[str] | None,
        typer.Option(
            "--session", "-s", help="A session to copy (id, name or `last`); repeat for more. Default: all."
        ),
    ] = None,
) -> None:
    """Copy sessions from SRC to DST: new ids in DST, nothing lost (raw bytes, meta, labels, lint
    findings, parent links). Sessions DST already holds are skipped, so copying again is safe;
    sessions still recording are skipped until they end.

    A password belongs in ~/.pgpass or $PGPASSWORD rather than in the URL (never printed anyway).

    Example: `mcp-inspect db copy recordings/inspector.db postgresql://me@db.internal/mcp`
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from inspector.errors import InspectorError
    from inspector.share.db_copy import copy_sessions
    from inspector.store import open_engine
    from inspector.store.engine import database_url, masked_url

    if database_url(src) == database_url(dst):
        raise InspectorError("SRC and DST are the same store: nothing to copy")
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    source = open_engine(src, create=False)
    target = open_engine(dst)
    with Progress(
        TextColumn("copying"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("messages"),
        console=err,
        transient=True,
    ) as bar:
        task = bar.add_task("copy", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        report = copy_sessions(source, target, session or [], progress=advance)
    where = masked_url(dst)
    if report.copied:
        pairs = ", ".join(f"#{a}->#{b}" for a, b in report.copied.items())
        err.print(
            f"copied {len(report.copied)} session(s), {report.messages:,} messages, to {where}: {pairs}"
        )
    else:
        err.print(f"nothing new to copy to {where}")
    if report.existing:
        pairs = ", ".join(f"#{a} (as #{b})" for a, b in report.existing.items())
        err.print(f"already there, skipped: {pairs}")
    if report.recording:
        err.print(f"still recording, skipped: {', '.join(f'#{i}' for i in report.recording)}")
