"""Lint findings in the store: stored with their messages, replaced by a re-lint, stale when a session grows;
databases from schema version 1 gain the lint tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import inspect, text

from inspector.lint import findings_of, lint_is_stale, lint_session
from inspector.store import SCHEMA_VERSION, SessionWriter, get_session, open_engine
from inspector.store.queries import get_message
from tests.lint_recordings import Stdio, request, result, store


def _store(db: Path, s: Stdio) -> int:
    sid = store(db, s)
    with open_engine(db).connect() as conn:  # still recording: a live session that can grow
        conn.execute(text("UPDATE session SET status = 'recording' WHERE id = :s"), {"s": sid})
        conn.commit()
    return sid


def test_findings_are_stored_with_their_message_and_replaced_by_a_relint(db_path: Path) -> None:
    s = Stdio().handshake()
    orphan = s.send("s2c", result(99, {"tools": []}))
    sid = _store(db_path, s)
    engine = open_engine(db_path)
    assert lint_is_stale(engine, sid)
    findings = lint_session(engine, sid)
    assert [(f.rule, f.seq) for f in findings] == [("unknown-response-id", orphan)]
    assert findings[0].message_id == get_message(engine, sid, orphan).id
    assert get_message(engine, sid, orphan).lint == [{"rule": "unknown-response-id", "severity": "error"}]
    assert not lint_is_stale(engine, sid)
    assert findings_of(engine, sid) == findings
    lint_session(engine, sid)
    with engine.connect() as conn:
        count = conn.execute(text("SELECT COUNT(*) FROM lint_finding WHERE session_id = :s"), {"s": sid})
        assert count.scalar_one() == 1


def test_a_growing_session_is_stale_and_relinted(db_path: Path) -> None:
    s = Stdio().handshake()
    s.send("c2s", request(1, "tools/list"))
    sid = _store(db_path, s)
    engine = open_engine(db_path)
    assert findings_of(engine, sid) == []
    first = len(s.rows)
    dup = s.send("c2s", request(1, "tools/list"))
    writer = SessionWriter(engine, sid)
    for row in s.rows[first:]:
        row["session_id"] = sid
    writer.on_batch(s.rows[first:], s.builder.facts.snapshot())
    assert lint_is_stale(engine, sid)
    assert [(f.rule, f.seq) for f in findings_of(engine, sid)] == [("duplicate-request-id", dup)]
    assert get_session(engine, sid).id == sid


def test_a_schema_v1_database_gains_the_lint_tables(db_path: Path) -> None:
    engine = open_engine(db_path)
    engine.dispose()
    with sqlite3.connect(db_path) as conn:  # back to what version 1 had
        conn.execute("DROP TABLE lint_finding")
        conn.execute("DROP TABLE lint_run")
        # Nor Alembic, nor what its revisions after the baseline add (legacy.ADDED_AFTER_BASELINE).
        conn.execute("DROP TABLE alembic_version")
        conn.execute("DROP TABLE blob")
        conn.execute("DROP INDEX ix_message_body_sha256")
        conn.execute("ALTER TABLE message DROP COLUMN body_sha256")
        conn.execute("ALTER TABLE session DROP COLUMN pinned")
        for name in ("method", "direction", "kind"):  # revision 0006's, and the index it replaced
            conn.execute(f"DROP INDEX ix_message_session_{name}_seq")
        conn.execute("CREATE INDEX ix_message_session_method ON message (session_id, method)")
        conn.execute("DROP INDEX ix_message_session_id")  # revision 0007's
        conn.execute("DROP INDEX ix_message_session_linted")  # revision 0008's
        conn.execute("UPDATE schema_info SET version = 1")
    engine = open_engine(db_path)
    assert {"lint_finding", "lint_run"} <= set(inspect(engine).get_table_names())
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version FROM schema_info")).scalar_one() == SCHEMA_VERSION == 4
