"""SQLite's full-text index kept as rows arrive: `message_fts`, filled by the store writer (store/fts.py).

Before, the index was filled lazily inside the first search that needed it (up to the watermark in
`fts_state`): on a large file that search built the whole index. Now an old file is indexed here,
once, at open (the rows above the watermark when there was one, with progress for a large file);
`fts_state` goes. PostgreSQL already keeps its `message.fts` column as rows arrive: nothing to do.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Connection

from inspector.store import fts

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def _has(conn: Connection, name: str) -> bool:
    return conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).first() is not None


def upgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name != "sqlite":
        return
    after_id = 0
    if _has(conn, "message_fts") and _has(conn, "fts_state"):
        after_id = conn.exec_driver_sql("SELECT indexed_upto FROM fts_state").scalar() or 0
    elif _has(conn, "message_fts"):  # an index without its watermark: unknown content, rebuilt
        conn.exec_driver_sql("DROP TABLE message_fts")
    conn.exec_driver_sql("DROP TABLE IF EXISTS fts_state")
    fts.create(conn)
    fts.backfill(conn, after_id=int(after_id))


def downgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name != "sqlite":
        return
    # The index stays, complete: the lazy catch-up of revision 0004 starts from the newest id.
    conn.exec_driver_sql("CREATE TABLE fts_state (indexed_upto INTEGER NOT NULL)")
    conn.exec_driver_sql("INSERT INTO fts_state (indexed_upto) SELECT COALESCE(MAX(id), 0) FROM message")
