"""`replay` and `diff` printed the 16 default ignored paths after every report.

The readable report now says "16 default ignores, --verbose to list" (plus any `--ignore` of the
user's, listed), `--verbose` lists them all, and `--help` (and the docs, docs/how-to/replay-diff.md) explain the `!`
negation of an ignore pattern.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from inspector.replay.diff import DEFAULT_IGNORE
from tests.cli_in_process import Ran
from tests.sessions import load

ROOT = Path(__file__).resolve().parents[2]


def test_diff_counts_the_default_ignores(db_path: Path, mcp_inspect: Callable[..., Ran]) -> None:
    a = str(load(db_path, "demo", name="demo"))  # the demo recorded through `wrap`
    out = mcp_inspect("diff", a, a, "--db", str(db_path), "--ignore", "**.when")
    assert out.returncode == 0, out.stderr
    assert f"{len(DEFAULT_IGNORE)} default ignores, --verbose to list" in out.stdout
    assert "**.when" in out.stdout  # the user's own patterns are still listed
    assert "**.progressToken" not in out.stdout
    verbose = mcp_inspect("diff", a, a, "--db", str(db_path), "--verbose")
    assert verbose.returncode == 0 and "**.progressToken" in verbose.stdout


def test_help_and_readme_document_negation(mcp_inspect: Callable[..., Ran]) -> None:
    for command in ("replay", "diff"):
        out = mcp_inspect(command, "--help")
        assert out.returncode == 0
        assert "leading !" in " ".join(out.stdout.split()), out.stdout
        assert "--verbose" in out.stdout
    assert "starting with `!`" in (ROOT / "docs" / "how-to" / "replay-diff.md").read_text()
