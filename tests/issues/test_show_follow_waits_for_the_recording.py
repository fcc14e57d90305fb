"""`show last --follow` started before the recorder has created its database (or its session) waits
for them, as `tail -F` waits for a file, instead of exiting with "no recording database".

The recorder creates the database and the session off its forwarding path, so a follower started
right after the first answer came back could find neither: `show --follow` exited 2 with nothing on
stdout. Here the follower starts first, deterministically before anything is recorded.

Once (CI of stop 29) the follower printed nothing for 120 s: it and the wrap had opened the new,
empty database file at the same moment, and SQLite refused the wrap's switch to WAL ("database is
locked"), so the wrap could not record. See test_a_new_database_is_never_an_empty_file.py."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

from tests.conftest import SCRIPTED
from tests.shim_process import ShimProcess
from tests.warm_peers import inspector_argv, warm_wrap_argv


def _first_line(process: subprocess.Popen[str], within: float) -> str:
    """The process's next stdout line, or "" if none came within `within` s (then the test says
    what the wrap printed instead of hanging until the suite's timeout)."""
    got: list[str] = []
    assert process.stdout is not None
    reader = threading.Thread(target=lambda: got.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(within)
    return got[0] if got else ""


def test_follow_waits_for_a_database_that_does_not_exist_yet(tmp_path: Path) -> None:
    db = tmp_path / "later.db"
    follower = subprocess.Popen(
        inspector_argv("show", "last", "--follow", "--json", "--poll", "0.05", "--db", str(db)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert follower.stdout is not None and follower.stderr is not None
    # The follower says what it waits for before anything exists.
    assert "waiting for it" in follower.stderr.readline()
    assert follower.poll() is None and not db.exists()
    shim = ShimProcess(warm_wrap_argv(db, *SCRIPTED))
    shim.request(1, "first-call")
    shim.read_line()
    line = _first_line(follower, within=90)
    assert line, f"the follower printed nothing; the wrap said: {bytes(shim.stderr_bytes).decode()!r}"
    first = json.loads(line)
    assert first["method"] == "first-call" and first["kind"] == "request"
    shim.close_stdin()
    assert shim.wait() == 0
    assert follower.wait(timeout=60) == 0, "--follow stops by itself when the session ends"
    rest = follower.stdout.read()  # through the same buffer readline() used
    assert [json.loads(line)["kind"] for line in rest.splitlines()] == ["response"]


def test_without_follow_a_missing_database_is_still_one_clear_error(tmp_path: Path) -> None:
    out = subprocess.run(
        inspector_argv("show", "last", "--db", str(tmp_path / "nope.db")),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "no recording database" in out.stderr
    assert not (tmp_path / "nope.db").exists()
