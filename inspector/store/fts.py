"""SQLite's full-text index of message text, kept as rows arrive (never built inside a request).

`message_fts` is a contentless FTS5 table (`content=''`: it keeps only the index, about a third of
the text's size) whose rowid is `message.id`. The store writer fills it in the transaction that
inserts the rows, on the recorder's writer thread (off the forwarding path), every insert path
going through `StoreWriter._insert_rows` (`index_batch`):

- the batch's ordinary rows with ONE `INSERT ... SELECT` over the ids above the newest id before
  the batch (`raw` is their whole text). An AFTER INSERT trigger did the same row by row at a
  quarter of the rows a second (measured: 6,000 against 23,000 rows/s in plain sqlite3);
- a large body's row (store/bodies.py: `raw` keeps only its start, the whole is compressed in
  `blob`) from the whole body, which the writer has in hand before it compresses it.

SQLite here is 3.40: a contentless table cannot delete a row by its id (`contentless_delete` is
3.43), so deleting a message repeats what was indexed for it (`index_text(..., delete=True)`,
store/queries.delete_sessions, the one delete path). Revision 0005 creates the table
in an existing file and indexes its rows once (`backfill`, with progress for a large file); a new
file gets the same from `create` (store/engine.py). PostgreSQL has its own `message.fts` tsvector
column, kept by a trigger and the writer (revisions 0002 and 0004): nothing here applies to it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from inspector.store import bodies
from inspector.store.db import Conn

if TYPE_CHECKING:
    from sqlalchemy import Connection

__all__ = [
    "FTS_DDL",
    "backfill",
    "compact",
    "create",
    "index_batch",
    "index_bodies",
    "index_text",
    "newest_id",
]

FTS_DDL = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS message_fts USING fts5(body, content='', tokenize='unicode61')",
)

_BACKFILL_CHUNK = 50_000
_PROGRESS_FROM = 200_000  # rows: a smaller file is indexed in a few seconds without a word


def create(conn: Conn | Connection) -> None:
    """The full-text table (in the caller's transaction; SQLite only)."""
    for ddl in FTS_DDL:
        Conn.of(conn).execute(ddl)


def index_text(
    conn: Conn | Connection, ids_sql: str, params: Mapping[str, Any], *, delete: bool = False
) -> None:
    """Add (or, with `delete`, remove) the entries of the message ids `ids_sql` selects: `raw` as
    text, the whole body for a large one. Removing must repeat exactly what was indexed."""
    conn = Conn.of(conn)
    target = (
        "message_fts (message_fts, rowid, body) SELECT 'delete', "
        if delete
        else "message_fts (rowid, body) SELECT "
    )
    conn.execute(
        f"INSERT INTO {target}id, CAST(raw AS TEXT) FROM message WHERE id IN ({ids_sql}) AND body_sha256 IS NULL",
        dict(params),
    )
    large = conn.all(
        f"SELECT id, body_sha256 FROM message WHERE id IN ({ids_sql}) AND body_sha256 IS NOT NULL",
        dict(params),
    )
    values = "'delete', :id, CAST(:body AS TEXT)" if delete else ":id, CAST(:body AS TEXT)"
    columns = "(message_fts, rowid, body)" if delete else "(rowid, body)"
    for start in range(0, len(large), 50):
        chunk = large[start : start + 50]
        whole = bodies.load(conn, [sha for _, sha in chunk])
        conn.executemany(
            f"INSERT INTO message_fts {columns} VALUES ({values})",
            [{"id": mid, "body": whole[sha]} for mid, sha in chunk],
        )


def newest_id(conn: Conn) -> int:
    """The newest message id (read inside the batch's write transaction, before its insert)."""
    return int(conn.scalar("SELECT COALESCE(MAX(id), 0) FROM message"))


def index_batch(
    conn: Conn, after_id: int, rows: Sequence[Mapping[str, Any]], whole: Mapping[str, bytes]
) -> None:
    """Index the rows a batch just inserted: those with ids above `after_id` (`newest_id` before
    the insert, in the same write transaction), a large body's from `whole` (bodies by hash)."""
    conn.positional(
        "INSERT INTO message_fts (rowid, body) SELECT id, CAST(raw AS TEXT) FROM message "
        "WHERE id > ? AND body_sha256 IS NULL",
        (after_id,),
    )
    if whole:
        index_bodies(conn, rows, whole)


def index_bodies(conn: Conn, rows: Sequence[Mapping[str, Any]], whole: Mapping[str, bytes]) -> None:
    """Index the large bodies of rows just inserted (their `body_sha256` set, `whole` their bodies
    by hash), in the inserting transaction."""
    params = [
        (whole[row["body_sha256"]], row["session_id"], row["seq"]) for row in rows if row.get("body_sha256")
    ]
    if params:
        conn.executemany(
            "INSERT INTO message_fts (rowid, body) SELECT id, CAST(? AS TEXT) FROM message "
            "WHERE session_id = ? AND seq = ?",
            params,
        )


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def backfill(
    conn: Conn | Connection, *, after_id: int = 0, progress: Callable[[str], None] | None = _say
) -> int:
    """Index every message with an id above `after_id` (an old file, once, at open), in chunks of
    ids; a large one prints its progress (one line per tenth). Returns how many were indexed."""
    conn = Conn.of(conn)
    row = conn.all("SELECT MIN(id), MAX(id), COUNT(*) FROM message WHERE id > :a", {"a": after_id})[0]
    total = int(row[2] or 0)
    if not total:
        return 0
    lo, hi = int(row[0]), int(row[1])
    loud = progress is not None and total >= _PROGRESS_FROM
    if loud and progress is not None:
        progress(f"Indexing {total:,} messages for full-text search (once, for this file)...")
    done, shown = 0, 0
    start = lo
    while start <= hi:
        end = start + _BACKFILL_CHUNK
        index_text(conn, "SELECT id FROM message WHERE id >= :lo AND id < :hi", {"lo": start, "hi": end})
        done = int(
            conn.scalar("SELECT COUNT(*) FROM message WHERE id > :a AND id < :hi", {"a": after_id, "hi": end})
        )
        tenth = done * 10 // total
        if loud and progress is not None and tenth > shown:
            shown = tenth
            progress(f"  {done:,} of {total:,} messages indexed")
        start = end
    return total


def compact(raw: Any, *, pages: int = 256, steps: int = 100_000) -> int:
    """Merge the index's segments so that deleted messages' entries leave it (SQLite DB-API
    connection in autocommit). A contentless FTS5 delete only adds delete markers: the old entries
    keep their pages until merged with them. Short steps (`'merge', -pages`: merge whatever level
    has more than one segment), each its own write transaction, so a recorder waits one step at
    most; stops when a step does nothing. Returns the steps run."""
    if not raw.execute("SELECT 1 FROM sqlite_master WHERE name = 'message_fts'").fetchone():
        return 0
    for done in range(steps):
        before = raw.total_changes
        raw.execute("INSERT INTO message_fts (message_fts, rank) VALUES ('merge', ?)", (-pages,))
        if raw.total_changes - before < 2:
            return done
    return steps
