"""An index on (session_id, id) (issue 21): a session's lowest and highest message id in two lookups.

A text search's total counts the FTS5 matches within the session's own range of ids
(`store/pages.py` `_owned_ids`). Proving that the range is the session's own walked the session's
(session_id, seq) index, 72-100 ms of CPU per search at 1,000,000 messages; with this index the
proof is min(id), max(id) and max(seq), each one index lookup (well under 1 ms).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_message_session_id", "message", ["session_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_message_session_id", table_name="message")
