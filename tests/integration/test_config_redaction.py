"""The config file's redaction names and per-server rules reach the one redaction step of every
recorder: a real `wrap` of a real SDK server, driven by the real mock client (`call`), whose own
recording also reads the config file. A bad config file stops `wrap` before it records anything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from inspector.store import iter_messages, list_sessions, open_engine
from tests.cli_in_process import Ran, run
from tests.conftest import PEERS
from tests.secrets_scan import placeholders, secret_leaks
from tests.shim_process import ended_named
from tests.warm_peers import inspector_argv

CLI = [sys.executable, "-m", "inspector"]
ARG_KEY = "ArgumentKeySecret1c9e"
NOTE = "NoteSecret7b2d4"
TENANT = "TenantSecret5e0a"
# The SDK server as a plain process: under `wrap` under the in-process `call`, a warm-forked one
# holds the call's child's pipes past the call (asyncio's "Event loop is closed" at its GC), as
# tests/integration/test_secrets_at_rest.py says of a warm wrap there.
SERVER = [sys.executable, str(PEERS / "secrets_server.py"), "--stdio"]


def _run(args: list[str], config: Path) -> subprocess.CompletedProcess[str] | Ran:
    """`args` under the config file: `mcp-inspect call` in this process (tests/cli_in_process.py),
    anything else (wrap: its own start-up reads the file) as a process."""
    if args[: len(CLI) + 1] == [*CLI, "call"]:
        return run(*args[len(CLI) :], env={"MCP_INSPECTOR_CONFIG": str(config), "MCP_INSPECTOR_REDACT": None})
    env = {**os.environ, "MCP_INSPECTOR_CONFIG": str(config)}
    env.pop("MCP_INSPECTOR_REDACT", None)
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)


def test_wrap_redacts_the_config_files_names_and_the_matching_servers_names(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'redact = ["note"]\n\n'
        "[[servers]]\n"
        'match = "secret-srv"\n'
        'redact = ["api_key", "params.arguments.tenant"]\n'
    )
    wrap_db, call_db = tmp_path / "wrap.db", tmp_path / "call.db"
    args = json.dumps(
        {"name": "echo", "arguments": {"text": "hello", "api_key": ARG_KEY, "note": NOTE, "tenant": TENANT}}
    )
    wrapped = [*CLI, "wrap", "--db", str(wrap_db), "--name", "secret-srv", "--", *SERVER]
    out = _run([*CLI, "call", "tools/call", "--db", str(call_db), "--params", args, "--", *wrapped], config)
    assert out.returncode == 0, out.stderr
    assert "key given: True, note given: True" in out.stdout  # the server got them all
    ended_named(wrap_db, "secret-srv")  # a wrap the client's SIGTERM hurried may record it seconds later
    # wrap's session is named secret-srv: the file's names and the rule's are redacted.
    assert secret_leaks(wrap_db, [ARG_KEY, NOTE, TENANT]) == []
    stored = placeholders(wrap_db)
    assert '"api_key":"[secret:body.api_key]"' in stored and '"note":"[secret:body.note]"' in stored
    assert '"tenant":"[secret:body.params.arguments.tenant]"' in stored
    engine = open_engine(wrap_db, create=False)
    (session,) = list_sessions(engine)
    (call,) = [
        m for m in iter_messages(engine, session.id) if m.method == "tools/call" and m.kind == "request"
    ]
    assert call.meta["redacted"] == ["body.api_key", "body.note", "body.params.arguments.tenant"]
    engine.dispose()
    # The mock client's session matches no rule: the file's name only (the rule is per server).
    assert secret_leaks(call_db, [NOTE]) == []
    assert secret_leaks(call_db, [ARG_KEY]) != []


def test_a_bad_config_file_stops_wrap_naming_the_file_and_the_key(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('redact = "note"\n')  # a string, not a list
    db = tmp_path / "rec.db"
    # A process (its start-up reads the file), forked warm: its exit status and stderr are the point
    # (it stops before it starts the server).
    out = _run(inspector_argv("wrap", "--db", str(db), "--", *SERVER), config)
    assert out.returncode != 0
    lines = [line for line in out.stderr.splitlines() if str(config) in line]
    assert len(lines) == 1 and "redact" in lines[0], out.stderr
    assert "Traceback" not in out.stderr
    assert not db.exists() or not list_sessions(open_engine(db, create=False))


def test_the_gateway_applies_a_server_rule_per_route(tmp_path: Path) -> None:
    """Two routes to the same real server: the rule matching route `gh` (the session's name) redacts
    its sessions only; the file's name is redacted in both."""
    from tests.gateway_helpers import gateway_in_process, route_table
    from tests.secrets_scan import secrets_server

    config = tmp_path / "config.toml"
    config.write_text('redact = ["note"]\n\n[[servers]]\nmatch = "gh"\nredact = ["api_key"]\n')
    db = tmp_path / "gateway.db"
    args = json.dumps({"name": "echo", "arguments": {"text": "hello", "api_key": ARG_KEY, "note": NOTE}})
    env: dict[str, str | None] = {"MCP_INSPECTOR_CONFIG": str(config), "MCP_INSPECTOR_REDACT": None}
    with secrets_server(tmp_path / "upstream.log") as target:
        routes = route_table("gh", "/gh", target) + route_table("plain", "/plain", target)
        with gateway_in_process(routes, db, tmp_path, env=env) as (base, _proc):
            for route in ("gh", "plain"):
                url = f"{base}/{route}/mcp"
                call = [
                    *CLI,
                    "call",
                    "tools/call",
                    "--db",
                    str(tmp_path / f"{route}.db"),
                    "--params",
                    args,
                    "--url",
                    url,
                ]
                out = _run(call, config)
                assert out.returncode == 0, out.stderr
    engine = open_engine(db, create=False)
    names = {s.id: s.name for s in list_sessions(engine)}
    engine.dispose()
    assert set(names.values()) == {"gh", "plain"}, names
    assert secret_leaks(db, [NOTE]) == []
    leaks = secret_leaks(db, [ARG_KEY])
    assert leaks, "the rule is for route gh only: plain's session keeps the value"
    engine = open_engine(db, create=False)
    for sid, name in names.items():
        raws = b"".join(m.raw for m in iter_messages(engine, sid))
        assert (ARG_KEY.encode() in raws) == (name == "plain"), name
    engine.dispose()
