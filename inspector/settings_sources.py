"""Where the settings come from (`inspector/settings.py` reads and checks them): the config file's
path and the environment variables, by the dotted key each sets. The standard library only (and
platformdirs when the path is asked for), so that `config.default_db` can tell whether anything is
configured without reading and checking the settings (`settings.py`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["ENV", "config_path"]

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
