"""`mcp-inspect call` ends its process without the interpreter's teardown (`start_up.leave`: ~20 ms of
a call's wall time, issue #36). What the teardown did by the way must not go with it: the session is
recorded and ended, the exit status is the call's, and the store's connections are closed, so SQLite
has put its write-ahead log back into the database file (no `-wal` file left: the file alone, copied
or sent, holds the whole recording)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

# A stdio server: an empty result for every request, an error for `nosuch`.
SERVER = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" in msg and "method" in msg:
        if msg["method"] == "nosuch":
            print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}}), flush=True)
            continue
        result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result if msg["method"] == "initialize" else {}}), flush=True)
"""


@pytest.mark.parametrize(("method", "status", "out"), [("ping", 0, "{}"), ("nosuch", 1, '"code": -32601')])
def test_call_leaves_its_recording_whole_in_the_database_file(
    tmp_path: Path, method: str, status: int, out: str
) -> None:
    server = tmp_path / "server.py"
    server.write_text(SERVER)
    db = tmp_path / "call.db"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "inspector",
            "call",
            method,
            "--db",
            str(db),
            "--",
            sys.executable,
            str(server),
        ],
        capture_output=True,
        env={**os.environ, "COLUMNS": "120"},
        timeout=120,
        check=False,
    )
    assert done.returncode == status, done.stderr.decode()[-2000:]
    assert out in done.stdout.decode()
    assert not done.stderr.strip(), done.stderr.decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["call.db", "server.py"]  # no -wal, no -shm
    copy = tmp_path / "copy.db"
    copy.write_bytes(db.read_bytes())  # the database file alone
    with sqlite3.connect(copy) as conn:
        sessions = conn.execute("SELECT status, end_reason, message_count FROM session").fetchall()
        methods = [m for (m,) in conn.execute("SELECT method FROM message ORDER BY seq") if m]
    assert sessions == [("ended", "closed", 5)]
    assert methods[:3] == ["initialize", "initialize", "notifications/initialized"]
    assert methods[3:] == [method, method]
