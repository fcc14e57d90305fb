"""Issue 21: the first full-text search on a large database built its index inside that request
(`queries._ensure_fts` caught up from a watermark under the write lock). Rows are now indexed as
they are written: a search only reads, and answers while another process holds the write lock."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from inspector.store import open_engine
from inspector.store.search import search_page
from tests.api.test_search_api import search_session


def test_rows_are_indexed_as_written_and_a_search_never_writes(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    sid = search_session(db, "alpha", 200, rare_at=150)
    with sqlite3.connect(db) as conn:  # indexed before anyone searched
        messages = conn.execute("SELECT COUNT(*) FROM message").fetchone()[0]
        assert conn.execute("SELECT COUNT(*) FROM message_fts_docsize").fetchone()[0] == messages
    engine = open_engine(db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # a recorder mid-batch: the write lock is taken
    found: list[object] = []
    try:
        worker = threading.Thread(target=lambda: found.append(search_page(engine, "zanzibar")))
        worker.start()
        worker.join(10)  # the old lazy catch-up waited for the lock (busy timeout 30 s)
        assert not worker.is_alive(), "the search waited for the write lock"
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        worker.join()
    [page] = found
    assert [(h["session_id"], h["seq"]) for h in page.hits] == [(sid, 300)]  # type: ignore[attr-defined]
    engine.dispose()
