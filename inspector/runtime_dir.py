"""The runtime directory: where `mcp-inspect serve` processes announce their control channel.

Each serve process writes `serve-<pid>.json` (its control URL and token)
there and the UI lists the files. The directory is
`$MCP_INSPECTOR_RUNTIME`, else `$XDG_RUNTIME_DIR/mcp-inspector/serve`
(a per-user tmpfs on most Linux desktops), else the same under
`/run/user/<uid>` when that exists and is the user's (what
`$XDG_RUNTIME_DIR` names in a login session), else
`~/.cache/mcp-inspector/serve`.

Another local user must not be able to read a token or make us write
through a link they planted, so:

- a missing directory is created 0700;
- a directory not owned by this user, with any group/other permission bit,
  or that is itself a symlink is refused (`RuntimeDirError`, nothing written);
- the directory is opened once and every file operation is relative to that
  descriptor (no path is looked up twice, so swapping a folder after the
  check changes nothing);
- files are written as a new 0600 temporary (`O_EXCL|O_NOFOLLOW`) renamed
  over the final name: a rename replaces a link, it never follows it;
- the lister skips anything that is not a regular file owned by this user
  (checked with lstat and again on the opened descriptor), too large, or
  not a JSON object.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from inspector.errors import RuntimeDirError
from inspector.private_files import OTHERS, create_private_file, make_private_dirs, mode_text

__all__ = [
    "check_runtime_dir",
    "live_files",
    "read_json_files",
    "remove_file",
    "runtime_path",
    "write_json",
]

MAX_FILE = 64 * 1024  # a control file is ~200 bytes; anything bigger is not ours
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
_OPEN_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def runtime_path() -> Path:
    """The runtime directory this process uses (see the module docstring for the order)."""
    if os.environ.get("MCP_INSPECTOR_RUNTIME"):
        return Path(os.environ["MCP_INSPECTOR_RUNTIME"]).expanduser()
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isabs(xdg):  # the XDG spec says to ignore a relative value
        return Path(xdg) / "mcp-inspector" / "serve"
    # MCP hosts start stdio servers with a trimmed environment (the SDKs pass HOME, PATH, USER...,
    # not XDG_RUNTIME_DIR): the login session's runtime directory, when there is one, keeps such a
    # serve process in the same place as the UI started from a terminal.
    session = Path(f"/run/user/{os.geteuid()}")
    with contextlib.suppress(OSError):
        st = session.lstat()
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid():
            return session / "mcp-inspector" / "serve"
    return Path.home() / ".cache" / "mcp-inspector" / "serve"


def _refuse(path: Path, why: str) -> RuntimeDirError:
    return RuntimeDirError(
        f"refusing the runtime directory {path}: {why}. Serve control files hold tokens, so it must "
        "be a directory of your own with mode 0700; set MCP_INSPECTOR_RUNTIME to one (or unset it)."
    )


@contextlib.contextmanager
def _opened(create: bool) -> Iterator[int | None]:
    """The checked directory's descriptor (None when it is missing and `create` is false)."""
    path = runtime_path()
    if create:
        try:
            make_private_dirs(path)
        except OSError as exc:
            raise RuntimeDirError(f"cannot create the runtime directory {path}: {exc.strerror}") from None
    try:
        fd = os.open(path, _OPEN_DIR)
    except FileNotFoundError:
        if create:
            raise RuntimeDirError(f"the runtime directory {path} vanished while being created") from None
        fd = None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            why = "it is a symbolic link" if os.path.islink(path) else "it is not a directory"
            raise _refuse(path, why) from None
        raise RuntimeDirError(f"cannot open the runtime directory {path}: {exc.strerror}") from None
    if fd is None:
        yield None
        return
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid():
            raise _refuse(path, f"it belongs to uid {st.st_uid}, not to you (uid {os.geteuid()})")
        if st.st_mode & OTHERS:
            raise _refuse(path, f"it has mode {mode_text(st.st_mode)}, open to other users")
        yield fd
    finally:
        os.close(fd)


def check_runtime_dir() -> Path:
    """Create the runtime directory if needed and check it; RuntimeDirError when it is not safe."""
    with _opened(create=True):
        return runtime_path()


def write_json(name: str, data: dict[str, Any]) -> Path:
    """Write `data` to the file `name` in the runtime directory, readable by the user only."""
    assert "/" not in name and name not in ("", ".", "..")
    body = json.dumps(data).encode()
    with _opened(create=True) as dir_fd:
        assert dir_fd is not None
        temporary = f".{name}.{secrets.token_hex(6)}.tmp"
        fd = create_private_file(temporary, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(body)
            os.replace(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=dir_fd)
            raise
    return runtime_path() / name


def remove_file(name: str) -> None:
    """Remove `name` from the runtime directory (nothing when it, or the directory, is gone or unsafe)."""
    with contextlib.suppress(RuntimeDirError), _opened(create=False) as dir_fd:
        if dir_fd is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=dir_fd)


def _read_owned(name: str, dir_fd: int) -> dict[str, Any] | None:
    uid = os.geteuid()
    try:
        seen = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if not stat.S_ISREG(seen.st_mode) or seen.st_uid != uid or seen.st_size > MAX_FILE:
            return None
        fd = os.open(name, _OPEN_READ, dir_fd=dir_fd)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        # The same file we looked at (not replaced in between), still a regular file of ours.
        if (st.st_dev, st.st_ino) != (seen.st_dev, seen.st_ino) or st.st_uid != uid:
            return None
        body = f.read(MAX_FILE + 1)
    try:
        data = json.loads(body)
    except ValueError:
        return None
    return data if isinstance(data, dict) and len(body) <= MAX_FILE else None


def read_json_files(prefix: str, suffix: str = ".json") -> list[dict[str, Any]]:
    """The JSON objects of the user's own regular files `prefix*suffix`, by name.

    An unsafe or missing directory lists nothing: the serve processes refuse
    to write there, so nothing of ours can be in it.
    """
    try:
        with _opened(create=False) as dir_fd:
            if dir_fd is None:
                return []
            names = sorted(n for n in os.listdir(dir_fd) if n.startswith(prefix) and n.endswith(suffix))
            found = [_read_owned(name, dir_fd) for name in names]
    except (RuntimeDirError, OSError):
        return []
    return [data for data in found if data is not None]


def live_files(prefix: str, well_formed: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """`read_json_files(prefix)` that `well_formed` accepts and whose process (`pid`) still runs.

    `well_formed` must check that `pid` is an int above 0 (0 or below would make `os.kill`
    signal a process group)."""
    out = []
    for data in read_json_files(prefix, ".json"):
        if not well_formed(data):
            continue
        try:
            os.kill(data["pid"], 0)
        except OSError:
            continue  # its process is gone
        out.append(data)
    return out
