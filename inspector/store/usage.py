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
import typing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.store.db import Conn, Db, backend_of, reading, sqlite_path

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from inspector.store.db import Store

__all__ = ["ROW_OVERHEAD", "TABLES", "Usage", "session_bytes", "store_usage"]

# Bytes per message row besides its raw body: the other columns, the record header and the four
# indexes' entries (measured on SQLite recordings of the demo server: 90-140 bytes).
ROW_OVERHEAD = 120
# The tables that hold recordings (PostgreSQL's size of the store is theirs).
TABLES = ("session", "message", "blob", "lint_finding", "lint_run")
_AUTO_VACUUM = {0: "none", 1: "full", 2: "incremental"}


def session_bytes(conn: Store | Conn | Connection, session_ids: list[int] | None = None) -> dict[int, int]:
    """Stored bytes per session (every session, or those of `session_ids`; 0 for one without rows)."""
    if session_ids is not None and not session_ids:
        return {}
    if isinstance(conn, Db) or hasattr(conn, "raw_connection"):  # a store: read on a connection of its own
        with reading(typing.cast("Store", conn)) as c:
            return session_bytes(c, session_ids)
    conn = Conn.of(conn)
    postgres = conn.backend == "postgresql"
    body = "pg_column_size(m.raw)" if postgres else "length(m.raw)"
    where = ""
    params: dict[str, int] = {}
    if session_ids is not None:
        where = "WHERE s.id IN (" + ", ".join(f":s{i}" for i in range(len(session_ids))) + ")"
        params = {f"s{i}": sid for i, sid in enumerate(session_ids)}
    sql = (
        f"SELECT s.id, COALESCE(SUM({body}), 0) + COUNT(m.id) * {ROW_OVERHEAD} "
        f"FROM session s LEFT JOIN message m ON m.session_id = s.id {where} GROUP BY s.id"
    )
    from inspector.store.bodies import blob_shares

    stored = "pg_column_size(b.data)" if postgres else "LENGTH(b.data)"
    rows: list[Any] = conn.all(sql, params)
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


def store_usage(engine: Store) -> Usage:
    with reading(engine) as conn:
        if conn.backend == "sqlite":
            page_size = int(conn.scalar("PRAGMA page_size"))
            pages = int(conn.scalar("PRAGMA page_count"))
            free = int(conn.scalar("PRAGMA freelist_count"))
            mode = int(conn.scalar("PRAGMA auto_vacuum"))
            path = sqlite_path(engine) or ""
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
            total += int(conn.scalar("SELECT pg_total_relation_size(to_regclass(:t))", {"t": table}) or 0)
        used = sum(session_bytes(conn).values())
        return Usage(backend_of(engine), total, min(used, total), max(total - used, 0))
