"""Opening the recording database: engine, SQLite pragmas, schema versions.

SQLite (WAL, one file under `recordings/`) is the embedded default; PostgreSQL
(`postgresql://...`, psycopg: the `postgres` extra) is the shared one a team points
every recorder at (docs/how-to/team-store.md). The SQLite files are readable by the
user only (`store/files.py`). The schema is Alembic's (`store/migrations/`), the
same on both backends; files from before Alembic (hand-written schema_info
versions 1..3, `store/legacy.py`) are brought to its baseline and stamped, so old
recordings always open. Opening reads the stored version (a couple of small
queries) and imports Alembic only when it differs (`store/upgrade.py`). A file
that is not a database, or is damaged, raises `CorruptDatabaseError` with the
path in the message; a server that cannot be reached, a `StoreError` of one line.
A URL's password is never printed (`masked_url`).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import ArgumentError, DatabaseError, InterfaceError, OperationalError

from inspector.config import DEFAULT_DB
from inspector.errors import (
    CorruptDatabaseError,
    InspectorError,
    MissingExtraError,
    SchemaTooNewError,
    StoreError,
)
from inspector.store import fts, schema
from inspector.store.db import (
    ALEMBIC_HEAD,
    ALEMBIC_REVISIONS,
    SCHEMA_VERSION,
    Conn,
    database_url,
    looks_corrupt,
    mask_secrets,
    masked_url,
    store_name,
    stored_version,
)
from inspector.store.files import NEW_FILE_PRAGMAS, prepare_sqlite_file

__all__ = [
    "ALEMBIC_HEAD",
    "ALEMBIC_REVISIONS",
    "SCHEMA_VERSION",
    "database_url",
    "is_postgresql",
    "mask_secrets",
    "masked_url",
    "no_driver",
    "open_engine",
    "store_name",
    "write_connection",
]

_PG_LOCK = 0x6D63_7069  # pg_advisory_xact_lock key: one process migrates a database at a time


def no_driver(url: str, exc: ImportError) -> InspectorError:
    """The error for a database URL whose driver does not import: psycopg is the `postgres` extra."""
    if url.startswith("postgresql+psycopg://"):
        return MissingExtraError("PostgreSQL", "postgres")
    return StoreError(f"no driver for {masked_url(url)}: {exc}")


def is_postgresql(engine: Engine | Connection) -> bool:
    return engine.dialect.name == "postgresql"


def _sqlite_pragmas(dbapi_conn: sqlite3.Connection, _record: object) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA busy_timeout=30000")
    # A new file keeps a map of its free pages so that retention can give them back to the disk
    # (`PRAGMA incremental_vacuum`, store/retention.py). Only takes effect on a file without tables
    # yet, and only before WAL is set (a no-op on every other file; `prune` converts old ones once).
    # A file we created already has both (store/files.py). An empty file made by anyone else has to
    # write page 1 for them: racing another process at that, SQLite refuses one of the two at once
    # ("database is locked", without calling the busy handler), so that one tries again.
    for pragma in NEW_FILE_PRAGMAS:
        _until_unlocked(cur, pragma)
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()
    # Let SQLAlchemy's "begin" event emit BEGIN (see _begin) instead of pysqlite,
    # so writers can take the write lock up front with BEGIN IMMEDIATE.
    dbapi_conn.isolation_level = None


def _until_unlocked(cur: sqlite3.Cursor, sql: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        try:
            cur.execute(sql)
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.25)


def _begin(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN " + conn.get_execution_options().get("sqlite_begin", ""))


def write_connection(engine: Engine) -> Connection:
    """A connection whose transactions take SQLite's write lock at BEGIN (no lock-upgrade deadlocks): the
    migrations' and `db copy`'s (the writers run over DB-API: `store.db.writing`)."""
    return engine.connect().execution_options(sqlite_begin="IMMEDIATE")


def _first_line(exc: BaseException) -> str:
    text_exc = str(getattr(exc, "orig", None) or exc).strip()
    lines = [line.strip() for line in text_exc.splitlines() if line.strip()]
    return "; ".join(lines[:2]) if lines else type(exc).__name__


def open_engine(db: str | Path, *, create: bool = True) -> Engine:
    """Open (and create or upgrade) the database at `db`; raise a clear StoreError if it cannot be used."""
    url = database_url(db)
    is_sqlite = url.startswith("sqlite")
    if is_sqlite:
        path = Path(url.split("///", 1)[1])
        if not path.exists() and not create:
            raise StoreError(f"no recording database at {path}")
        if str(path) != ":memory:":
            # Created 0600 (and its folder 0700) before SQLite opens it: see store/files.py.
            prepare_sqlite_file(path, private_folder=DEFAULT_DB.parent.resolve())
    shown = masked_url(url)
    try:
        if is_sqlite:
            engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        elif url.startswith("postgresql"):
            # A server that does not answer fails in seconds, not at the OS's TCP timeout.
            engine = create_engine(url, connect_args={"connect_timeout": 10}, pool_pre_ping=True)
        else:
            engine = create_engine(url)
    except (ArgumentError, ValueError) as exc:
        raise StoreError(
            mask_secrets(f"{shown} is not a database URL this inspector can use: {exc}", db)
        ) from None
    except ImportError as exc:
        raise no_driver(url, exc) from None
    if is_sqlite:
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _begin)
    try:
        _migrate(engine)
    except (DatabaseError, OperationalError, InterfaceError) as exc:
        engine.dispose()
        if is_sqlite and _looks_corrupt(exc):
            raise CorruptDatabaseError(
                f"{url.split('///', 1)[1]} is not a usable mcp-inspector database ({exc.orig}). "
                "Move it aside or pass another --db."
            ) from exc
        if not is_sqlite and isinstance(exc, (OperationalError, InterfaceError)):
            raise StoreError(
                mask_secrets(f"cannot reach the database {shown}: {_first_line(exc)}", db)
            ) from None
        raise StoreError(
            mask_secrets(f"cannot open the recording database {shown}: {_first_line(exc)}", db)
        ) from None
    except SchemaTooNewError:
        engine.dispose()
        raise
    return engine


def _looks_corrupt(exc: Exception) -> bool:
    return looks_corrupt(str(getattr(exc, "orig", exc)))


def _create_fresh_sqlite(conn: Connection) -> bool:
    """A new, empty SQLite file gets the head schema from `store.schema` and is stamped at
    head, without importing Alembic: `wrap` creates databases often, and Alembic's imports and
    script loading cost 0.4 s idle and seconds under load, during which a host that leaves early
    finds the session not yet recorded. On SQLite the migrations' result and the metadata's are the
    same schema (BIGINT and INTEGER are both INTEGER affinity): tests/unit/test_store_backends.py
    holds the two against each other. False (nothing done) for any other database or a file that
    already has tables."""
    if conn.dialect.name != "sqlite" or conn.exec_driver_sql("SELECT 1 FROM sqlite_master LIMIT 1").first():
        return False
    schema.metadata.create_all(conn)
    fts.create(conn)  # what revision 0005 adds: the full-text index (store/fts.py)
    conn.exec_driver_sql(
        "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL, "
        "CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))"
    )
    conn.exec_driver_sql("INSERT INTO alembic_version (version_num) VALUES (?)", (ALEMBIC_HEAD,))
    conn.exec_driver_sql("CREATE TABLE schema_info (version INTEGER NOT NULL)")
    conn.exec_driver_sql("INSERT INTO schema_info (version) VALUES (?)", (SCHEMA_VERSION,))
    return True


def _stored_version(conn: Connection) -> tuple[int | None, str | None]:
    """schema_info's version and Alembic's revision as stored (None where the table is absent)."""
    if conn.dialect.name in ("sqlite", "postgresql"):
        return stored_version(Conn.of(conn))
    from sqlalchemy import inspect

    names = set(inspect(conn).get_table_names()) & {"schema_info", "alembic_version"}
    version = revision = None
    if "schema_info" in names:
        row = conn.exec_driver_sql("SELECT version FROM schema_info").first()
        version = int(row[0]) if row else 0
    if "alembic_version" in names:
        row = conn.exec_driver_sql("SELECT version_num FROM alembic_version").first()
        revision = str(row[0]) if row else None
    return version, revision


def _refuse_newer(version: int | None, revision: str | None) -> None:
    if version is not None and version > SCHEMA_VERSION:
        raise SchemaTooNewError(
            f"this database has schema version {version}, newer than this mcp-inspector "
            f"understands ({SCHEMA_VERSION}); upgrade mcp-inspector"
        )
    if revision is not None and revision not in ALEMBIC_REVISIONS:
        raise SchemaTooNewError(
            f"this database has schema revision {revision}, newer than this mcp-inspector "
            f"understands ({ALEMBIC_HEAD}); upgrade mcp-inspector"
        )


def _migrate(engine: Engine) -> None:
    with engine.connect() as conn, conn.begin():  # a read: no write lock on SQLite
        version, revision = _stored_version(conn)
    _refuse_newer(version, revision)
    if version == SCHEMA_VERSION and revision == ALEMBIC_HEAD:
        return  # the usual case: no Alembic import, no write lock
    with write_connection(engine) as conn:
        # Foreign keys off while upgrading: the legacy `_v3` rebuilds referenced tables under their names
        # (SQLite's table-rebuild procedure), which a per-statement check would refuse half-way. The
        # PRAGMA only works outside a transaction: on the DB-API connection (autocommit) before BEGIN.
        raw = conn.connection.dbapi_connection if engine.dialect.name == "sqlite" else None
        if raw is not None:
            raw.execute("PRAGMA foreign_keys=OFF")
        try:
            with conn.begin():
                if engine.dialect.name == "postgresql":
                    # Several recorders opening a new database at once: one migrates, the others wait
                    # and then find it done (SQLite's BEGIN IMMEDIATE serialises them the same way).
                    conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_PG_LOCK})")
                version, revision = _stored_version(conn)
                _refuse_newer(version, revision)
                if version == SCHEMA_VERSION and revision == ALEMBIC_HEAD:
                    return
                if version is None and revision is None and _create_fresh_sqlite(conn):
                    return
                from inspector.store.upgrade import upgrade

                upgrade(conn, version, revision, SCHEMA_VERSION)
        finally:
            if raw is not None:
                raw.execute("PRAGMA foreign_keys=ON")
