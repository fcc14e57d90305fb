"""`replay` and `diff` printed the 16 default ignored paths after every report.

The readable report now says "16 default ignores, --verbose to list" (plus any `--ignore` of the
user's, listed), `--verbose` lists them all, and `--help` (and the docs, docs/how-to/replay-diff.md) explain the `!`
negation of an ignore pattern.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from inspector.replay.diff import DEFAULT_IGNORE
from tests.integration.test_replay import _record

DEMO = [sys.executable, "-m", "inspector.demo"]
CLI = [sys.executable, "-m", "inspector"]
ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120)


def test_diff_counts_the_default_ignores(db_path: Path) -> None:
    a = str(_record(db_path, DEMO, "demo"))
    out = _cli("diff", a, a, "--db", str(db_path), "--ignore", "**.when")
    assert out.returncode == 0, out.stderr
    assert f"{len(DEFAULT_IGNORE)} default ignores, --verbose to list" in out.stdout
    assert "**.when" in out.stdout  # the user's own patterns are still listed
    assert "**.progressToken" not in out.stdout
    verbose = _cli("diff", a, a, "--db", str(db_path), "--verbose")
    assert verbose.returncode == 0 and "**.progressToken" in verbose.stdout


def test_help_and_readme_document_negation() -> None:
    for command in ("replay", "diff"):
        out = _cli(command, "--help")
        assert out.returncode == 0
        assert "leading !" in " ".join(out.stdout.split()), out.stdout
        assert "--verbose" in out.stdout
    assert "starting with `!`" in (ROOT / "docs" / "how-to" / "replay-diff.md").read_text()
