"""The gateway's client token: what a request must carry to use a route that adds credentials.

A route's `headers` (an API key, say) are added to every request it forwards, so without a check
any local process (and with allow_remote, the network) could use them. Such a route answers only
requests that carry this token, in the `X-MCP-Inspector-Token` header (what a host's config for an
HTTP server can set) or the `inspector_token` query parameter; the gateway takes either off before
the route's proxy sees the request, so it is never forwarded or recorded.

The token is made once per config file and kept beside it in `FILE.token`, created 0600
(`O_EXCL|O_NOFOLLOW`); a token file that is not a regular file of this user's, or is open to group
or others, is refused (`InspectorError`), as an unsafe runtime directory is.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from inspector.errors import InspectorError
from inspector.private_files import OTHERS, create_private_file, mode_text

__all__ = ["TOKEN_HEADER", "TOKEN_PARAM", "client_token", "token_path"]

TOKEN_HEADER = "X-MCP-Inspector-Token"
TOKEN_PARAM = "inspector_token"
_MAX = 4096


def token_path(config_path: str | Path) -> Path:
    """Where the token of this config file is kept."""
    path = Path(config_path)
    return path.with_name(path.name + ".token")


def _refuse(path: Path, why: str) -> InspectorError:
    return InspectorError(
        f"refusing the gateway's client token file {path}: {why}; it must be a file of your own with "
        "mode 0600 (remove it to have a new token made)"
    )


def client_token(config_path: str | Path) -> tuple[str, Path, bool]:
    """(the token, its file, whether it was made now); InspectorError when the file is not safe."""
    path = token_path(config_path)
    token = secrets.token_urlsafe(32)
    try:
        fd = create_private_file(path)
    except FileExistsError:
        return _read(path), path, False
    except OSError as exc:
        raise InspectorError(
            f"cannot create the gateway's client token file {path}: {exc.strerror}"
        ) from None
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return token, path, True


def _read(path: Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        why = "it is a symbolic link" if os.path.islink(path) else (exc.strerror or str(exc))
        raise _refuse(path, why) from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(path, "it is not a regular file")
        if st.st_uid != os.geteuid():
            raise _refuse(path, f"it belongs to uid {st.st_uid}, not to you (uid {os.geteuid()})")
        if st.st_mode & OTHERS:
            raise _refuse(path, f"it has mode {mode_text(st.st_mode)}, open to other users")
        text = f.read(_MAX + 1)
    token = text.decode("ascii", "replace").strip()
    if len(text) > _MAX or len(token) < 16 or any(c.isspace() or not c.isprintable() for c in token):
        raise _refuse(path, "it does not hold one token of at least 16 characters")
    return token
