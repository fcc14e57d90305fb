"""`versions` cut its matrix at the terminal width: at 80 columns, in a terminal or a pipe, two and
a half of the five revisions showed and the rest was gone, with no word of `--json`.

The matrix is now printed as several tables, as many revisions per table as fit beside the row
names, so every revision shows at 80 columns; the caption says `--json` prints the whole matrix.
The server is the demo (forked warm, tests/warm_peers.py): the matrix's width is its revisions',
whichever server answers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from inspector.protocol.versions import KNOWN_PROTOCOL_VERSIONS
from tests.cli_in_process import Ran
from tests.warm_peers import demo_argv


def test_every_revision_shows_at_80_columns(db_path: Path, mcp_inspect: Callable[..., Ran]) -> None:
    out = mcp_inspect(
        "versions", "--db", str(db_path), "--", *demo_argv(), env={"COLUMNS": "80"}, timeout=180
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, out.stdout
    for revision in KNOWN_PROTOCOL_VERSIONS:
        assert any(revision in line for line in lines if "┃" in line), (revision, out.stdout)
    assert "--json" in out.stdout
