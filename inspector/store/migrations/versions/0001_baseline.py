"""Baseline: the four tables as hand-written schema version 3 left them.

Integers are 64-bit on PostgreSQL (BIGINT, BIGSERIAL ids) as they are in SQLite, so any value the
recorder stores on one backend fits the other (a JSON-RPC error code, a nanosecond timestamp).
SQLite keeps `INTEGER PRIMARY KEY AUTOINCREMENT`: ids are never reused after a delete.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

INT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
JSON = sa.JSON(none_as_null=True)


def _col(name: str, type_: sa.types.TypeEngine[Any], nullable: bool = True, **kw: Any) -> sa.Column[Any]:
    return sa.Column(name, type_, nullable=nullable, **kw)


def upgrade() -> None:
    op.create_table(
        "session",
        _col("id", INT, False, autoincrement=True),
        _col("name", sa.String()),
        _col("kind", sa.String(), False),
        _col("target", JSON),
        _col("status", sa.String(), False),
        _col("started_ns", INT, False),
        _col("ended_ns", INT),
        _col("exit_status", INT),
        _col("end_reason", sa.String()),
        _col("era", sa.String()),
        _col("offered_version", sa.String()),
        _col("protocol_version", sa.String()),
        _col("client_info", JSON),
        _col("server_info", JSON),
        _col("client_capabilities", JSON),
        _col("server_capabilities", JSON),
        _col("facts", JSON),
        _col("parent_id", INT),
        _col("labels", JSON),
        _col("message_count", INT, False),
        _col("host", sa.String()),
        _col("pid", INT),
        sa.ForeignKeyConstraint(["parent_id"], ["session.id"]),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_session_kind", "session", ["kind"])
    op.create_index("ix_session_started_ns", "session", ["started_ns"])
    op.create_index("ix_session_status", "session", ["status"])
    op.create_table(
        "lint_finding",
        _col("id", INT, False, autoincrement=True),
        _col("session_id", INT, False),
        _col("seq", INT, False),
        _col("message_id", INT),
        _col("severity", sa.String(), False),
        _col("rule", sa.String(), False),
        _col("explanation", sa.String(), False),
        _col("spec_section", sa.String(), False),
        _col("revision", sa.String()),
        sa.ForeignKeyConstraint(["session_id"], ["session.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_lint_finding_session_seq", "lint_finding", ["session_id", "seq"])
    op.create_index("ix_lint_finding_session_severity", "lint_finding", ["session_id", "severity"])
    op.create_table(
        "lint_run",
        _col("session_id", INT, False, autoincrement=False),
        _col("upto_seq", INT, False),
        _col("rules_version", sa.String(), False),
        _col("linted_ns", INT, False),
        _col("errors", INT, False),
        _col("warnings", INT, False),
        _col("infos", INT, False),
        sa.ForeignKeyConstraint(["session_id"], ["session.id"]),
        sa.PrimaryKeyConstraint("session_id"),
    )
    op.create_table(
        "message",
        _col("id", INT, False, autoincrement=True),
        _col("session_id", INT, False),
        _col("seq", INT, False),
        _col("ts_ns", INT, False),
        _col("direction", sa.String(), False),
        _col("channel", sa.String(), False),
        _col("raw", sa.LargeBinary(), False),
        _col("size", INT, False),
        _col("parse_status", sa.String(), False),
        _col("kind", sa.String(), False),
        _col("method", sa.String()),
        _col("rpc_id", sa.String()),
        _col("error_code", INT),
        _col("answers_seq", INT),
        _col("latency_ns", INT),
        _col("http_method", sa.String()),
        _col("http_path", sa.String()),
        _col("http_status", INT),
        _col("http_headers", JSON),
        _col("sse_event_id", sa.String()),
        _col("meta", JSON),
        _col("lint", JSON),
        sa.ForeignKeyConstraint(["session_id"], ["session.id"]),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_message_session_answers", "message", ["session_id", "answers_seq"])
    op.create_index("ix_message_session_method", "message", ["session_id", "method"])
    op.create_index("ix_message_session_rpc_id", "message", ["session_id", "rpc_id"])
    op.create_index("ix_message_session_seq", "message", ["session_id", "seq"], unique=True)


def downgrade() -> None:
    for table in ("message", "lint_run", "lint_finding", "session"):
        op.drop_table(table)
