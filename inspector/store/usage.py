"""What the recordings cost: each session's stored bytes, the database's size and free space.

`session_bytes` is the ONE place a session's size is computed (retention, `prune`, the storage
view and the sessions list all use it): the stored bytes of its message rows, i.e. the raw bytes
as stored (SQLite: `length(raw)`; PostgreSQL: `pg_column_size(raw)`, after TOAST's compression)
plus a fixed estimate per row for the other columns and the indexes, plus its share of the large
bodies stored once in `blob` (`store/bodies.py`): each blob's stored bytes divided among the
sessions whose rows carry it, so the sessions' sizes add up to what the store holds.

`store_usage` says how big the database is: SQLite's file (pages in use, free pages that a vacuum
gives back to the disk, the file's auto_vacuum mode); PostgreSQL's tables' total size (indexes and
TOAST included), of which the rows account for the sum of the sessions' sizes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, text

__all__ = ["ROW_OVERHEAD", "TABLES", "Usage", "session_bytes", "store_usage"]

# Bytes per message row besides its raw body: the other columns, the record header and the four
# indexes' entries (measured on SQLite recordings of the demo server: 90-140 bytes).
ROW_OVERHEAD = 120
# The tables that hold recordings (PostgreSQL's size of the store is theirs).
TABLES = ("session", "message", "blob", "lint_finding", "lint_run")
_AUTO_VACUUM = {0: "none", 1: "full", 2: "incremental"}


def session_bytes(conn: Engine | Connection, session_ids: list[int] | None = None) -> dict[int, int]:
    """Stored bytes per session (every session, or those of `session_ids`; 0 for one without rows)."""
    if session_ids is not None and not session_ids:
        return {}
    body = "pg_column_size(m.raw)" if conn.dialect.name == "postgresql" else "length(m.raw)"
    where = ""
    params: dict[str, int] = {}
    if session_ids is not None:
        where = "WHERE s.id IN (" + ", ".join(f":s{i}" for i in range(len(session_ids))) + ")"
        params = {f"s{i}": sid for i, sid in enumerate(session_ids)}
    sql = text(
        f"SELECT s.id, COALESCE(SUM({body}), 0) + COUNT(m.id) * {ROW_OVERHEAD} "
        f"FROM session s LEFT JOIN message m ON m.session_id = s.id {where} GROUP BY s.id"
    )
    from inspector.store.bodies import blob_shares

    stored = "pg_column_size(b.data)" if conn.dialect.name == "postgresql" else "LENGTH(b.data)"
    rows: list[Any]
    if isinstance(conn, Engine):
        with conn.connect() as c:
            rows = list(c.execute(sql, params).all())
            shares = blob_shares(c, session_ids, stored=stored)
    else:
        rows = list(conn.execute(sql, params).all())
        shares = blob_shares(conn, session_ids, stored=stored)
    return {int(sid): int(size) + shares.get(int(sid), 0) for sid, size in rows}


@dataclass(frozen=True)
class Usage:
    """The database's size: `file_bytes` on disk (PostgreSQL: its tables), `used_bytes` holding
    rows, `free_bytes` that a vacuum could give back; `auto_vacuum` (SQLite: none, full,
    incremental; PostgreSQL: None)."""

    backend: str
    file_bytes: int
    used_bytes: int
    free_bytes: int
    auto_vacuum: str | None = None
    wal_bytes: int = 0


def store_usage(engine: Engine) -> Usage:
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            page_size = int(conn.exec_driver_sql("PRAGMA page_size").scalar_one())
            pages = int(conn.exec_driver_sql("PRAGMA page_count").scalar_one())
            free = int(conn.exec_driver_sql("PRAGMA freelist_count").scalar_one())
            mode = int(conn.exec_driver_sql("PRAGMA auto_vacuum").scalar_one())
            path = engine.url.database or ""
            file_bytes = os.path.getsize(path) if path and os.path.exists(path) else pages * page_size
            wal = path + "-wal"
            wal_bytes = os.path.getsize(wal) if path and os.path.exists(wal) else 0
            return Usage(
                "sqlite",
                file_bytes,
                (pages - free) * page_size,
                free * page_size,
                _AUTO_VACUUM.get(mode, str(mode)),
                wal_bytes,
            )
        total = 0
        for table in TABLES:
            total += int(
                conn.execute(text("SELECT pg_total_relation_size(to_regclass(:t))"), {"t": table}).scalar()
                or 0
            )
        used = sum(session_bytes(conn).values())
        return Usage(engine.dialect.name, total, min(used, total), max(total - used, 0))
