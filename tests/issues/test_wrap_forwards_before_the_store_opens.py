"""Regression (#14): `wrap` opened the recording store before it started the server.

Every MCP client that launches a wrapped server waited for Typer, Rich,
SQLAlchemy, the recorder and the database (0.6-1.3 s) before the server even
started. Now the server starts and bytes flow first; the store opens on
another thread, and what was read meanwhile is recorded once it is open.

Here the database is write-locked by another connection, so the shim cannot
create its session: the server's answers must still come through, and once
the lock is released every byte of both directions must be in the recording.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from inspector.store import open_engine
from tests.shim_process import ShimProcess, messages, only_session
from tests.warm_peers import warm_wrap_argv

INIT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "startup-test", "version": "1"},
}


def test_server_answers_while_the_store_is_locked_and_nothing_is_lost(
    db_path: Path, everything_cmd: list[str]
) -> None:
    open_engine(db_path).dispose()  # the schema exists; the shim only has to write
    lock = sqlite3.connect(db_path, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")  # every writer now waits (busy timeout 30 s)
    sent = bytearray()
    shim = ShimProcess(warm_wrap_argv(db_path, *everything_cmd))
    try:
        for msg in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        ):
            line = json.dumps(msg).encode() + b"\n"
            sent += line
            shim.send(line)
        answered = set()
        while not {1, 2} <= answered:
            line = shim.read_line(timeout=15)  # fails the test: forwarding waited for the store
            assert line, f"EOF; stderr: {bytes(shim.stderr_bytes)!r}"
            answered.add(json.loads(line).get("id"))
        # Still locked: the session the shim records into cannot exist yet.
        assert lock.execute("SELECT COUNT(*) FROM session").fetchone()[0] == 0
    finally:
        lock.rollback()
        lock.close()
    shim.close_stdin()
    assert shim.wait() == 0, bytes(shim.stderr_bytes)
    engine = open_engine(db_path)
    session = only_session(engine)
    assert session.status == "ended"
    rows = messages(engine, session.id)
    assert b"".join(m.raw for m in rows if m.direction == "c2s") == bytes(sent)
    assert b"".join(m.raw for m in rows if m.direction == "s2c" and m.channel == "stdout") == bytes(
        shim.stdout_bytes
    )
    assert [m.seq for m in rows] == list(range(1, len(rows) + 1))
