"""The tables as SQLAlchemy Core `Table`s: what `open_engine` creates a new SQLite file from, what the
legacy upgrade (`store/legacy.py`) and the statements still built with SQLAlchemy Core read.

Only the code that needs SQLAlchemy imports this module; the records (`store.models`) and the reads
over DB-API (`store.db`, `store.queries`, `store.search`) do not. Alembic's revisions
(`store/migrations/`) own the schema: a test holds these tables against their result on both
backends (tests/unit/test_store_backends.py).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    false,
    text,
)

__all__ = ["blob", "lint_finding", "lint_run", "message", "metadata", "session"]

# Index names as SQLModel's metadata made them (`ix_<table>_<column>`), so the tables stay Alembic's.
metadata = MetaData(naming_convention={"ix": "ix_%(column_0_label)s"})


def _column(name: str, *args: Any, **kwargs: Any) -> Column[Any]:
    """A column whose name and key are plain `str` (as SQLModel's were), not SQLAlchemy's
    `quoted_name`: they become the keys of rows read as dicts, which orjson serialises."""
    column: Column[Any] = Column(name, *args, **kwargs)
    column.name = column.key = name
    return column


def _json(name: str) -> Column[Any]:
    return _column(name, JSON(none_as_null=True))


# One recorded connection. Ids are never reused after a delete (`sqlite_autoincrement`): the UI's
# URLs and the live feed's and full-text index's watermarks rely on it (store/engine.py `_v3`).
session = Table(
    "session",
    metadata,
    _column("id", Integer, primary_key=True),
    _column("name", String, nullable=True),
    _column("kind", String, nullable=False, index=True),
    _json("target"),
    _column("status", String, nullable=False, index=True),
    _column("started_ns", BigInteger, nullable=False, index=True),
    _column("ended_ns", BigInteger),
    _column("exit_status", Integer, nullable=True),
    _column("end_reason", String, nullable=True),
    _column("era", String, nullable=True),
    _column("offered_version", String, nullable=True),
    _column("protocol_version", String, nullable=True),
    _json("client_info"),
    _json("server_info"),
    _json("client_capabilities"),
    _json("server_capabilities"),
    _json("facts"),
    _column("parent_id", Integer, ForeignKey("session.id"), nullable=True),
    _json("labels"),
    _column("message_count", Integer, nullable=False),
    _column("host", String, nullable=True),
    _column("pid", Integer, nullable=True),
    # Kept by retention whatever its age or size (added by revision 0003, hence last).
    _column("pinned", Boolean, nullable=False, server_default=false()),
    sqlite_autoincrement=True,
)

blob = Table(
    "blob",
    metadata,
    _column("sha256", String(64), primary_key=True),  # of the original bytes
    _column("codec", String, nullable=False),  # zstd | none
    _column("size", BigInteger, nullable=False),  # the original size
    _column("data", LargeBinary, nullable=False),
)

lint_finding = Table(
    "lint_finding",
    metadata,
    _column("id", Integer, primary_key=True),
    _column("session_id", Integer, ForeignKey("session.id"), nullable=False),
    _column("seq", Integer, nullable=False),
    _column("message_id", Integer, nullable=True),
    _column("severity", String, nullable=False),
    _column("rule", String, nullable=False),
    _column("explanation", String, nullable=False),
    _column("spec_section", String, nullable=False),
    _column("revision", String, nullable=True),
    Index("ix_lint_finding_session_seq", "session_id", "seq"),
    Index("ix_lint_finding_session_severity", "session_id", "severity"),
)

lint_run = Table(
    "lint_run",
    metadata,
    _column("session_id", Integer, ForeignKey("session.id"), primary_key=True),
    _column("upto_seq", Integer, nullable=False),
    _column("rules_version", String, nullable=False),
    _column("linted_ns", BigInteger, nullable=False),
    _column("errors", Integer, nullable=False),
    _column("warnings", Integer, nullable=False),
    _column("infos", Integer, nullable=False),
)

message = Table(
    "message",
    metadata,
    _column("id", Integer, primary_key=True),
    _column("session_id", Integer, ForeignKey("session.id"), nullable=False),
    _column("seq", Integer, nullable=False),  # per session, gap-free, from 1
    _column("ts_ns", BigInteger, nullable=False),
    _column("direction", String, nullable=False),
    _column("channel", String, nullable=False),
    _column("raw", LargeBinary, nullable=False),
    _column("size", Integer, nullable=False),
    _column("parse_status", String, nullable=False),
    _column("kind", String, nullable=False),
    _column("method", String, nullable=True),
    _column("rpc_id", String, nullable=True),
    _column("error_code", Integer, nullable=True),
    _column("answers_seq", Integer, nullable=True),
    _column("latency_ns", BigInteger),
    _column("http_method", String, nullable=True),
    _column("http_path", String, nullable=True),
    _column("http_status", Integer, nullable=True),
    _json("http_headers"),
    _column("sse_event_id", String, nullable=True),
    _json("meta"),
    _json("lint"),
    # A large body's hash (store/bodies.py; added by revision 0004, hence last).
    _column("body_sha256", String(64), index=True),
    Index("ix_message_session_seq", "session_id", "seq", unique=True),
    # A filter on one method, direction or kind reads its rows in seq order from its own index, and
    # counts them from the index alone (revision 0006, issue 21). The method one replaces
    # (session_id, method), which it covers.
    Index("ix_message_session_method_seq", "session_id", "method", "seq"),
    Index("ix_message_session_direction_seq", "session_id", "direction", "seq"),
    Index("ix_message_session_kind_seq", "session_id", "kind", "seq"),
    # A session's lowest and highest id in one lookup each (revision 0007, store/pages.py).
    Index("ix_message_session_id", "session_id", "id"),
    # A session's flagged messages, for a re-lint to clear without walking the session: partial.
    Index(
        "ix_message_session_linted",
        "session_id",
        "seq",
        sqlite_where=text("lint IS NOT NULL"),
        postgresql_where=text("lint IS NOT NULL"),
    ),
    Index("ix_message_session_rpc_id", "session_id", "rpc_id"),
    Index("ix_message_session_answers", "session_id", "answers_seq"),
    sqlite_autoincrement=True,
)
