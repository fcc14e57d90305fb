"""What `install` changed, kept so that `uninstall` can undo it: per host file, a change record
(`<id>.json`: the file, the SHA-256 of the bytes we wrote, whether the file was ours alone since
the first install, the entries' changes) and the original bytes (`<id>.orig`), both 0600 in a 0700
folder of the user's state directory.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from inspector.private_files import atomic_write, make_private_dirs

__all__ = [
    "digest",
    "drop_record",
    "load_record",
    "original_bytes",
    "save_record",
    "state_dir",
]


def state_dir() -> Path:
    """Where the change records live: the user's state folder (`$XDG_STATE_HOME/mcp-inspector`,
    else `~/.local/state/mcp-inspector` on Linux; the platform's own elsewhere) / installed."""
    from platformdirs import user_state_path

    return user_state_path("mcp-inspector", appauthor=False) / "installed"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _id(path: Path) -> str:
    return hashlib.sha256(str(path).encode()).hexdigest()[:20]


def _write_private(target: Path, data: bytes) -> None:
    make_private_dirs(target.parent)
    atomic_write(target, data, mode=0o600)


def load_record(path: Path) -> dict[str, Any] | None:
    """The change record of the host file `path`, or None."""
    try:
        data = json.loads((state_dir() / f"{_id(path)}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("file") == str(path) else None


def original_bytes(path: Path) -> bytes | None:
    """The bytes the host file `path` had before the first install (None: it had no backup)."""
    try:
        return (state_dir() / f"{_id(path)}.orig").read_bytes()
    except OSError:
        return None


def save_record(path: Path, record: dict[str, Any], original: bytes | None) -> None:
    """Keep `record` for `path`, and `original` as its backup (when given: the first install)."""
    base = state_dir()
    if original is not None:
        _write_private(base / f"{_id(path)}.orig", original)
    _write_private(base / f"{_id(path)}.json", json.dumps(record, indent=2).encode())


def drop_record(path: Path) -> None:
    for suffix in (".json", ".orig"):
        with contextlib.suppress(FileNotFoundError):
            (state_dir() / f"{_id(path)}{suffix}").unlink()


def all_records() -> list[dict[str, Any]]:
    """Every change record kept (for the gateway's routes still in use)."""
    out = []
    with contextlib.suppress(OSError):
        for item in sorted(state_dir().glob("*.json")):
            with contextlib.suppress(OSError, ValueError):
                data = json.loads(item.read_text(encoding="utf-8"))
                if isinstance(data, dict):
                    out.append(data)
    return out
