"""Large bodies stored once, compressed (`store/bodies.py`): the `blob` table and `message.body_sha256`.

On PostgreSQL the full-text column can no longer be generated from `raw` (a large body's row keeps
only its start there): it becomes a plain column that a trigger fills from `raw` for ordinary rows,
and the writer fills from the whole body for large ones (in the batch's transaction).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

PG_TRIGGER = """
CREATE OR REPLACE FUNCTION inspector_message_fts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.fts IS NULL AND NEW.body_sha256 IS NULL THEN
        NEW.fts := inspector_fts_vector(NEW.raw);
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER message_fts BEFORE INSERT ON message FOR EACH ROW EXECUTE FUNCTION inspector_message_fts();
"""


def upgrade() -> None:
    op.create_table(
        "blob",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("codec", sa.String(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    # A plain ADD COLUMN (no batch-mode rebuild: it would drop the table's AUTOINCREMENT).
    op.add_column("message", sa.Column("body_sha256", sa.String(64), nullable=True))
    op.create_index("ix_message_body_sha256", "message", ["body_sha256"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP INDEX ix_message_fts")
        op.execute("ALTER TABLE message DROP COLUMN fts")
        op.execute("ALTER TABLE message ADD COLUMN fts tsvector")
        op.execute("UPDATE message SET fts = inspector_fts_vector(raw)")
        op.execute("CREATE INDEX ix_message_fts ON message USING gin (fts)")
        op.execute(PG_TRIGGER)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER message_fts ON message")
        op.execute("DROP FUNCTION inspector_message_fts()")
        op.execute("DROP INDEX ix_message_fts")
        op.execute("ALTER TABLE message DROP COLUMN fts")
        op.execute(
            "ALTER TABLE message ADD COLUMN fts tsvector GENERATED ALWAYS AS (inspector_fts_vector(raw)) STORED"
        )
        op.execute("CREATE INDEX ix_message_fts ON message USING gin (fts)")
    op.drop_index("ix_message_body_sha256", "message")
    op.drop_column("message", "body_sha256")
    op.drop_table("blob")
