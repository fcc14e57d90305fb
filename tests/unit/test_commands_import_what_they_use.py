"""Each command imports what it uses (issue #36, start-up): the read commands and `--help` never load
the web stack, Alembic or mcp-types (lint, which validates messages, loads mcp-types only, and only
when the session has no current stored findings), and `call` against a stdio server never loads the
HTTP client, the OAuth listener, mcp-types, a validation library (pydantic: the settings are read by `settings.py` itself) or the replay's matching; on a store at the current revision `sessions`, `show`,
`search` and `lint` read it, and `lint`, `call` and `wrap` write it, without SQLAlchemy or SQLModel. Nor does any of them load what the CLI itself does not use there: `--help`
builds no command, and help (`--help`, a command's `--help`) is rendered by Click's formatter without
Rich at all (Markdown's parser and Pygments included), and plain option values are read without pydantic (Typer's adapters). The process boundary is the point:
each command runs through the
console entry (`python -m inspector`) in a fresh interpreter whose imports are listed on its stderr
(`PYTHONPROFILEIMPORTTIME`), on a store at the current revision (the checked-in demo session).
"""

from __future__ import annotations

import contextlib
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


# What the CLI's own start-up never needs for these commands: Markdown's parser and Pygments (help
# text is not Markdown, tracebacks are not pretty), pydantic's adapters for option values.
NOT_FOR_THE_CLI = ("markdown_it", "pygments", "typer._adapters")


def imports_of(args: list[str], db: Path, *, once: bool = False) -> tuple[set[str], str]:
    """The top-level packages `mcp-inspect ARGS` imports, and its stdout."""
    modules, out = modules_of(args, db, once=once)
    return {m.split(".")[0] for m in modules}, out


# The runs of a read command on the module's `demo_db`, by its arguments (`modules_of(once=True)`).
_READS: dict[tuple[str, ...], tuple[set[str], str]] = {}


def modules_of(
    args: list[str],
    db: Path,
    stdin: bytes = b"",
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    *,
    once: bool = False,
) -> tuple[set[str], str]:
    """The modules `mcp-inspect ARGS` imports (given `stdin`), and its stdout; `env`: the whole
    environment in place of this one with `db` as $MCP_INSPECTOR_DB. `once`: a read of the module's
    `demo_db` runs once, and the tests that check other modules of the same command share its run."""
    if once:
        if tuple(args) not in _READS:
            _READS[tuple(args)] = modules_of(args, db, stdin, env, cwd)
        return _READS[tuple(args)]
    base = {**os.environ, "MCP_INSPECTOR_DB": str(db), "COLUMNS": "120"} if env is None else env
    done = subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        capture_output=True,
        env={**base, "PYTHONPROFILEIMPORTTIME": "1"},
        input=stdin,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    stderr = done.stderr.decode()
    assert done.returncode == 0, stderr[-2000:]
    modules = {line.split("|")[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}
    assert "inspector.entry" in modules  # the listing did come through
    return modules, done.stdout.decode()


@pytest.mark.parametrize(
    ("args", "shows"),
    [
        (["--help"], "sessions"),
        (["sessions", "--limit", "5"], "demo"),
        (["show", "1"], "initialize"),
        (["stats", "1"], "tools/call"),
        (["search", "tool"], "tools/"),
        (["lint", "1"], "no errors"),  # it validates messages: mcp-types is its own to load
    ],
    ids=["help", "sessions", "show", "stats", "search", "lint"],
)
def test_read_commands_load_no_web_stack_migrations_or_sdk_models(
    demo_db: Path, args: list[str], shows: str
) -> None:
    packages, out = imports_of(args, demo_db, once=True)
    assert shows in out
    unwanted = set(NOT_FOR_READING) - ({"mcp_types"} if args[0] == "lint" else set())
    assert not packages & unwanted, sorted(packages & unwanted)
    # help opens no store; the others read (and lint writes its findings) over DB-API (store/db.py)
    assert not packages & {"sqlalchemy", "sqlmodel"}, sorted(packages & {"sqlalchemy", "sqlmodel"})


@pytest.mark.parametrize(
    "args",
    [["--help"], ["sessions", "--limit", "5"], ["show", "1", "--help"], ["search", "tool"]],
    ids=["help", "sessions", "show-help", "search"],
)
def test_the_cli_loads_no_markdown_parser_traceback_renderer_or_value_adapters_and_help_no_rich(
    demo_db: Path, args: list[str]
) -> None:
    modules, out = modules_of(args, demo_db, once=True)
    assert out.strip()
    unwanted = {m for m in modules if m.startswith(NOT_FOR_THE_CLI)}
    assert not unwanted, sorted(unwanted)
    if "--help" in args:
        assert not {m for m in modules if m.split(".")[0] == "rich" or m == "typer.rich_utils"}


# What printing the store never loads (issue #36): the columns' validation metadata (annotated_types,
# read by pydantic where a session file or the API is checked: `store.column_types`), the protocol
# core's framing, correlation, JSON-RPC and version tables (`show` needs only `client_identity`'s
# words), hashing, sockets; nor, for `sessions` and `show`, the full-text search; nor, for `show` and
# `search` (lines, not a table), Rich's table and its layout arithmetic (fractions, decimal).
NOT_FOR_PRINTING = (
    "annotated_types",
    "inspector.store.column_types",
    "inspector.protocol.framing",
    "inspector.protocol.correlate",
    "inspector.protocol.jsonrpc",
    "inspector.protocol.versions",
    "hashlib",
    "socket",
)


@pytest.mark.parametrize(
    "args",
    [["--help"], ["sessions", "--limit", "5"], ["show", "1"], ["search", "tool"]],
    ids=["help", "sessions", "show", "search"],
)
def test_printing_the_store_loads_no_validation_metadata_protocol_core_hashing_or_sockets(
    demo_db: Path, args: list[str]
) -> None:
    modules, out = modules_of(args, demo_db, once=True)
    assert out.strip()
    unwanted = set(NOT_FOR_PRINTING) | ({"inspector.store.search"} if args[0] != "search" else set())
    if args[0] in ("show", "search"):
        unwanted |= {"rich.table", "fractions", "decimal"}
    assert not modules & unwanted, sorted(modules & unwanted)


def test_reading_the_default_store_without_a_config_file_loads_no_pydantic(
    demo_db: Path, tmp_path: Path
) -> None:
    # No $MCP_INSPECTOR_DB and no config file: the default ./recordings/inspector.db, every setting its
    # default, nothing to check, so the settings' models (pydantic) are not loaded.
    (tmp_path / "recordings").mkdir()
    (tmp_path / "recordings" / "inspector.db").write_bytes(demo_db.read_bytes())
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_INSPECTOR_")}
    env["MCP_INSPECTOR_CONFIG"] = str(tmp_path / "none.toml")
    modules, out = modules_of(["sessions"], demo_db, env=env, cwd=tmp_path)
    assert "demo" in out
    assert not {m for m in modules if m.split(".")[0] in ("pydantic", "pydantic_core", "inspector.settings")}
    assert "inspector.settings" not in modules


# What reading the settings never loads (`inspector/settings.py` checks them itself).
NO_VALIDATION_LIBRARY = {"pydantic", "pydantic_core", "annotated_types", "typing_inspection"}


def test_call_on_a_stdio_server_loads_no_http_client_oauth_or_sdk_models(
    demo_db: Path, tmp_path: Path
) -> None:
    server = tmp_path / "server.py"
    server.write_text(ANSWERING_SERVER)
    db = tmp_path / "call.db"
    load(db, "demo", name="demo")  # a store at the current revision: nothing to create or upgrade
    modules, out = modules_of(["call", "ping", "--", sys.executable, str(server)], db)
    packages = {m.split(".")[0] for m in modules}
    assert out.strip() == "{}"
    assert _recorded(db, "mock-client") == [
        "initialize",
        "initialize",
        "ping",
        "ping",
    ]  # recorded, over DB-API
    assert not packages & {"sqlalchemy", "sqlmodel"}, sorted(packages & {"sqlalchemy", "sqlmodel"})
    assert not packages & set(NOT_FOR_READING), sorted(packages & set(NOT_FOR_READING))
    assert not {m for m in modules if m.startswith(NOT_FOR_THE_CLI)}
    # its settings ($MCP_INSPECTOR_DB here, the redaction names, the record cap) are read and checked
    # by `inspector/settings.py` alone: no validation library
    assert not packages & NO_VALIDATION_LIBRARY, sorted(packages & NO_VALIDATION_LIBRARY)
    # nor the replay's matching, which only a `recorded` responder uses (the call has none)
    assert not {m for m in modules if m.startswith("inspector.replay")}
    # nor a TOML parser: there is no config file to parse (conftest points $MCP_INSPECTOR_CONFIG at none)
    assert "tomllib" not in modules
    # nor what only some calls use (issue #36, start-up): the store's reads (the call writes), the
    # checks of a server's requests to the client (the server sends none), the OAuth options' checks
    # (no --auth option given)
    assert not modules & NOT_FOR_A_PLAIN_CALL, sorted(modules & NOT_FOR_A_PLAIN_CALL)


# What `call ping` on a stdio server that asks the client nothing never uses.
NOT_FOR_A_PLAIN_CALL = {
    "inspector.store.queries",
    "inspector.protocol.client_answers",
    "inspector.protocol.sampling_rules",
    "inspector.protocol.rule_findings",
    "inspector.auth.connect",
}


def test_wrap_records_a_current_store_without_sqlalchemy(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    server.write_text(ANSWERING_SERVER)
    db = tmp_path / "wrap.db"
    load(db, "demo", name="demo")
    ping = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n'
    modules, out = modules_of(
        ["wrap", "--durable", "--quiet", "--db", str(db), "--", sys.executable, str(server)], db, ping
    )
    packages = {m.split(".")[0] for m in modules}
    assert '"id": 1' in out
    assert _recorded(db, "stdio-wrap") == ["ping", "ping"]  # the request and its answer's pair
    assert not packages & {"sqlalchemy", "sqlmodel"}, sorted(packages & {"sqlalchemy", "sqlmodel"})


def _recorded(db: Path, kind: str) -> list[str]:
    """The methods of the messages of the newest session of `kind` (a request's answer names it)."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT COALESCE(m.method, q.method) FROM message m JOIN session s ON s.id = m.session_id "
            "LEFT JOIN message q ON q.session_id = m.session_id AND q.seq = m.answers_seq "
            "WHERE s.id = (SELECT MAX(id) FROM session WHERE kind = ?) AND m.kind IN ('request', 'response') "
            "ORDER BY m.seq",
            (kind,),
        ).fetchall()
    return [str(r[0]) for r in rows]


def test_the_url_elicitation_code_is_that_of_mcp_types() -> None:
    # protocol.mcp_tables holds it so that the mock client needs no mcp-types to recognise it.
    assert mcp_tables.URL_ELICITATION_REQUIRED == mcp_types.URL_ELICITATION_REQUIRED


def test_lint_of_a_session_linted_by_this_rule_set_loads_no_sdk_models(tmp_path: Path) -> None:
    # Its stored findings are current (nothing recorded since, the same rules, code and mcp-types):
    # they are read, not found again, so no message is validated and no mcp-types model loads.
    db = tmp_path / "demo.db"
    load(db, "demo", name="demo")
    first_packages, first = imports_of(["lint", "1"], db)  # the first lint validates the messages
    assert "mcp_types" in first_packages
    packages, out = imports_of(["lint", "1"], db)
    assert out == first and "no errors" in out
    assert not packages & set(NOT_FOR_READING), sorted(packages & set(NOT_FOR_READING))
    assert not (packages | first_packages) & {"sqlalchemy", "sqlmodel"}  # read and written over DB-API
