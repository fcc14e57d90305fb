"""Opening the recording database over DB-API (`store/db.py`), SQLAlchemy only when it must change.

`open_db` opens a database at the current schema directly (sqlite3 or psycopg, the engine's pragmas,
the stored version read in plain SQL) and hands one that is new or older to `store.engine.open_engine`
first, which creates or upgrades it (SQLAlchemy, and Alembic for an upgrade), then opens it over
DB-API. The read commands of the CLI open the store here and import no SQLAlchemy.
"""

from __future__ import annotations

from pathlib import Path

from inspector.errors import CorruptDatabaseError, InspectorError, StoreError
from inspector.store.db import (
    ALEMBIC_HEAD,
    SCHEMA_VERSION,
    Db,
    _connect_postgresql,
    _connect_sqlite,
    _first_line,
    database_url,
    looks_corrupt,
    mask_secrets,
    masked_url,
    stored_version,
)

__all__ = ["open_db"]


def open_db(db: str | Path, *, create: bool = True) -> Db:
    """Open the database at `db` for reading and writing over DB-API; a database not at the current
    schema (new, or older) is created or upgraded first by `store.engine.open_engine`. Raises the same
    clear errors as `open_engine`."""
    url = database_url(db)
    shown = masked_url(url)
    if url.startswith("sqlite:///"):
        backend, path = "sqlite", Path(url.split("///", 1)[1])
        if not path.exists():
            if not create:
                raise StoreError(f"no recording database at {path}")
            return _upgraded(db, create)
        from inspector.config import DEFAULT_DB
        from inspector.store.files import prepare_sqlite_file

        # The folder and file the user's only, as `open_engine` checks them (store/files.py).
        prepare_sqlite_file(path, private_folder=DEFAULT_DB.parent.resolve())
    elif url.startswith("postgresql+psycopg://"):
        backend = "postgresql"
    else:
        return _upgraded(db, create)  # another database: SQLAlchemy's dialects
    try:
        raw = _connect_sqlite(path) if backend == "sqlite" else _connect_postgresql(url)
    except InspectorError:
        raise
    except Exception as exc:  # psycopg's OperationalError and the like: a server that does not answer
        if backend == "sqlite" and looks_corrupt(str(exc)):  # the pragmas read a file that is not SQLite
            raise _corrupt(path, exc) from None
        raise StoreError(mask_secrets(f"cannot reach the database {shown}: {_first_line(exc)}", db)) from None
    handle = Db(raw, backend, url)
    try:
        version, revision = stored_version(handle._conn)
    except Exception as exc:  # sqlite3.DatabaseError, psycopg.Error: the engine's path gives the message
        handle.dispose()
        if backend == "sqlite" and looks_corrupt(str(exc)):
            raise _corrupt(path, exc) from None
        return _upgraded(db, create)
    if version == SCHEMA_VERSION and revision == ALEMBIC_HEAD:
        return handle
    handle.dispose()
    return _upgraded(db, create)


def _corrupt(path: Path, exc: BaseException) -> CorruptDatabaseError:
    return CorruptDatabaseError(
        f"{path} is not a usable mcp-inspector database ({exc}). Move it aside or pass another --db."
    )


def _upgraded(db: str | Path, create: bool) -> Db:
    """Create or upgrade through `open_engine` (its errors as they are), then open over DB-API."""
    from inspector.store.engine import open_engine

    open_engine(db, create=create).dispose()
    url = database_url(db)
    if url.startswith("sqlite:///"):
        return Db(_connect_sqlite(Path(url.split("///", 1)[1])), "sqlite", url)
    if url.startswith("postgresql+psycopg://"):
        return Db(_connect_postgresql(url), "postgresql", url)
    raise StoreError(f"{masked_url(url)}: only SQLite and PostgreSQL databases can be read")
