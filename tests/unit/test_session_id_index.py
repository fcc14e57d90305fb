"""Revision 0007 (issue 21): the (session_id, id) index, the same in an upgraded store as in a fresh
one on both backends, and the proof behind a text search's total (store/pages.py `_owned_ids`)
answered from it by lookups, not by a walk of the session."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from inspector.store import open_engine
from inspector.store.pages import MessageFilter, _owned_ids, count_messages, message_page
from tests.api.recordings import generate_session
from tests.postgres import message_index_names_at, message_indexes

NAME, COLUMNS = "ix_message_session_id", ["session_id", "id"]


def test_an_upgraded_store_has_the_index_of_a_fresh_one(any_store: Path | str) -> None:
    fresh = message_indexes(any_store)
    assert fresh[NAME] == COLUMNS
    assert NAME not in message_index_names_at(any_store, "0006")
    assert message_indexes(any_store) == fresh  # opening upgrades


def test_the_proof_of_a_sessions_own_ids_is_index_lookups(tmp_path: Path) -> None:
    """No SCAN and no walk of the session: min(id) and max(id) from (session_id, id), the count from
    (session_id, seq); a session whose ids are its own but in no particular seq order is proven."""
    db = tmp_path / "ids.db"
    a = generate_session(db, 30, name="a")  # ids 1..30
    b = generate_session(db, 20, name="b")  # ids 31..50
    with sqlite3.connect(db) as conn:  # b's ids in reverse seq order, still its own range
        conn.execute("UPDATE message SET id = id + 1000 WHERE session_id = ?", (b,))
        conn.execute("UPDATE message SET id = 51 - seq WHERE session_id = ?", (b,))
        conn.execute("INSERT INTO message_fts (message_fts) VALUES ('delete-all')")
        conn.execute("INSERT INTO message_fts (rowid, body) SELECT id, CAST(raw AS TEXT) FROM message")
        assert conn.execute("SELECT min(id), max(id) FROM message WHERE session_id = ?", (b,)).fetchone() == (
            31,
            50,
        )
    engine = open_engine(db)
    try:
        with engine.connect() as conn:
            raw = conn.connection.driver_connection
            assert _owned_ids(conn, a) == (1, 30) and _owned_ids(conn, b) == (31, 50)
            assert _owned_ids(conn, 999) is None
            sql = (
                "EXPLAIN QUERY PLAN SELECT (SELECT min(id) FROM message WHERE session_id = ?1), "
                "(SELECT max(id) FROM message WHERE session_id = ?1), "
                "(SELECT max(seq) FROM message WHERE session_id = ?1)"
            )
            plan = [r[-1] for r in raw.execute(sql, (a,))]
            assert sum(f"COVERING INDEX {NAME}" in p for p in plan) == 2, plan
            assert not any(p.startswith("SCAN message") for p in plan), plan
        for sid in (a, b):
            flt = MessageFilter(text="tools")
            rows, total = message_page(engine, sid, flt, limit=1000, count=True)
            assert total == count_messages(engine, sid, flt) == len(rows) > 0
    finally:
        engine.dispose()
