"""The console script (`inspector.entry.main`) starts with Python's cyclic garbage collector off
(start-up allocates much and frees little: a tenth of a read command's CPU) and runs the command
with it on, start-up's objects frozen: a long-running command (`ui`, `proxy`) must collect its
cycles. In-process callers of the CLI (`inspector.cli.main`, the tests) keep theirs as it was."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

from tests.cli_in_process import run
from tests.sessions import load

# At exit: is the collector on, and were start-up's objects frozen?
PROBE = """
import atexit, gc, sys
atexit.register(lambda: print("gc", gc.isenabled(), gc.get_freeze_count() > 0, file=sys.stderr))
sys.argv = ["mcp-inspect", *sys.argv[1:]]
from inspector.entry import main
main()
"""


def _gc_state(tmp_path: Path, *args: str) -> str:
    db = tmp_path / "demo.db"
    if not db.exists():
        load(db, "demo", name="demo")
    env = {**os.environ, "MCP_INSPECTOR_DB": str(db), "COLUMNS": "120"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, env=env, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return next(line for line in done.stderr.decode().splitlines() if line.startswith("gc "))


def test_a_command_runs_with_the_collector_on_and_start_up_frozen(tmp_path: Path) -> None:
    assert _gc_state(tmp_path, "sessions") == "gc True True"
    assert _gc_state(tmp_path, "config", "path") == "gc True True"  # a group's command too


def test_the_cli_in_process_leaves_the_callers_collector_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    load(db, "demo", name="demo")
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    ran = run("sessions", "--db", str(db))
    assert ran.returncode == 0, ran.stderr
    assert gc.isenabled() and gc.get_freeze_count() == frozen
