"""`mcp-inspect mock-server A B ...`: a whole recorded run as one server (the conformance mock leg in
test_conformance_server.py plays one against the suite; the choice itself: tests/unit/test_mock_several_recordings.py)."""

from __future__ import annotations

from pathlib import Path

from tests.cli_in_process import run
from tests.sessions import load


def test_an_unknown_session_among_several_is_a_one_line_error(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    first = load(db, "demo")
    done = run("mock-server", str(first), "999999", "--db", str(db), "--http", "127.0.0.1:0", timeout=30)
    assert done.returncode != 0
    assert "999999" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_help_explains_the_form_with_several_sessions() -> None:
    done = run("mock-server", "--help", env={"COLUMNS": "200"})
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "Several sessions" in text and "answered from the recording it fits best" in text
