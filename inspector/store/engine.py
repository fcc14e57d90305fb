"""Opening the recording database: engine, SQLite pragmas, schema versions.

SQLite (WAL, one file under `recordings/`) is the embedded default; any
SQLAlchemy URL works for the portable parts. The SQLite files are readable
by the user only (`store/files.py`). The schema carries a version
number from the first release and `MIGRATIONS` upgrades older files in
order, so old recordings always open. A file that is not a database, or is
damaged, raises `CorruptDatabaseError` with the path in the message.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.exc import DatabaseError, OperationalError
from sqlalchemy.schema import CreateTable
from sqlmodel import SQLModel

from inspector.config import DEFAULT_DB
from inspector.errors import CorruptDatabaseError, SchemaTooNewError, StoreError
from inspector.store import models  # registers the tables
from inspector.store.files import prepare_sqlite_file

__all__ = ["SCHEMA_VERSION", "database_url", "open_engine", "write_connection"]


def _v1(conn) -> None:
    SQLModel.metadata.create_all(conn)


def _v2(conn) -> None:
    # Lint findings (issue 8). A fresh database got them from _v1's create_all already.
    tables = [models.LintFinding.__table__, models.LintRun.__table__]  # type: ignore[attr-defined]
    SQLModel.metadata.create_all(conn, tables=tables, checkfirst=True)


def _v3(conn) -> None:
    """`session` and `message` ids are never reused (SQLite AUTOINCREMENT).

    Without it SQLite gives a new row the highest id + 1, so deleting the newest session handed its
    ids to the next one: the live feed and the full-text index (which remember the highest id they
    have seen) then missed the new rows, and an open `/sessions/N` page showed another session.
    SQLite cannot add AUTOINCREMENT to a table, so each is rebuilt under its name, ids kept
    (foreign keys are off meanwhile: see `_migrate`). A fresh database has it from `_v1`."""
    if conn.dialect.name != "sqlite":
        return  # other databases' identity columns never reuse ids
    for table, floor_sql in (
        (models.Session.__table__, None),  # type: ignore[attr-defined]
        (models.Message.__table__, "SELECT indexed_upto FROM fts_state"),  # type: ignore[attr-defined]
    ):
        name = table.name
        ddl = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        sql = ddl.scalar_one()
        if "AUTOINCREMENT" in sql.upper():
            continue
        columns = ", ".join(f'"{c.name}"' for c in table.columns)
        create = str(CreateTable(table).compile(dialect=conn.dialect)).strip()
        conn.exec_driver_sql(create.replace(f"CREATE TABLE {name} ", f"CREATE TABLE {name}_v3 ", 1))
        conn.exec_driver_sql(f"INSERT INTO {name}_v3 ({columns}) SELECT {columns} FROM {name}")
        conn.exec_driver_sql(f"DROP TABLE {name}")
        conn.exec_driver_sql(f"ALTER TABLE {name}_v3 RENAME TO {name}")
        for index in table.indexes:
            index.create(conn)
        # Ids handed out before (and deleted since) may still be in the full-text index's watermark.
        floor = 0
        if floor_sql and conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = 'fts_state'").first():
            floor = conn.exec_driver_sql(floor_sql).scalar() or 0
        conn.exec_driver_sql("DELETE FROM sqlite_sequence WHERE name IN (?, ?)", (name, f"{name}_v3"))
        conn.exec_driver_sql(
            f"INSERT INTO sqlite_sequence (name, seq) SELECT ?, MAX(COALESCE(MAX(id), 0), ?) FROM {name}",
            (name, floor),
        )


# Index i upgrades a database at schema version i to version i + 1.
MIGRATIONS: list[Callable] = [_v1, _v2, _v3]
SCHEMA_VERSION = len(MIGRATIONS)


def database_url(db: str | Path) -> str:
    """An SQLAlchemy URL for a path (or the URL itself when one is given)."""
    text_db = str(db)
    if "://" in text_db:
        return text_db
    return f"sqlite:///{Path(text_db).expanduser().resolve()}"


def _sqlite_pragmas(dbapi_conn: sqlite3.Connection, _record: object) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()
    # Let SQLAlchemy's "begin" event emit BEGIN (see _begin) instead of pysqlite,
    # so writers can take the write lock up front with BEGIN IMMEDIATE.
    dbapi_conn.isolation_level = None


def _begin(conn) -> None:
    conn.exec_driver_sql("BEGIN " + conn.get_execution_options().get("sqlite_begin", ""))


def write_connection(engine: Engine):
    """A connection whose transactions take SQLite's write lock at BEGIN (no lock-upgrade deadlocks)."""
    return engine.connect().execution_options(sqlite_begin="IMMEDIATE")


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
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": 30} if is_sqlite else {},
        # A server that restarted leaves dead connections in the pool: test each before use.
        pool_pre_ping=not is_sqlite,
    )
    if is_sqlite:
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _begin)
    try:
        _migrate(engine)
    except (DatabaseError, OperationalError) as exc:
        engine.dispose()
        if is_sqlite and _looks_corrupt(exc):
            raise CorruptDatabaseError(
                f"{url.split('///', 1)[1]} is not a usable mcp-inspector database ({exc.orig}). "
                "Move it aside or pass another --db."
            ) from exc
        raise StoreError(f"cannot open the recording database {url}: {exc.orig}") from exc
    return engine


def _looks_corrupt(exc: Exception) -> bool:
    message = str(getattr(exc, "orig", exc)).lower()
    return any(word in message for word in ("not a database", "malformed", "corrupt", "disk image"))


def _migrate(engine: Engine) -> None:
    with write_connection(engine) as conn:
        # Foreign keys off while upgrading: `_v3` rebuilds referenced tables under their names (SQLite's
        # table-rebuild procedure), which a per-statement check would refuse half-way. The PRAGMA only
        # works outside a transaction: on the DB-API connection (autocommit) before BEGIN.
        raw = conn.connection.dbapi_connection if engine.dialect.name == "sqlite" else None
        if raw is not None:
            raw.execute("PRAGMA foreign_keys=OFF")
        try:
            _migrate_steps(conn)
        finally:
            if raw is not None:
                raw.execute("PRAGMA foreign_keys=ON")


# pg_advisory_xact_lock key of schema creation and upgrades ("mcpinsp" in ASCII).
_SCHEMA_LOCK = 0x6D6370696E7370


def _migrate_steps(conn) -> None:
    with conn.begin():
        if conn.dialect.name == "postgresql":
            # Recorders starting at once on a fresh database: concurrent CREATE TABLE IF NOT EXISTS
            # race in PostgreSQL's catalog (duplicate pg_type key). One at a time, until COMMIT.
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK})
        conn.execute(text("CREATE TABLE IF NOT EXISTS schema_info (version INTEGER NOT NULL)"))
        row = conn.execute(text("SELECT version FROM schema_info")).first()
        version = row[0] if row else 0
        if version > SCHEMA_VERSION:
            raise SchemaTooNewError(
                f"this database has schema version {version}, newer than this mcp-inspector "
                f"understands ({SCHEMA_VERSION}); upgrade mcp-inspector"
            )
        if version == SCHEMA_VERSION:
            return
        for step in MIGRATIONS[version:]:
            step(conn)
        if row:
            conn.execute(text("UPDATE schema_info SET version = :v"), {"v": SCHEMA_VERSION})
        else:
            conn.execute(text("INSERT INTO schema_info (version) VALUES (:v)"), {"v": SCHEMA_VERSION})
