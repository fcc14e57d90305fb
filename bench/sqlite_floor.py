"""The floor under recording: plain sqlite3 `executemany` of the same rows into the same schema.

What any recorder of this store must pay at least: the `message` table with
its indexes (store/models.py) and SQLite's full-text index filled in the same
transaction (store/fts.py), 5000 rows a transaction, `synchronous=NORMAL`,
WAL, with no Python per row beyond the driver's own. The flood and the
in-process stages measure it in the same run as the recorder, on a fresh file
made by the package's own `open_engine` (so: the very schema the recorder
writes), and report the recorder's rate as a ratio of it: on a busy or slow
machine both move together, the ratio much less.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path
from typing import Any

BATCH = 5000  # rows a transaction, as the recorder's batches


def stored_rows(db: Path, session_id: int | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The message rows of `db` (of one session, or all) as stored (JSON columns as text), in id
    order, and the column names (`id` left out)."""
    where, params = ("WHERE session_id = ?", (session_id,)) if session_id is not None else ("", ())
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        cur = conn.execute(f"SELECT * FROM message {where} ORDER BY id", params)
        columns = [c[0] for c in cur.description]
        rows = cur.fetchall()
    keep = [i for i, c in enumerate(columns) if c != "id"]
    return [columns[i] for i in keep], [tuple(row[i] for i in keep) for row in rows]


def insert_floor(
    columns: list[str], rows: list[tuple[Any, ...]], workdir: Path, name: str = "floor"
) -> dict[str, float]:
    """Insert `rows` (tuples in `columns` order, `session_id` first or anywhere) with plain sqlite3
    into a fresh store file, FTS included; seconds of wall and of this thread's CPU."""
    from inspector.capture.sessions import create_session
    from inspector.store.engine import open_engine

    db = workdir / f"{name}.db"
    for side in ("", "-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    engine = open_engine(db)
    try:
        sids = sorted({row[columns.index("session_id")] for row in rows})
        mapping = {sid: create_session(engine, kind="stdio-wrap", target=["bench-floor"]) for sid in sids}
    finally:
        engine.dispose()
    at = columns.index("session_id")
    rows = [row[:at] + (mapping[row[at]],) + row[at + 1 :] for row in rows]
    sql = f"INSERT INTO message ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous=NORMAL")
        t, c = time.perf_counter(), time.thread_time()
        for start in range(0, len(rows), BATCH):
            conn.execute("BEGIN IMMEDIATE")
            newest = conn.execute("SELECT COALESCE(MAX(id), 0) FROM message").fetchone()[0]
            conn.executemany(sql, rows[start : start + BATCH])
            conn.execute(
                "INSERT INTO message_fts (rowid, body) SELECT id, CAST(raw AS TEXT) FROM message "
                "WHERE id > ? AND body_sha256 IS NULL",
                (newest,),
            )
            conn.execute("COMMIT")
        seconds, cpu = time.perf_counter() - t, time.thread_time() - c
        stored = conn.execute("SELECT COUNT(*) FROM message").fetchone()[0]
        indexed = conn.execute("SELECT COUNT(*) FROM message_fts").fetchone()[0]
        return {"seconds": seconds, "cpu_s": cpu, "stored": stored, "indexed": indexed}
    finally:
        conn.close()
        for side in ("", "-wal", "-shm"):
            Path(f"{db}{side}").unlink(missing_ok=True)
