"""Settings and default paths. Environment variables are named MCP_INSPECTOR_*."""

from __future__ import annotations

import os
from pathlib import Path

from inspector.settings_sources import ENV, config_path

__all__ = ["DEFAULT_DB", "default_db"]

DEFAULT_DB = Path("recordings") / "inspector.db"


def default_db() -> str:
    """The database to use when --db is not given: $MCP_INSPECTOR_DB, else the config file's `db`
    (`inspector/settings.py`), else ./recordings/inspector.db."""
    if os.environ.get("MCP_INSPECTOR_DB"):
        return os.environ["MCP_INSPECTOR_DB"]
    if _nothing_configured():
        return str(DEFAULT_DB)  # every setting is its default: nothing to read or check
    from inspector.settings import load

    db = load().settings.db
    if not db:
        return str(DEFAULT_DB)
    return db if "://" in db else str(Path(db).expanduser())


def _nothing_configured() -> bool:
    """No config file and no MCP_INSPECTOR_* variable of the settings: what `settings.load` reads
    (and checks) is all absent, so every setting is its default. A file that exists but cannot be
    read is not absent: `load` says why."""
    if any(os.environ.get(var) for var in ENV.values()):
        return False
    try:
        config_path().stat()
    except FileNotFoundError:
        return True
    except OSError:  # there but out of reach: `load` says so
        pass
    return False
