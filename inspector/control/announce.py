"""The announcements of intercepting processes: `intercept-<pid>.json` in the runtime directory.

Each process's control channel (`inspector.control.server`) writes one (url,
token, pid, kind, target, the session ids it records, the database `db` when
the transport gives it) under the runtime directory's rules for its files
(`inspector.runtime_dir`); the UI's API and `mcp-inspect intercept` read them here.
"""

from __future__ import annotations

from typing import Any

from inspector.runtime_dir import live_files

__all__ = ["PREFIX", "announcements"]

PREFIX = "intercept-"


def _well_formed(data: dict[str, Any]) -> bool:
    pid = data.get("pid")
    url = data.get("url")
    return (
        type(pid) is int
        and pid > 0
        and isinstance(url, str)
        and url.startswith("http://127.0.0.1:")
        and isinstance(data.get("token"), str)
        and isinstance(data.get("sessions"), list)
        and all(type(s) is int for s in data["sessions"])
    )


def announcements(db: str | None = None) -> list[dict[str, Any]]:
    """The live intercepting processes' announcements (the user's own, well-formed files of running
    processes; with `db`, those recording into that database or not saying which)."""
    return [data for data in live_files(PREFIX, _well_formed) if db is None or data.get("db") in (None, db)]
