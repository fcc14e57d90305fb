"""`wrap -- /nonexistent` exited 2 and left a session with no exit status.

A host running the wrapped command saw a different failure than without the shim (a shell says 127
for a command that is not found, 126 for one that cannot be executed), and `sessions` / the UI
showed an ended session with an empty exit column. Now the shim exits 127 or 126 like a shell,
says why on stderr (with the session id), and records the same status and the spawn error as the
session's end (exit status and end reason, which `sessions` and the UI's session header show).
"""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from inspector.store import open_engine
from tests.shim_process import only_session
from tests.warm_peers import warm_wrap_argv


def _not_executable(tmp_path: Path) -> Path:
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\necho hello\n")
    script.chmod(stat.S_IRUSR | stat.S_IWUSR)
    return script


@pytest.mark.parametrize(
    ("command", "status", "why"),
    [
        ("/nonexistent/server", 127, "No such file"),
        ("no-such-mcp-server-anywhere", 127, "No such file"),
        (None, 126, "Permission denied"),
    ],
)
def test_spawn_failure_exits_like_a_shell_and_is_recorded(
    db_path: Path, tmp_path: Path, command: str | None, status: int, why: str
) -> None:
    argv = warm_wrap_argv(db_path, command or str(_not_executable(tmp_path)))
    out = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert out.returncode == status, out.stderr
    assert "cannot start" in out.stderr and why in out.stderr and "Traceback" not in out.stderr
    engine = open_engine(db_path, create=False)
    session = only_session(engine)
    engine.dispose()
    assert session.status == "ended" and session.message_count == 0
    assert session.exit_status == status
    assert (
        session.end_reason is not None and "spawn failed" in session.end_reason and why in session.end_reason
    )
    assert f"session {session.id}" in out.stderr
