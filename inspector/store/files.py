"""The SQLite database's files on disk, readable by the user only.

Recordings are whole conversations, tokens included, so whatever the umask:

- folders created for the database are 0700, and so is the default
  `./recordings` folder when it is the user's (tightened if it is not);
- a new database file is created 0600 by us before SQLite opens it: SQLite
  gives the `-wal` and `-shm` files it creates the database file's
  permissions, so they are 0600 too;
- an existing database (or its `-wal`/`-shm`) open to group or others is
  tightened to 0600 when the user owns it, and stderr says so (once: the
  next open finds it tight). One owned by someone else is left alone with a
  warning on stderr.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from inspector.errors import StoreError
from inspector.private_files import OTHERS, create_private_file, make_private_dirs, mode_text

__all__ = ["SIDE_FILES", "prepare_sqlite_file"]

SIDE_FILES = ("-wal", "-shm")


def _say(text: str) -> None:
    print(f"mcp-inspect: {text}", file=sys.stderr, flush=True)


def _tighten(path: Path, private_mode: int) -> None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    if not st.st_mode & OTHERS:
        return
    if st.st_uid != os.geteuid():
        _say(
            f"warning: {path} is open to other users (mode {mode_text(st.st_mode)}) and belongs to "
            f"uid {st.st_uid}, not you: left as it is"
        )
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
        _tighten(path.parent, 0o700)
    try:
        os.close(create_private_file(path))
        return  # new and empty: SQLite will make it a database, its -wal/-shm inherit 0600
    except FileExistsError:
        pass
    except OSError as exc:
        raise StoreError(f"cannot create the database {path}: {exc.strerror}") from None
    for file in (path, *(Path(f"{path}{side}") for side in SIDE_FILES)):
        _tighten(file, 0o600)
