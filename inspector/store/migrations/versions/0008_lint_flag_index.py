"""A partial index on (session_id, seq) of the messages a lint flagged (issue 21, lint25).

A re-lint first clears the session's earlier flags (`UPDATE message SET lint = NULL WHERE
session_id = ? AND lint IS NOT NULL`, `lint/stored.py`); with no index on `lint` that walked every
row of the session (~85 ms of a 100,000-message lint). This index holds only the flagged rows (a
row in a hundred), and none of a recording's: a message is written with no `lint`.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    flagged = sa.text("lint IS NOT NULL")
    op.create_index(
        "ix_message_session_linted",
        "message",
        ["session_id", "seq"],
        sqlite_where=flagged,
        postgresql_where=flagged,
    )


def downgrade() -> None:
    op.drop_index("ix_message_session_linted", table_name="message")
