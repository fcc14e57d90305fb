"""Pinned sessions: retention (`store/retention.py`, `mcp-inspect prune`) never removes them.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN on both backends (SQLite allows it with a constant default; a batch-mode
    # rebuild would drop the table's AUTOINCREMENT).
    op.add_column("session", sa.Column("pinned", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("session", "pinned")  # SQLite 3.35+
