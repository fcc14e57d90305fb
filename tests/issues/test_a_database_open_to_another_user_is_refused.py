"""Regression (issue 33, finding 6): a SQLite database owned by another user, or in a folder that
another user owns or may write to, was used after a warning. SQLite then creates `-wal`/`-shm`
beside it (as root: owned by the database file's owner), so that user reads every recorded
message; in a folder others can write, they can also plant the `-wal`/`-shm` (or the database)
first. Now such a database is refused with one line, as an unsafe runtime directory is
(`runtime_dir.py`); a folder we create is 0700 and a database of our own open to others is
tightened, as before.

The tests run as root, which can give files to another user (65534, `nobody`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from inspector.errors import StoreError
from inspector.store import open_engine
from tests.cli_in_process import run

OTHER = 65534
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give files to another user")


def _refused(db: Path) -> str:
    with pytest.raises(StoreError) as caught:
        engine = open_engine(db)
        engine.dispose()
    return str(caught.value)


@as_root
def test_a_database_file_of_another_user_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "theirs.db"
    db.touch()
    db.chmod(0o600)
    os.chown(db, OTHER, OTHER)
    message = _refused(db)
    assert str(db) in message and f"uid {OTHER}" in message, message
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()


@as_root
def test_a_database_in_a_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o755)
    os.chown(folder, OTHER, OTHER)
    db = folder / "rec.db"
    message = _refused(db)
    assert str(folder) in message and f"uid {OTHER}" in message, message
    assert not db.exists()


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o770], ids=["world-writable", "sticky /tmp-like", "group"])
def test_a_database_in_a_folder_others_can_write_is_refused(tmp_path: Path, mode: int) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(mode)
    db = folder / "rec.db"
    message = _refused(db)
    assert str(folder) in message and f"{mode & 0o7777:04o}" in message, message
    assert not db.exists()


@as_root
def test_a_wal_file_planted_by_another_user_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    open_engine(db).dispose()
    wal = Path(f"{db}-wal")
    wal.touch()
    wal.chmod(0o666)
    os.chown(wal, OTHER, OTHER)
    message = _refused(db)
    assert str(wal) in message and f"uid {OTHER}" in message, message


def test_the_command_line_says_it_in_one_line_and_exits_2(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    open_engine(folder / "rec.db").dispose()  # recorded into, then the folder opened up
    folder.chmod(0o777)
    done = run("sessions", "--db", str(folder / "rec.db"))  # in-process: its exit status and stderr
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "refusing the database" in lines[0] and "Traceback" not in done.stderr, lines


def test_a_folder_and_database_of_our_own_still_open(tmp_path: Path) -> None:
    """The usual cases are unchanged: new folders are made 0700, a folder of ours that only others
    can read is fine, a database file of ours open to others is tightened."""
    readable = tmp_path / "readable"
    readable.mkdir()
    readable.chmod(0o755)
    open_engine(readable / "a.db").dispose()
    db = readable / "b.db"
    db.touch()
    db.chmod(0o644)
    open_engine(db).dispose()
    assert db.stat().st_mode & 0o777 == 0o600
    open_engine(tmp_path / "new" / "deeper" / "c.db").dispose()
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700
