"""The SQLite database's files on disk, readable by the user only.

Recordings are whole conversations, tokens included, so whatever the umask:

- folders created for the database are 0700, and so is the default
  `./recordings` folder when it is the user's (tightened if it is not);
- a new database file is created 0600 by us before SQLite opens it: SQLite
  gives the `-wal` and `-shm` files it creates the database file's
  permissions, so they are 0600 too;
- a new database file appears at its name already a WAL database (written
  under a temporary name, then hard-linked into place): two processes opening
  a database that does not exist yet (a `show --follow` started before its
  `wrap`, a host starting several wrapped servers on one `--db`) never both
  find an empty file. On an empty file each connection's switch to WAL has to
  write page 1; when two race, SQLite refuses one at once with "database is
  locked" (its busy handler would deadlock), and a wrap that got it could not
  record at all;
- an existing database (or its `-wal`/`-shm`) open to group or others is
  tightened to 0600 when the user owns it, and stderr says so (once: the
  next open finds it tight);
- a database, `-wal` or `-shm` owned by another user, or a folder owned by
  another user (root aside) or writable by group or others (/tmp included),
  is refused (`StoreError`, nothing opened), as an unsafe runtime directory
  is: SQLite would give that user the `-wal`/`-shm` it creates (as root it
  chowns them to the database's owner), and in a folder others can write
  they can plant those files, or the database, before us.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import threading
from pathlib import Path

from inspector.errors import StoreError
from inspector.private_files import OTHERS, create_private_file, make_private_dirs, mode_text

__all__ = ["NEW_FILE_PRAGMAS", "SIDE_FILES", "prepare_sqlite_file"]

SIDE_FILES = ("-wal", "-shm")


def _say(text: str) -> None:
    print(f"mcp-inspect: {text}", file=sys.stderr, flush=True)


def _refuse(db: Path, path: Path, why: str) -> StoreError:
    where = "" if path == db else f": {path}"
    return StoreError(
        f"refusing the database {db}{where} {why}. Recordings hold whole conversations, so the "
        "database, its -wal/-shm and its folder must be yours and not writable by others; "
        "use a folder of your own (e.g. --db ~/mcp-recordings/inspector.db)"
    )


def _check_folder(db: Path) -> None:
    """The database's folder: this user's (or root's), writable by nobody else."""
    folder = db.parent
    try:
        st = folder.stat()
    except OSError as exc:
        raise StoreError(f"cannot use the folder {folder} for the database: {exc.strerror}") from None
    if st.st_uid not in (os.geteuid(), 0):
        raise _refuse(db, folder, f"belongs to uid {st.st_uid}, not to you (uid {os.geteuid()})")
    if st.st_mode & _WRITABLE_BY_OTHERS:
        raise _refuse(db, folder, f"has mode {mode_text(st.st_mode)}: other users can write in it")


_WRITABLE_BY_OTHERS = 0o022


def _tighten(path: Path, private_mode: int, db: Path) -> None:
    """`path` made `private_mode` when it is open to others; StoreError when another user owns it."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    if st.st_uid != os.geteuid():
        raise _refuse(db, path, f"belongs to uid {st.st_uid}, not to you (uid {os.geteuid()})")
    if not st.st_mode & OTHERS:
        return
    try:
        os.chmod(path, private_mode)
    except OSError as exc:
        _say(f"warning: {path} is open to other users (mode {mode_text(st.st_mode)}): {exc.strerror}")
        return
    _say(f"{path} was open to other users (mode {mode_text(st.st_mode)}): made it {private_mode:04o}")


def prepare_sqlite_file(path: Path, *, private_folder: Path | None = None) -> None:
    """Make `path` ready for SQLite to open: its folder and the file itself readable by the user only.

    `private_folder` is the inspector's own folder (the default
    `./recordings`): tightened to 0700 even when it already existed.
    """
    try:
        make_private_dirs(path.parent)
    except OSError as exc:
        raise StoreError(f"cannot create the folder {path.parent} for the database: {exc.strerror}") from None
    if private_folder is not None and path.parent == private_folder:
        _tighten(path.parent, 0o700, path)
    _check_folder(path)
    if not path.exists():
        try:
            _create_database(path)
            return  # new: its -wal/-shm inherit its 0600
        except FileExistsError:
            pass  # another process made it first
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                f"cannot create the database {path}: {getattr(exc, 'strerror', None) or exc}"
            ) from None
    for file in (path, *(Path(f"{path}{side}") for side in SIDE_FILES)):
        _tighten(file, 0o600, path)


# What a new database file is given before it gets its name; store/engine.py's connections set the
# same (both are no-ops on a file that already is a WAL database).
NEW_FILE_PRAGMAS = ("PRAGMA auto_vacuum=INCREMENTAL", "PRAGMA journal_mode=WAL")


def _create_database(path: Path) -> None:
    """Create `path` as an empty WAL database, 0600, which no other process can see half made: it
    is written under a temporary name in the same folder and hard-linked into place (a link, unlike a
    rename, never replaces a database another process created meanwhile: FileExistsError then).
    Where the file system has no hard links, the empty file is created in place (the old way)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.new")
    os.close(create_private_file(temporary))
    try:
        conn = sqlite3.connect(temporary, isolation_level=None)
        try:
            for pragma in NEW_FILE_PRAGMAS:
                conn.execute(pragma)
        finally:
            conn.close()  # the last connection: SQLite checkpoints and removes the -wal
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise
        except OSError:
            os.close(create_private_file(path))
    finally:
        for name in (temporary, *(Path(f"{temporary}{side}") for side in SIDE_FILES)):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)
