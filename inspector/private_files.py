"""Folders and files readable by the user only, whatever the umask.

Recordings and control files carry traffic and tokens, so the inspector
creates its folders 0700 and its files 0600 itself: the modes are set
explicitly after creation because the umask can only take bits away (a
umask of 002 or 000 would otherwise leave them group- or world-readable).
Files are created with `O_EXCL|O_NOFOLLOW`: a name that already exists
(a symlink planted by someone else included) is never opened for writing
by the create call.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

__all__ = ["OTHERS", "atomic_write", "create_private_file", "make_private_dirs", "mode_text"]

OTHERS = 0o077  # the group and other permission bits
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def mode_text(st_mode: int) -> str:
    """`0644` for a stat mode (the permission bits only)."""
    return f"{stat.S_IMODE(st_mode):04o}"


def make_private_dirs(path: Path) -> list[Path]:
    """Create `path` and its missing parents, each 0700; return the folders created (outermost first).

    Folders that already exist are left as they are: they may be the user's
    own project folder or a shared one like /tmp.
    """
    missing: list[Path] = []
    current = path
    while not current.exists() and not current.is_symlink():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    created: list[Path] = []
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            continue  # another process made it first; it is not ours to change
        os.chmod(folder, 0o700, follow_symlinks=False)
        created.append(folder)
    return created


def create_private_file(path: Path | str, *, dir_fd: int | None = None) -> int:
    """Create a new file 0600 and return its descriptor open for writing; FileExistsError if the name exists."""
    fd = os.open(path, _CREATE, 0o600, dir_fd=dir_fd)
    try:
        os.fchmod(fd, 0o600)
    except OSError:
        os.close(fd)
        raise
    return fd


def atomic_write(path: Path, data: bytes, mode: int | None = None, *, follow_links: bool = True) -> None:
    """Replace the file `path` with `data` at once: a new private file in the same folder, given
    `mode` (default: the file's own, 0600 for a new one), renamed over it. A reader sees the old
    bytes or the new. `path` a link: the file it points to is replaced (a user's linked dotfile),
    or with `follow_links=False` the link itself (files of our own, e.g. the credentials)."""
    import secrets  # here: it loads hashlib, which the read commands (that import this module) must not

    target = Path(os.path.realpath(path)) if follow_links else Path(path)
    if mode is None:
        try:
            mode = target.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o600
    temporary = target.with_name(f".{target.name}.mcp-inspect-{secrets.token_hex(6)}.tmp")
    fd = create_private_file(temporary)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
