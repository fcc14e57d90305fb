"""`show`, `sessions` and `lint` broke their output mid-phrase at 80 columns.

`sessions` folded a long name over several lines of its last column; `lint` squeezed its
explanations into a column of about 20 characters, folding words and URLs
(`modelcontextprotocol/c` / `lientCapabilities`, `.../speci` / `fication/...`); `show` wrapped a long
command line in its header and cut an error row's code away. Now each fits 80 columns: one line per
session (the name cut with an ellipsis, the version column dropped), one line per timeline row (the
clock dropped, the error code kept before the flags), and lint findings as blocks wrapped at words
with spec pages shortened to revision/path. Rendered here at COLUMNS=80 on real recordings (an SDK
server with a long command line that exits mid-session; server-everything answering with id null
over Streamable HTTP; both checked in as a session file): no line longer than 80, and no word
broken across lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.cells import cell_len

from inspector.lint import findings_of
from inspector.store import open_engine
from tests.cli_in_process import Ran
from tests.sessions import load

LONG_NAME = "a recording of the exiting server with a name much longer than any column"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Sessions 1 and 2 of tests/data/sessions/exiting_and_null_id_error.jsonl: recorded through
    `wrap` (an SDK client calling `echo`, then `crash`, of tests/peers/exiting_server.py started as
    `python exiting_server.py --with some-long-argument-words`, named LONG_NAME) and through `proxy`
    (DISCOVER posted to server-everything's Streamable HTTP), then exported (paths made neutral)."""
    db = tmp_path_factory.mktemp("columns") / "rec.db"
    load(db, "exiting_and_null_id_error")
    return db


@pytest.fixture
def run(mcp_inspect: Callable[..., Ran]) -> Callable[..., list[str]]:
    """`mcp-inspect ARGS --db DB` at COLUMNS=80 (in-process): its stdout's lines."""

    def run(db: Path, *args: str) -> list[str]:
        out = mcp_inspect(*args, "--db", str(db), env={"COLUMNS": "80"})
        assert out.returncode in (0, 1), out.stderr
        return out.stdout.splitlines()

    return run


def _fits(lines: list[str]) -> None:
    too_long = [f"{cell_len(line)}: {line}" for line in lines if cell_len(line) > 80]
    assert too_long == [], "\n".join(too_long)


def _whole(words: str, lines: list[str]) -> None:
    """Every word of `words` is on one line, whole (or the line's last word, cut with an ellipsis)."""
    shown = {w for line in lines for w in line.split()}
    for word in words.split():
        cut = [w for w in shown if w.endswith("…") and word.startswith(w[:-1])]
        assert word in shown or cut, f"{word!r} is broken: {lines}"


def test_sessions_fit(recorded: Path, run: Callable[..., list[str]]) -> None:
    lines = run(recorded, "sessions")
    _fits(lines)
    row = next(line for line in lines if line.split()[:1] == ["1"])
    name = row.split("  ")[-1].strip()
    assert name.endswith("…") and LONG_NAME.startswith(name[:-1]), row  # cut, on the same line
    assert "stdio-wrap" in row and " 3 " in row  # kind and exit status kept
    assert not any(line.split()[:1] == ["name"] for line in lines)


def test_show_fits(recorded: Path, run: Callable[..., list[str]]) -> None:
    for session in ("1", "2"):
        lines = run(recorded, "show", session)
        _fits(lines)
        rows = [line for line in lines if re.match(r"\s+\d+ (\S+ )?[CS]→[CS] ", line)]
        assert len(rows) >= 2, lines
    lines = run(recorded, "show", "2")
    error = next(line for line in lines if " error " in line)
    assert "code -32000" in error, error  # the code survives; the flags after it may be cut
    header = run(recorded, "show", "1")[0]
    assert header.startswith("session 1 stdio-wrap ") and header.endswith("…"), header


def test_lint_fits(recorded: Path, run: Callable[..., list[str]]) -> None:
    for session in ("1", "2"):
        lines = run(recorded, "lint", session)
        _fits(lines)
        engine = open_engine(recorded, create=False)
        findings = findings_of(engine, int(session))
        engine.dispose()
        for f in findings:
            _whole(f.explanation, lines)
            assert any(f.rule in line for line in lines)
    lines = run(recorded, "lint", "2")
    assert any("spec 2026-07-28/" in line for line in lines), lines
