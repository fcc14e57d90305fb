"""The tables as SQLAlchemy Core `Table`s: what `open_engine` creates a new SQLite file from, what the
legacy upgrade (`store/legacy.py`) and the statements still built with SQLAlchemy Core read.

Only the code that needs SQLAlchemy imports this module; the records (`store.models`) and the reads
over DB-API (`store.db`, `store.queries`, `store.search`) do not. Alembic's revisions
(`store/migrations/`) own the schema: a test holds these tables against their result on both
backends (tests/unit/test_store_backends.py).
"""

from __future__ import annotations

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


def _json(name: str) -> Column[object]:
    return Column(name, JSON(none_as_null=True))


# One recorded connection. Ids are never reused after a delete (`sqlite_autoincrement`): the UI's
# URLs and the live feed's and full-text index's watermarks rely on it (store/engine.py `_v3`).
session = Table(
    "session",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String, nullable=True),
    Column("kind", String, nullable=False, index=True),
    _json("target"),
    Column("status", String, nullable=False, index=True),
    Column("started_ns", BigInteger, nullable=False, index=True),
    Column("ended_ns", BigInteger),
    Column("exit_status", Integer, nullable=True),
    Column("end_reason", String, nullable=True),
    Column("era", String, nullable=True),
    Column("offered_version", String, nullable=True),
    Column("protocol_version", String, nullable=True),
    _json("client_info"),
    _json("server_info"),
    _json("client_capabilities"),
    _json("server_capabilities"),
    _json("facts"),
    Column("parent_id", Integer, ForeignKey("session.id"), nullable=True),
    _json("labels"),
    Column("message_count", Integer, nullable=False),
    Column("host", String, nullable=True),
    Column("pid", Integer, nullable=True),
    # Kept by retention whatever its age or size (added by revision 0003, hence last).
    Column("pinned", Boolean, nullable=False, server_default=false()),
    sqlite_autoincrement=True,
)

blob = Table(
    "blob",
    metadata,
    Column("sha256", String(64), primary_key=True),  # of the original bytes
    Column("codec", String, nullable=False),  # zstd | none
    Column("size", BigInteger, nullable=False),  # the original size
    Column("data", LargeBinary, nullable=False),
)

lint_finding = Table(
    "lint_finding",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("session_id", Integer, ForeignKey("session.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("message_id", Integer, nullable=True),
    Column("severity", String, nullable=False),
    Column("rule", String, nullable=False),
    Column("explanation", String, nullable=False),
    Column("spec_section", String, nullable=False),
    Column("revision", String, nullable=True),
    Index("ix_lint_finding_session_seq", "session_id", "seq"),
    Index("ix_lint_finding_session_severity", "session_id", "severity"),
)

lint_run = Table(
    "lint_run",
    metadata,
    Column("session_id", Integer, ForeignKey("session.id"), primary_key=True),
    Column("upto_seq", Integer, nullable=False),
    Column("rules_version", String, nullable=False),
    Column("linted_ns", BigInteger, nullable=False),
    Column("errors", Integer, nullable=False),
    Column("warnings", Integer, nullable=False),
    Column("infos", Integer, nullable=False),
)

message = Table(
    "message",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("session_id", Integer, ForeignKey("session.id"), nullable=False),
    Column("seq", Integer, nullable=False),  # per session, gap-free, from 1
    Column("ts_ns", BigInteger, nullable=False),
    Column("direction", String, nullable=False),
    Column("channel", String, nullable=False),
    Column("raw", LargeBinary, nullable=False),
    Column("size", Integer, nullable=False),
    Column("parse_status", String, nullable=False),
    Column("kind", String, nullable=False),
    Column("method", String, nullable=True),
    Column("rpc_id", String, nullable=True),
    Column("error_code", Integer, nullable=True),
    Column("answers_seq", Integer, nullable=True),
    Column("latency_ns", BigInteger),
    Column("http_method", String, nullable=True),
    Column("http_path", String, nullable=True),
    Column("http_status", Integer, nullable=True),
    _json("http_headers"),
    Column("sse_event_id", String, nullable=True),
    _json("meta"),
    _json("lint"),
    # A large body's hash (store/bodies.py; added by revision 0004, hence last).
    Column("body_sha256", String(64), index=True),
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
