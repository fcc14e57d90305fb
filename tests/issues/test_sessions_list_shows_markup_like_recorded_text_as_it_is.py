"""`mcp-inspect sessions` printed a session's kind and protocol version (recorded or imported text)
as Rich markup: an imported session whose kind was `[/]` made the list a MarkupError traceback, and
`[bold]` in a version vanished into styling. They are shown as the text they are, as the name is."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson

from inspector.share.importer import import_jsonl
from inspector.store import open_engine
from tests.cli_in_process import Ran
from tests.sessions import lines


def _load_odd(db: Path) -> None:
    out = []
    for line in lines("demo"):
        if b'"type":"session"' in line:
            record = orjson.loads(line)
            record |= {"kind": "[/]", "protocol_version": "[bold]2025-11-25[/bold]"}
            line = orjson.dumps(record)
        out.append(line)
    engine = open_engine(db)
    try:
        import_jsonl(engine, out, source="odd")
    finally:
        engine.dispose()


def test_markup_like_kind_and_version_are_printed_as_text(
    tmp_path: Path, mcp_inspect: Callable[..., Ran]
) -> None:
    db = tmp_path / "odd.db"
    _load_odd(db)
    ran = mcp_inspect("sessions", "--db", str(db), env={"COLUMNS": "120"})
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    row = next(line for line in ran.stdout.splitlines() if line.lstrip().startswith("1 "))
    assert "[/]" in row
    assert "[bold]2025-11-25[/bold]" in row
    # the columns still line up: the header's `kind` starts where the row's kind does
    header = next(line for line in ran.stdout.splitlines() if " kind " in line)
    assert header.index("kind") == row.index("[/]")
