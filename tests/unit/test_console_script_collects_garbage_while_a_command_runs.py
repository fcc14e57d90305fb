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


# How many collections the collector ran while the console script ran `ARGS` (said at exit: `call`
# ends its process in `start_up.leave`, which runs the exit handlers but returns to no caller).
COUNTING = """
import atexit, gc, sys
ran = [0]
gc.callbacks.append(lambda phase, info: ran.__setitem__(0, ran[0] + (phase == "start")))
atexit.register(lambda: print("collections", ran[0], file=sys.stderr))
sys.argv = ["mcp-inspect", *sys.argv[1:]]
from inspector.entry import main
main()
"""

# A stdio server that answers every request with an empty result (what `call ping` needs).
SERVER = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" in msg and "method" in msg:
        result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result if msg["method"] == "initialize" else {}}), flush=True)
"""


def test_calls_start_up_in_its_own_body_is_start_up_too(tmp_path: Path) -> None:
    # `call` loads the recorder, the mock client and asyncio in its body (`call --help` does not):
    # that is start-up too, with the collector off and frozen after. It ran ~37 collections (gen 0
    # and 1) walking those modules' new objects, about a twentieth of the call's CPU; the call
    # itself (a handshake and one ping) needs a handful.
    db = tmp_path / "call.db"
    load(db, "demo", name="demo")
    server = tmp_path / "server.py"
    server.write_text(SERVER)
    env = {**os.environ, "MCP_INSPECTOR_DB": str(db)}
    done = subprocess.run(
        [sys.executable, "-c", COUNTING, "call", "ping", "--", sys.executable, str(server)],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode().strip() == "{}"
    line = next(x for x in done.stderr.decode().splitlines() if x.startswith("collections "))
    assert int(line.split()[1]) <= 15, line


def _collections(tmp_path: Path, *args: str) -> int:
    db = tmp_path / "demo.db"
    if not db.exists():
        load(db, "demo", name="demo")
    env = {**os.environ, "MCP_INSPECTOR_DB": str(db), "COLUMNS": "120"}
    done = subprocess.run(
        [sys.executable, "-c", COUNTING, *args], capture_output=True, env=env, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    line = next(x for x in done.stderr.decode().splitlines() if x.startswith("collections "))
    return int(line.split()[1])


def test_the_read_commands_modules_are_start_up_too(tmp_path: Path) -> None:
    # The command's module (imported when the group resolves the command: Rich's console, the store)
    # and the modules a read command imports in its body are start-up: collector off, frozen after.
    # They ran 18-19 collections, the reading itself a handful. (`lint 1` is counted once its findings
    # are stored: the first lint imports mcp-types' models to check the messages, the command's work.)
    _collections(tmp_path, "lint", "1")
    for args in (["sessions"], ["sessions", "--by-host"], ["show", "1"], ["search", "tool"], ["lint", "1"]):
        assert _collections(tmp_path, *args) <= 8, args
