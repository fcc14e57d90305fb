"""Deleting the newest session handed its ids to the next one.

Session and message ids were plain SQLite rowids (highest + 1), so after deleting the newest session
the next session got the same id and its messages the deleted ones' ids. The live feed (which sends
rows with an id above the highest it has seen) then never sent the new session's rows: a wrap started
after a delete did not appear live in an open UI page (seen in CI as a flaky e2e test). The full-text
index (indexed up to the highest id) skipped the new rows, and `/sessions/N` showed another session.
Now ids come from AUTOINCREMENT, and older files are upgraded (schema version 3) keeping every id."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from inspector.api.live import LiveFeed
from inspector.store import open_engine
from inspector.store.queries import delete_session, get_session
from inspector.store.search import search_messages
from tests.conftest import SCRIPTED
from tests.shim_process import ShimProcess
from tests.warm_peers import warm_wrap_argv


def _record(db: Path, name: str, word: str) -> int:
    shim = ShimProcess(warm_wrap_argv(db, *SCRIPTED, extra=("--name", name)))
    shim.request(1, word)
    shim.read_line()
    shim.close_stdin()
    assert shim.wait() == 0
    engine = open_engine(db)
    found = get_session(engine, name)
    assert found.id is not None
    return found.id


def _ids(db: Path, sql: str) -> list[int]:
    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute(sql)]


def test_the_next_session_after_a_delete_gets_new_ids_and_reaches_the_live_feed(db_path: Path) -> None:
    first = _record(db_path, "first", "alpha")
    engine = open_engine(db_path)
    feed = LiveFeed(engine)
    feed._reset()  # the feed of a UI that is open: it has seen every row so far
    assert search_messages(engine, "alpha")  # the full-text index is built up to here
    old_rows = _ids(db_path, "SELECT id FROM message")
    delete_session(engine, first)
    second = _record(db_path, "second", "bravo")
    assert second > first, "a deleted session's id was given to the next session"
    new_rows = _ids(db_path, f"SELECT id FROM message WHERE session_id = {second}")
    assert min(new_rows) > max(old_rows), "deleted messages' ids were reused"
    # The open feed sends the new session and its rows; search finds the new rows.
    events = b"".join(body for _audience, body in feed.poll([second]))
    assert b'"session_created"' in events and b"bravo" in events
    assert [m.session_id for m in search_messages(engine, "bravo")] == [second, second]


def test_an_older_database_is_upgraded_keeping_its_ids(db_path: Path) -> None:
    kept = _record(db_path, "kept", "charlie")
    gone = _record(db_path, "gone", "delta")
    # Make it a version-2 file: the same tables without AUTOINCREMENT (as main created them).
    with sqlite3.connect(db_path) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        for table in ("session", "message"):
            (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
            indexes = [r[0] for r in conn.execute(f"SELECT sql FROM sqlite_master WHERE type = 'index' "
                                                  f"AND tbl_name = '{table}' AND sql IS NOT NULL")]  # fmt: skip
            conn.execute(
                sql.replace(f"CREATE TABLE {table}", f"CREATE TABLE old_{table}").replace("AUTOINCREMENT", "")
            )
            conn.execute(f"INSERT INTO old_{table} SELECT * FROM {table}")
            conn.execute(f"DROP TABLE {table}")
            conn.execute(f"ALTER TABLE old_{table} RENAME TO {table}")
            for index in indexes:
                conn.execute(index)
        conn.execute("DELETE FROM sqlite_sequence")
        conn.execute("DROP TABLE blob")  # Alembic revision 0004's: no version-2 file has it
        conn.execute("UPDATE schema_info SET version = 2")
    before = _ids(db_path, "SELECT id FROM message ORDER BY id")
    sql = _ids(db_path, "SELECT 1 FROM sqlite_master WHERE sql LIKE '%AUTOINCREMENT%'")
    assert sql == [], "the test database must look like a version-2 file"
    engine = open_engine(db_path)  # upgrades
    assert _ids(db_path, "SELECT version FROM schema_info") == [4]  # 4: Alembic owns it now
    assert _ids(db_path, "SELECT id FROM message ORDER BY id") == before
    assert get_session(engine, kept).name == "kept"
    delete_session(engine, gone)
    again = _record(db_path, "again", "echo")
    assert again > gone and min(_ids(db_path, f"SELECT id FROM message WHERE session_id = {again}")) > max(
        before
    )
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
