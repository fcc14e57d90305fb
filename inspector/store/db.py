"""One open database over DB-API (`sqlite3`, or `psycopg` for PostgreSQL), without SQLAlchemy.

The reads of the store (`store.queries`, `store.search`, `store.bodies`) are SQL written once over a
`Conn`: a DB-API connection and its backend, with named parameters (`:name`) translated for psycopg
(`%(name)s`). They take a `Store`: either a `Db` (what `open_db` returns: the read commands of the
CLI) or an SQLAlchemy `Engine` (the API, the recorders), whose pool lends its DB-API connection
(`engine.raw_connection()`). Rows come back as the records of `store.models`, JSON columns decoded.

`store.opening.open_db` opens a `Db` with the same pragmas as `store.engine`, after reading the stored
schema version here in plain SQL (`stored_version`); this module never imports `store.engine`.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import unquote, urlsplit

from inspector.errors import MissingExtraError
from inspector.store.models import JSON_COLUMNS, Message, Session, column_names

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine

__all__ = [
    "ALEMBIC_HEAD",
    "ALEMBIC_REVISIONS",
    "MESSAGE_COLUMNS",
    "SCHEMA_VERSION",
    "SESSION_COLUMNS",
    "Conn",
    "Db",
    "Store",
    "database_url",
    "mask_secrets",
    "masked_url",
    "message_of",
    "reading",
    "session_of",
    "stored_version",
]

# schema_info.version: 1..3 were hand-written steps (store/legacy.py); 4 means Alembic owns the
# schema (an mcp-inspector from before Alembic refuses such a file as "newer": it is).
SCHEMA_VERSION = 4
# Alembic's revisions in order (store/migrations/versions; a test checks they agree). A stored
# revision not listed here was written by a newer mcp-inspector.
ALEMBIC_REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008")
ALEMBIC_HEAD = ALEMBIC_REVISIONS[-1]

SESSION_COLUMNS = column_names(Session)
MESSAGE_COLUMNS = column_names(Message)  # not `SELECT *`: PostgreSQL's `message` also has `fts`
_JSON_COLUMNS = frozenset(JSON_COLUMNS)
_BOOL_COLUMNS = frozenset({"pinned"})


def database_url(db: str | Path) -> str:
    """An SQLAlchemy URL for a path (or the URL itself when one is given; `postgresql://` and
    `postgres://` without a driver mean psycopg)."""
    text_db = str(db)
    if "://" in text_db:
        scheme, rest = text_db.split("://", 1)
        if scheme in ("postgresql", "postgres"):
            return f"postgresql+psycopg://{rest}"
        return text_db
    return f"sqlite:///{Path(text_db).expanduser().resolve()}"


def masked_url(db: str | Path) -> str:
    """`db` for messages: a URL with its password replaced by `***` (a path as it is)."""
    text_db = str(db)
    if "://" not in text_db:
        return text_db
    scheme, rest = text_db.split("://", 1)
    netloc, sep, tail = rest.partition("/")
    if "@" not in netloc:
        return text_db
    userinfo, host = netloc.rsplit("@", 1)
    if ":" not in userinfo:
        return text_db
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{host}{sep}{tail}"


def _password(db: str) -> str | None:
    try:
        found = urlsplit(db).password
    except ValueError:
        return None
    return unquote(found) if found else None


def mask_secrets(message: str, db: str | Path) -> str:
    """`message` with the password of `db` (when it is a URL with one) replaced by `***`."""
    text_db = str(db)
    if "://" not in text_db:
        return message
    password = _password(text_db)
    message = message.replace(text_db, masked_url(text_db))
    if password:
        message = message.replace(password, "***")
    return message


@lru_cache(maxsize=256)
def _pyformat(sql: str) -> str:
    """`:name` parameters as psycopg's `%(name)s` (a `::type` cast is left alone, `%` doubled)."""
    return re.sub(r"(?<![:\w]):(\w+)", r"%(\1)s", sql.replace("%", "%%"))


def _decode(backend: str, names: Sequence[str], values: Sequence[Any]) -> dict[str, Any]:
    row = dict(zip(names, values, strict=True))
    if backend == "sqlite":  # JSON is text there (or bytes: the writer's orjson), booleans are integers
        for name in _JSON_COLUMNS.intersection(row):
            value = row[name]
            if isinstance(value, (str, bytes)):
                row[name] = json.loads(value)
        for name in _BOOL_COLUMNS.intersection(row):
            if row[name] is not None:
                row[name] = bool(row[name])
    return row


class Conn:
    """A DB-API connection and its backend (`sqlite` or `postgresql`): what the reads run on."""

    __slots__ = ("backend", "raw")

    def __init__(self, raw: Any, backend: str) -> None:
        self.raw = raw
        self.backend = backend

    @classmethod
    def of(cls, conn: Conn | Connection) -> Conn:
        """An SQLAlchemy `Connection`'s own DB-API connection (inside its transaction), or `conn`."""
        if isinstance(conn, Conn):
            return conn
        return cls(conn.connection.driver_connection, conn.dialect.name)

    def execute(self, sql: str, params: Mapping[str, Any] | None = None) -> Any:
        """Run one statement; the DB-API cursor."""
        cur = self.raw.cursor()
        if self.backend == "postgresql":
            cur.execute(_pyformat(sql), params or {})
        else:
            cur.execute(sql, params or {})
        return cur

    def rows(self, sql: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Every row as a dict by column name, JSON columns decoded."""
        cur = self.execute(sql, params)
        names = [d[0] for d in cur.description]
        return [_decode(self.backend, names, r) for r in cur.fetchall()]

    def all(self, sql: str, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """Every row as a tuple, as the driver gives them."""
        return [tuple(r) for r in self.execute(sql, params).fetchall()]

    def scalar(self, sql: str, params: Mapping[str, Any] | None = None) -> Any:
        """The first column of the first row (None when there is none)."""
        row = self.execute(sql, params).fetchone()
        return None if row is None else row[0]


def session_of(row: Mapping[str, Any]) -> Session:
    return Session(**{c: row[c] for c in SESSION_COLUMNS})


def message_of(row: Mapping[str, Any]) -> Message:
    return Message(**{c: row[c] for c in MESSAGE_COLUMNS})


class Db:
    """An open database without SQLAlchemy: one DB-API connection (opened by `open_db`), in autocommit
    mode, so that each read sees what recorders committed since the last."""

    def __init__(self, raw: Any, backend: str, url: str) -> None:
        self._conn = Conn(raw, backend)
        self.backend = backend
        self.url = url

    @contextmanager
    def connect(self) -> Iterator[Conn]:
        yield self._conn

    def dispose(self) -> None:
        """Close the connection (the name `Engine` has for it)."""
        self._conn.raw.close()


Store: TypeAlias = "Db | Engine"


@contextmanager
def reading(store: Db | Engine) -> Iterator[Conn]:
    """A connection to read `store` on: the `Db`'s own, or one lent by the `Engine`'s pool (returned,
    its transaction rolled back, when done)."""
    if isinstance(store, Db):
        with store.connect() as conn:
            yield conn
        return
    raw = store.raw_connection()
    try:
        yield Conn(raw.driver_connection, store.dialect.name)
    finally:
        raw.close()


def stored_version(conn: Conn) -> tuple[int | None, str | None]:
    """schema_info's version and Alembic's revision as stored (None where the table is absent)."""
    if conn.backend == "sqlite":
        names = {
            str(r[0])
            for r in conn.all(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('schema_info', 'alembic_version')"
            )
        }
    else:
        found = conn.all(
            "SELECT to_regclass('schema_info') IS NOT NULL, to_regclass('alembic_version') IS NOT NULL"
        )
        names = {
            n for n, present in zip(("schema_info", "alembic_version"), found[0], strict=True) if present
        }
    version = revision = None
    if "schema_info" in names:
        found_version = conn.all("SELECT version FROM schema_info")
        version = int(found_version[0][0]) if found_version else 0
    if "alembic_version" in names:
        found_revision = conn.all("SELECT version_num FROM alembic_version")
        revision = str(found_revision[0][0]) if found_revision else None
    return version, revision


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    return "; ".join(lines[:2]) if lines else type(exc).__name__


def looks_corrupt(message: str) -> bool:
    message = message.lower()
    return any(word in message for word in ("not a database", "malformed", "corrupt", "disk image"))


def _connect_sqlite(path: Path) -> Any:
    raw = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
    raw.execute("PRAGMA busy_timeout=30000")
    raw.execute("PRAGMA synchronous=NORMAL")
    raw.execute("PRAGMA foreign_keys=ON")
    return raw


def _connect_postgresql(url: str) -> Any:
    try:
        import psycopg
    except ImportError:
        raise MissingExtraError("PostgreSQL", "postgres") from None
    conninfo = "postgresql://" + url.split("://", 1)[1]
    return psycopg.connect(conninfo, connect_timeout=10, autocommit=True)
