"""Settings and default paths. Environment variables are named MCP_INSPECTOR_*."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["DEFAULT_DB", "ENV", "config_path", "default_db"]

DEFAULT_DB = Path("recordings") / "inspector.db"

# Environment variables, by the dotted key they set.
ENV: dict[str, str] = {
    "db": "MCP_INSPECTOR_DB",
    "redact": "MCP_INSPECTOR_REDACT",  # comma-separated
    "retention.max_age": "MCP_INSPECTOR_MAX_AGE",
    "retention.max_total_size": "MCP_INSPECTOR_MAX_TOTAL_SIZE",
    "retention.max_session_size": "MCP_INSPECTOR_MAX_SESSION_SIZE",
    "storage.compress_above": "MCP_INSPECTOR_COMPRESS_ABOVE",
    "storage.dedup_above": "MCP_INSPECTOR_DEDUP_ABOVE",
    "storage.max_record_bytes": "MCP_INSPECTOR_MAX_RECORD_BYTES",
}


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the config file is looked for."""
    env = os.environ if environ is None else environ
    if env.get("MCP_INSPECTOR_CONFIG"):
        return Path(env["MCP_INSPECTOR_CONFIG"]).expanduser()
    from platformdirs import user_config_path

    return user_config_path("mcp-inspector", appauthor=False) / "config.toml"


def default_db() -> str:
    """The database to use when --db is not given: $MCP_INSPECTOR_DB, else the config file's `db`
    (`inspector/settings.py`), else ./recordings/inspector.db."""
    if os.environ.get("MCP_INSPECTOR_DB"):
        return os.environ["MCP_INSPECTOR_DB"]
    if _nothing_configured():
        return str(DEFAULT_DB)  # every setting is its default: the settings' models need not load
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
