"""Settings and default paths. Environment variables are named MCP_INSPECTOR_*."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DEFAULT_DB", "default_db"]

DEFAULT_DB = Path("recordings") / "inspector.db"


def default_db() -> str:
    """The database to use when --db is not given: $MCP_INSPECTOR_DB, else the config file's `db`
    (`inspector/settings.py`), else ./recordings/inspector.db."""
    if os.environ.get("MCP_INSPECTOR_DB"):
        return os.environ["MCP_INSPECTOR_DB"]
    from inspector.settings import load

    db = load().settings.db
    if not db:
        return str(DEFAULT_DB)
    return db if "://" in db else str(Path(db).expanduser())
