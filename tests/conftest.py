"""Shared fixtures: temporary databases, the wrap command line, real peers."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "tests" / "peers"
SCRIPTED = [sys.executable, str(PEERS / "scripted_server.py")]
EVERYTHING_BIN = PEERS / "node_modules" / ".bin" / "mcp-server-everything"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "rec.db"


def wrap_argv(db: Path, *server: str, extra: tuple[str, ...] = ()) -> list[str]:
    """The command line of `mcp-inspect wrap` around a server command."""
    return [sys.executable, "-m", "inspector", "wrap", "--db", str(db), *extra, "--", *server]


@pytest.fixture
def everything_cmd() -> list[str]:
    if not EVERYTHING_BIN.exists() or shutil.which("node") is None:
        pytest.fail("server-everything is not installed: run `make peers` (make test does it)")
    return [str(EVERYTHING_BIN), "stdio"]
