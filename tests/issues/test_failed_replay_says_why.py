"""A replay or `versions` probe against a server that exits at once hid why.

`replay` printed only `ConnectionClosed ... before the response to id 1`: not the server's stderr,
not its exit status, not the session the attempt was recorded as. `versions` said "the server's
stdin is closed: " with nothing after the colon. Both now say the server exited, with its status,
and what it wrote on stderr (or that it wrote nothing); `replay` names the recorded session.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from tests.cli_in_process import Ran
from tests.sessions import load

BOOM = [sys.executable, "-c", "import sys; sys.stderr.write('boom: no repository here'); sys.exit(3)"]
SILENT = [sys.executable, "-c", "import sys; sys.exit(4)"]


def test_replay_against_a_server_that_exits_shows_its_stderr_and_status(
    db_path: Path, mcp_inspect: Callable[..., Ran]
) -> None:
    original = load(db_path, "demo", name="demo")  # the demo recorded through `wrap`
    out = mcp_inspect("replay", str(original), "--db", str(db_path), "--", *BOOM)
    assert out.returncode == 2, out.stderr
    assert "exited with status 3" in out.stderr, out.stderr
    assert "boom: no repository here" in out.stderr
    assert f"replay of session {original} recorded as session" in out.stderr
    assert "Traceback" not in out.stderr


def test_replay_against_a_silent_server_says_it_wrote_nothing(
    db_path: Path, mcp_inspect: Callable[..., Ran]
) -> None:
    original = load(db_path, "demo", name="demo")
    out = mcp_inspect("replay", str(original), "--db", str(db_path), "--", *SILENT)
    assert out.returncode == 2, out.stderr
    assert "exited with status 4" in out.stderr and "wrote nothing" in out.stderr, out.stderr


def test_versions_against_a_server_that_exits_says_so(db_path: Path, mcp_inspect: Callable[..., Ran]) -> None:
    for server, said in ((SILENT, "wrote nothing"), (BOOM, "boom: no repository here")):
        out = mcp_inspect("versions", "--db", str(db_path), "--revisions", "2025-06-18", "--", *server)
        text = out.stdout + out.stderr
        assert out.returncode != 0
        assert "closed: \n" not in text and not text.rstrip().endswith("closed:"), text
        assert "exited with status" in text and said in text, text
