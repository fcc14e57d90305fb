"""Each command imports what it uses (issue #36, start-up): the read commands and `--help` never load
the web stack, Alembic or mcp-types (lint, which validates messages, loads mcp-types only), and
`call` against a stdio server never loads the HTTP client, the OAuth listener or mcp-types; `sessions`,
`show` and `search` read the store without SQLAlchemy or SQLModel. The process boundary is the point: each command runs through the
console entry (`python -m inspector`) in a fresh interpreter whose imports are listed on its stderr
(`PYTHONPROFILEIMPORTTIME`), on a store at the current revision (the checked-in demo session).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import mcp_types
import pytest

from inspector.protocol import mcp_tables
from tests.sessions import load

# Never for reading a store or printing help: the API server, migrations, the SDK's models, outbound
# HTTP, JSON Schema.
NOT_FOR_READING = ("fastapi", "starlette", "uvicorn", "alembic", "mcp_types", "mcp", "httpx", "jsonschema")

# A stdio server that answers every request with an empty result (what `call ping` needs).
ANSWERING_SERVER = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" in msg and "method" in msg:
        result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result if msg["method"] == "initialize" else {}}), flush=True)
"""


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("imports") / "demo.db"
    load(db, "demo", name="demo")
    return db


def imports_of(args: list[str], db: Path) -> tuple[set[str], str]:
    """The top-level packages `mcp-inspect ARGS` imports, and its stdout."""
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1", "MCP_INSPECTOR_DB": str(db), "COLUMNS": "120"}
    done = subprocess.run(
        [sys.executable, "-m", "inspector", *args], capture_output=True, env=env, timeout=120, check=False
    )
    stderr = done.stderr.decode()
    assert done.returncode == 0, stderr[-2000:]
    modules = {line.split("|")[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}
    assert "inspector.entry" in modules  # the listing did come through
    return {m.split(".")[0] for m in modules}, done.stdout.decode()


@pytest.mark.parametrize(
    ("args", "shows"),
    [
        (["--help"], "sessions"),
        (["sessions"], "demo"),
        (["show", "1"], "initialize"),
        (["search", "tool"], "tools/"),
        (["lint", "1"], "no errors"),  # it validates messages: mcp-types is its own to load
    ],
    ids=["help", "sessions", "show", "search", "lint"],
)
def test_read_commands_load_no_web_stack_migrations_or_sdk_models(
    demo_db: Path, args: list[str], shows: str
) -> None:
    packages, out = imports_of(args, demo_db)
    assert shows in out
    unwanted = set(NOT_FOR_READING) - ({"mcp_types"} if args[0] == "lint" else set())
    assert not packages & unwanted, sorted(packages & unwanted)
    if args[0] != "lint":  # help opens no store; the other reads run over DB-API (store/db.py)
        assert not packages & {"sqlalchemy", "sqlmodel"}, sorted(packages & {"sqlalchemy", "sqlmodel"})


def test_call_on_a_stdio_server_loads_no_http_client_oauth_or_sdk_models(
    demo_db: Path, tmp_path: Path
) -> None:
    server = tmp_path / "server.py"
    server.write_text(ANSWERING_SERVER)
    packages, out = imports_of(["call", "ping", "--", sys.executable, str(server)], tmp_path / "call.db")
    assert out.strip() == "{}"
    assert "sqlalchemy" in packages  # it did record
    assert not packages & set(NOT_FOR_READING), sorted(packages & set(NOT_FOR_READING))


def test_the_url_elicitation_code_is_that_of_mcp_types() -> None:
    # protocol.mcp_tables holds it so that the mock client needs no mcp-types to recognise it.
    assert mcp_tables.URL_ELICITATION_REQUIRED == mcp_types.URL_ELICITATION_REQUIRED
