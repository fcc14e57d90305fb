"""`protocol.mcp_tables` is a snapshot of the constants the recorder needs from `mcp-types`, so that a
wrapped server's recording starts without importing `mcp_types` (its pydantic models of every
revision were 37% of the store's imports, seconds on a loaded host). The snapshot must be exactly
what the installed `mcp-types` says, and the wrap's recording must not import `mcp_types` after all."""

from __future__ import annotations

import importlib.metadata
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import mcp_types
import pytest
from mcp_types import methods, version

from inspector.protocol import mcp_tables

TABLES = (
    "CLIENT_REQUESTS",
    "CLIENT_NOTIFICATIONS",
    "CLIENT_RESULTS",
    "SERVER_REQUESTS",
    "SERVER_NOTIFICATIONS",
    "SERVER_RESULTS",
)


def test_the_revisions_and_meta_keys_are_those_of_mcp_types() -> None:
    for name in ("KNOWN_PROTOCOL_VERSIONS", "HANDSHAKE_PROTOCOL_VERSIONS", "MODERN_PROTOCOL_VERSIONS"):
        assert getattr(mcp_tables, name) == tuple(getattr(version, name)), name
    keys = [k for k in dir(mcp_types) if k.endswith("_META_KEY")]
    assert keys and all(getattr(mcp_tables, k) == getattr(mcp_types, k) for k in keys)


def test_the_snapshot_is_of_the_installed_release() -> None:
    # A stored lint result is current only for the release it was validated with (`lint.stored`).
    assert importlib.metadata.version("mcp-types") == mcp_tables.MCP_TYPES_VERSION


def test_revisions_compare_as_mcp_types_compares_them() -> None:
    unknown = ("", "2099-01-01", "zzz", "2025-11-24")
    for v in (*version.KNOWN_PROTOCOL_VERSIONS, *unknown):
        for minimum in version.KNOWN_PROTOCOL_VERSIONS:
            assert mcp_tables.is_version_at_least(v, minimum) == version.is_version_at_least(v, minimum)
        for minimum in unknown:
            with pytest.raises(ValueError):
                version.is_version_at_least(v, minimum)
            with pytest.raises(ValueError):
                mcp_tables.is_version_at_least(v, minimum)


@pytest.mark.parametrize("name", TABLES)
def test_each_method_table_is_that_of_mcp_types(name: str) -> None:
    theirs = frozenset(getattr(methods, name))
    ours = getattr(mcp_tables, name)
    assert ours == theirs, (
        f"mcp_tables.{name} is out of date with mcp-types: "
        f"missing {sorted(theirs - ours)}, extra {sorted(ours - theirs)}"
    )


def test_a_wrapped_server_is_recorded_without_importing_mcp_types(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    line = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}  # every import of the wrap, on its stderr
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "wrap", "--db", str(db), "--", "cat"],
        input=line,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout == line
    with sqlite3.connect(db) as conn:  # the store did open and record (its imports did run)
        assert conn.execute("select count(*) from message").fetchone()[0] >= 1
    imported = {
        part.split("|")[-1].strip() for part in done.stderr.decode().splitlines() if "import time:" in part
    }
    assert "inspector.store.engine" in imported and "inspector.protocol.versions" in imported
    assert not {m for m in imported if m == "mcp_types" or m.startswith("mcp_types.")}
