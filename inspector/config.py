"""Settings and default paths. Environment variables are named MCP_INSPECTOR_*."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DEFAULT_DB", "default_db"]

DEFAULT_DB = Path("recordings") / "inspector.db"


def default_db() -> str:
    """The database to use when --db is not given: $MCP_INSPECTOR_DB, else ./recordings/inspector.db."""
    return os.environ.get("MCP_INSPECTOR_DB") or str(DEFAULT_DB)
