"""The recorder's backlog is bounded while the database keeps failing.

What was wrong: when every write failed, the recorder kept all rows in its
pending list and retried: memory grew without bound for as long as the
database was down. Now the rows kept are bounded by a memory budget
(`MCP_INSPECTOR_MAX_PENDING_BYTES`, 64 MiB by default); past it new messages
are dropped and counted, forwarding goes on, stderr says so, and the session
records how many were dropped (`facts.dropped_messages`) once the database
works again.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from inspector.store import open_engine
from tests.conftest import SCRIPTED
from tests.shim_process import ShimProcess, messages, only_session
from tests.warm_peers import warm_wrap_argv

BUDGET = 20_000
PAD = "x" * 1000  # each request is about 1 KB


def _committed(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM message").fetchone()[0]


def _wait_committed(db: Path, count: int) -> None:
    deadline = time.monotonic() + 20
    while not (db.exists() and _count_or_zero(db) >= count):
        assert time.monotonic() < deadline, f"{count} rows not committed"
        time.sleep(0.02)


def _count_or_zero(db: Path) -> int:
    try:
        return _committed(db)
    except sqlite3.OperationalError:
        return 0


def test_failing_database_drops_and_counts_while_forwarding(db_path: Path) -> None:
    argv = warm_wrap_argv(db_path, *SCRIPTED)  # forked from the warm server (tests/warm_peers.py)
    env = {**os.environ, "MCP_INSPECTOR_MAX_PENDING_BYTES": str(BUDGET)}
    shim = ShimProcess(argv, env=env)

    shim.request(1, "first", {"pad": PAD})
    assert shim.read_line()
    _wait_committed(db_path, 2)
    with sqlite3.connect(db_path) as conn:  # every insert now fails, at once
        conn.execute(
            "CREATE TRIGGER broken BEFORE INSERT ON message BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
        )
    sent = 200
    for i in range(2, 2 + sent):
        shim.request(i, "while-failing", {"pad": PAD})
        assert shim.read_line(), "forwarding stopped"  # every answer still comes back
    deadline = time.monotonic() + 20
    while b"dropping new messages" not in shim.stderr_bytes:
        assert time.monotonic() < deadline, shim.stderr_bytes
        time.sleep(0.02)
    assert _committed(db_path) == 2
    with sqlite3.connect(db_path) as conn:  # the database works again
        conn.execute("DROP TRIGGER broken")
    _wait_committed(db_path, 3)  # the kept backlog is written at the next retry
    shim.request(999, "after", {})
    assert shim.read_line()
    shim.close_stdin()
    assert shim.wait() == 0

    engine = open_engine(db_path)
    session = only_session(engine)
    rows = messages(engine, session.id)
    dropped = session.facts["dropped_messages"]
    total = 2 + 2 * sent + 2
    assert dropped > 0 and len(rows) + dropped == total
    kept_while_failing = [m for m in rows if m.method == "while-failing"]
    assert len(kept_while_failing) * 600 < BUDGET  # only what the budget holds was kept (>= 600 B a row)
    assert {m.method for m in rows} >= {"first", "after"}
    assert session.message_count == len(rows)
    assert b"recording resumed" in shim.stderr_bytes
