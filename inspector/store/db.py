"""One open database over DB-API (`sqlite3`, or `psycopg` for PostgreSQL), without SQLAlchemy.

The reads and the writes of the store are SQL written once over a `Conn`: a DB-API connection and its
backend, with named parameters (`:name`) translated for psycopg (`%(name)s`). They take a `Store`:
either a `Db` (what `open_db` returns: the CLI's commands) or an SQLAlchemy `Engine` (the API), whose
pool lends its DB-API connection (`engine.raw_connection()`). Reads run on `reading(store)`; writes
on a connection of their own (`connect_writer`, `writing`) in `Conn.transaction()`. Rows come back
as the records of `store.models`, JSON columns decoded; JSON parameters go in as text (`json_param`).

`store.opening.open_db` opens a `Db` with the same pragmas as `store.engine`, after reading the stored
schema version here in plain SQL (`stored_version`); this module never imports `store.engine`.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import unquote, urlsplit

import orjson

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
    "backend_of",
    "connect_writer",
    "database_url",
    "json_param",
    "mask_secrets",
    "masked_url",
    "message_of",
    "reading",
    "session_of",
    "sqlite_path",
    "store_name",
    "stored_version",
    "writing",
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


def json_param(value: Any) -> str | None:
    """A JSON column's value as a statement parameter: its text (None stays SQL NULL). orjson, or the
    standard library for what orjson refuses (an integer past 64 bits)."""
    if value is None:
        return None
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value)


class Conn:
    """A DB-API connection and its backend (`sqlite` or `postgresql`): what the reads and the writes
    run on. Writes go in `transaction()` on a connection of their own (`writing`, `connect_writer`)."""

    __slots__ = ("_close", "backend", "raw")

    def __init__(self, raw: Any, backend: str, close: Callable[[], None] | None = None) -> None:
        self.raw = raw
        self.backend = backend
        self._close = close

    @property
    def marker(self) -> str:
        """The driver's positional parameter marker (`?` for sqlite3, `%s` for psycopg)."""
        return "?" if self.backend == "sqlite" else "%s"

    def executemany(self, sql: str, params: Sequence[Any]) -> Any:
        """Run one statement for each parameter set (`:name` dicts, or tuples with `marker`s)."""
        cur = self.raw.cursor()
        if self.backend == "postgresql" and params and isinstance(params[0], Mapping):
            sql = _pyformat(sql)
        cur.executemany(sql, params)
        return cur

    def positional(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement written with the driver's own `marker`s and a tuple of parameters."""
        cur = self.raw.cursor()
        cur.execute(sql, params)
        return cur

    @contextmanager
    def transaction(self) -> Iterator[Conn]:
        """One write transaction, committed at the end (rolled back on an error). SQLite takes its
        write lock at BEGIN (`BEGIN IMMEDIATE`: no lock-upgrade deadlock between two writers, the
        wait is SQLite's busy timeout); PostgreSQL's is psycopg's transaction block."""
        if self.backend != "sqlite":
            with self.raw.transaction():
                yield self
            return
        self.raw.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            if self.raw.in_transaction:
                self.raw.execute("ROLLBACK")
            raise
        try:
            self.raw.execute("COMMIT")
        except BaseException:
            if self.raw.in_transaction:
                self.raw.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Give the connection back (closed, or returned to the engine's pool that lent it)."""
        if self._close is not None:
            self._close()

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

    def new_connection(self) -> Any:
        """Another DB-API connection to the same database, in autocommit mode (a writer's own)."""
        if self.backend == "sqlite":
            return _connect_sqlite(Path(self.url.split("///", 1)[1]))
        return _connect_postgresql(self.url)

    def dispose(self) -> None:
        """Close the connection (the name `Engine` has for it)."""
        self._conn.raw.close()


Store: TypeAlias = "Db | Engine"


def backend_of(store: Db | Engine) -> str:
    """`sqlite` or `postgresql` (an engine of another database: its dialect's name)."""
    return store.backend if isinstance(store, Db) else store.dialect.name


def sqlite_path(store: Db | Engine) -> str | None:
    """The SQLite file of `store` (None for another database)."""
    if isinstance(store, Db):
        return store.url.split("///", 1)[1] if store.backend == "sqlite" else None
    return str(store.url.database or "") if store.dialect.name == "sqlite" else None


def store_name(store: Db | Engine) -> str:
    """The store for messages: an SQLite file's path, another database's URL without its password."""
    path = sqlite_path(store)
    if path is not None:
        return path
    if isinstance(store, Db):
        return masked_url(store.url)
    return str(store.url.render_as_string(hide_password=True))


def db_key(store: Db | Engine) -> str:
    """The database `store` opens, comparable between processes: the processes that announce
    themselves in the runtime directory (inspector/runtime_dir.py) say which database they record into."""
    path = sqlite_path(store)
    if path:
        return "sqlite:" + os.path.abspath(path)
    return store_name(store)


def connect_writer(store: Db | Engine) -> Conn:
    """A connection of its own for writing `store` (`Conn.transaction()`), until `close()`: a new one
    for a `Db`, one lent by an `Engine`'s pool (put in autocommit mode while lent on PostgreSQL, so
    that each transaction is exactly a `transaction()` block)."""
    if isinstance(store, Db):
        raw = store.new_connection()
        return Conn(raw, store.backend, raw.close)
    backend = store.dialect.name
    if backend not in ("sqlite", "postgresql"):
        from inspector.errors import StoreError

        raise StoreError(f"only SQLite and PostgreSQL databases can be written, not {backend}")
    lent = store.raw_connection()
    driver: Any = lent.driver_connection
    if backend == "sqlite":
        return Conn(driver, backend, lent.close)
    was = driver.autocommit
    driver.autocommit = True

    def give_back() -> None:
        try:
            if not driver.closed:
                driver.autocommit = was
        finally:
            lent.close()

    return Conn(driver, backend, give_back)


@contextmanager
def writing(store: Db | Engine) -> Iterator[Conn]:
    """A write transaction on a connection of its own (`connect_writer`), committed when done."""
    conn = connect_writer(store)
    try:
        with conn.transaction():
            yield conn
    finally:
        conn.close()


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
