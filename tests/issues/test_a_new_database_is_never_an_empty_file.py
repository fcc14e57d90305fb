"""Two processes opening a database that does not exist yet (`show --follow` started before its
`wrap`, as in test_show_follow_waits_for_the_recording.py; a host starting several wrapped servers
on one `--db`) raced on an empty file: each connection's switch to WAL has to write page 1 of an
empty file, and when two did it at once SQLite refused one of them at once with "database is
locked" (calling the busy handler could deadlock). A wrap that got it could not record at all; the
follower then waited for a session that never came (CI run of stop 29: a 120 s timeout).

Now a new database appears at its name already a WAL database (made under a temporary name and
hard-linked into place), and an empty file made by anyone else is switched with retries."""

from __future__ import annotations

import sqlite3
import stat
import threading
from pathlib import Path

from inspector.store import open_engine
from inspector.store.engine import _until_unlocked
from inspector.store.files import prepare_sqlite_file


def _header(path: Path) -> bytes:
    return path.read_bytes()[:100]


def test_a_new_database_appears_already_in_wal_mode(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    prepare_sqlite_file(db)
    head = _header(db)
    assert head.startswith(b"SQLite format 3\x00"), "the file at its name is a database, never empty"
    assert head[18] == 2 and head[19] == 2, "already WAL: no connection has to write page 1 for it"
    assert int.from_bytes(head[64:68], "big") == 1, "incremental auto-vacuum, as before"
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.db"], "no temporary file is left"


def test_a_database_made_meanwhile_by_another_process_is_kept(tmp_path: Path) -> None:
    db = tmp_path / "taken.db"
    engine = open_engine(db)  # the other process, first: schema and all
    engine.dispose()
    before = db.read_bytes()
    prepare_sqlite_file(db)  # a second opener finds it there and changes nothing
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken.db"]


def test_an_empty_file_made_by_someone_else_is_switched_once_it_is_free(tmp_path: Path) -> None:
    db = tmp_path / "touched.db"
    db.touch(mode=0o600)
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # another connection writing the empty file
    ours = sqlite3.connect(db, isolation_level=None)
    ours.execute("PRAGMA busy_timeout=0")  # what the deadlock case gets: no busy handler
    release = threading.Timer(0.3, lambda: holder.execute("COMMIT"))
    release.start()
    try:
        cur = ours.cursor()
        _until_unlocked(cur, "PRAGMA journal_mode=WAL")
        assert cur.fetchone() == ("wal",)
    finally:
        release.join()
        ours.close()
        holder.close()
