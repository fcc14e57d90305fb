"""SQLite's full-text index kept as rows arrive (store/fts.py, revision 0005): a file from revision
0004, with or without the old lazily built index, is indexed once at open (each message exactly
once, a large body's whole text too), then rows are indexed as written, and a prune leaves nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import text

from inspector.store import fts, open_engine
from inspector.store.engine import ALEMBIC_HEAD
from inspector.store.queries import delete_session
from inspector.store.search import search_messages
from inspector.store.upgrade import alembic_config
from tests.api.test_search_api import search_session


def _indexed(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM message_fts_docsize").fetchone()[0])


def _names(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}


@pytest.mark.parametrize("old_index", ["lazy index up to a watermark", "never searched"])
def test_a_0004_file_with_rows_is_indexed_once_at_open(tmp_path: Path, old_index: str) -> None:
    db = tmp_path / "old.db"
    first = search_session(db, "alpha", 50, rare_at=3, large=True)  # written at the head: indexed
    engine = open_engine(db)
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0004")  # the lazy index, complete up to its watermark
        # Rows 0004 wrote after the last search: not in the index yet.
        conn.execute(
            text(
                "INSERT INTO session (id, kind, status, started_ns, message_count, pinned) "
                "VALUES (99, 'import', 'ended', 1, 2, false)"
            )
        )
        for seq, raw in (
            (1, b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"w":"quokka"}}'),
            (2, b"{}"),
        ):
            conn.execute(
                text(
                    "INSERT INTO message (session_id, seq, ts_ns, direction, channel, raw, size, parse_status, kind) "
                    "VALUES (99, :seq, 1, 'c2s', 'stdin', :raw, 1, 'ok', 'request')"
                ),
                {"seq": seq, "raw": raw},
            )
        if old_index == "never searched":
            conn.exec_driver_sql("DROP TABLE message_fts")
            conn.exec_driver_sql("DROP TABLE fts_state")
    engine.dispose()
    assert ("fts_state" in _names(db)) == (old_index == "lazy index up to a watermark")

    engine = open_engine(db)  # revision 0005: indexes what the index lacks, once
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == ALEMBIC_HEAD
        messages = conn.execute(text("SELECT COUNT(*) FROM message")).scalar_one()
    assert "message_fts" in _names(db) and "fts_state" not in _names(db)
    assert _indexed(db) == messages  # every message once: none twice, none missing
    assert [m.session_id for m in search_messages(engine, "quokka")] == [99]
    assert [(m.session_id, m.seq) for m in search_messages(engine, "kumquat")] == [(first, 101)]
    assert [m.seq for m in search_messages(engine, "zanzibar")] == [6]
    # From now on rows are indexed as they are written.
    later = search_session(db, "later", 5, rare_at=2)
    assert _indexed(db) == messages + 10
    assert [m.session_id for m in search_messages(engine, "zanzibar")] == [first, later]
    for sid in (first, later, 99):
        delete_session(engine, sid)
    assert _indexed(db) == 0
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO message_fts (message_fts) VALUES ('integrity-check')")
    engine.dispose()


def test_a_large_backfill_reports_its_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "big.db"
    search_session(db, "alpha", 300)
    engine = open_engine(db)
    monkeypatch.setattr(fts, "_PROGRESS_FROM", 100)
    monkeypatch.setattr(fts, "_BACKFILL_CHUNK", 60)
    lines: list[str] = []
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE message_fts")
        fts.create(conn)
        assert fts.backfill(conn, progress=lines.append) == 600
    engine.dispose()
    assert lines[0].startswith("Indexing 600 messages for full-text search")
    assert lines[-1] == "  600 of 600 messages indexed" and len(lines) >= 5
    assert all(len(line) <= 80 for line in lines)
    assert _indexed(db) == 600
