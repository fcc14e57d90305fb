"""`mcp-inspect call`: one request from the command line, every revision's handshake, recorded.

The command runs in this process (tests/cli_in_process.py); the server is a real process (the demo).
One refusal runs through the console script, for its exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.store import iter_messages, list_sessions, open_engine
from tests.cli_in_process import Ran, run
from tests.http_peers import demo_http_server
from tests.warm_peers import demo_argv

CLI = [sys.executable, "-m", "inspector"]
DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)


def _call(db: Path, *args: str) -> Ran:
    return run("call", "--db", str(db), *args)


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
def test_call_a_tool_under_each_revision(db_path: Path, version: str) -> None:
    params = json.dumps({"name": "echo", "arguments": {"text": f"hello {version}"}})
    out = _call(db_path, "tools/call", "--params", params, "--protocol-version", version, "--", *DEMO)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["content"][0]["text"] == f"hello {version}"
    engine = open_engine(db_path)
    (session,) = list_sessions(engine)
    assert session.kind == "mock-client" and session.status == "ended"
    methods = [m.method for m in iter_messages(engine, session.id) if m.direction == "c2s"]
    if version == "2026-07-28":
        assert methods[0] == "server/discover" and "initialize" not in methods
        assert session.protocol_version == "2026-07-28"
    else:
        assert methods[:2] == ["initialize", "notifications/initialized"]
        assert session.offered_version == version


def test_input_required_round_trip_is_answered_from_the_roots_flag(db_path: Path) -> None:
    params = json.dumps({"name": "list_client_roots", "arguments": {}})
    out = _call(
        db_path,
        "tools/call",
        "--params",
        params,
        "--protocol-version",
        "2026-07-28",
        "--root",
        "file:///tmp/r1",
        "--",
        *DEMO,
    )
    assert out.returncode == 0, out.stderr
    assert "file:///tmp/r1" in json.loads(out.stdout)["content"][0]["text"]
    engine = open_engine(db_path)
    rows = list(iter_messages(engine, list_sessions(engine)[0].id))
    calls = [m for m in rows if m.method == "tools/call" and m.kind == "request"]
    assert len(calls) == 2 and b"inputResponses" in calls[1].raw and b"requestState" in calls[1].raw


def test_handshake_era_server_request_is_answered_too(db_path: Path) -> None:
    params = json.dumps({"name": "list_client_roots", "arguments": {}})
    out = _call(db_path, "tools/call", "--params", params, "--root", "file:///tmp/r2", "--", *DEMO)
    assert out.returncode == 0 and "file:///tmp/r2" in out.stdout
    params = json.dumps({"name": "ask_llm", "arguments": {"question": "?"}})
    refused = _call(db_path, "tools/call", "--params", params, "--", *DEMO)
    # Nobody is there to sample: the refusal (code -1, as the spec's user rejection) comes back as the error.
    assert refused.returncode == 1
    assert json.loads(refused.stdout) == {"code": -1, "message": "rejected by the user"}


def test_error_response_exits_1_and_unreachable_exits_2(db_path: Path) -> None:
    out = _call(db_path, "no/such/method", "--", *DEMO)
    assert out.returncode == 1 and json.loads(out.stdout)["code"] == -32601
    down = _call(db_path, "tools/list", "--url", "http://127.0.0.1:9/mcp")
    assert (
        down.returncode == 2
        and "could not talk to the server" in down.stderr
        and "Traceback" not in down.stderr
    )
    # The console script's own exit status for a user error (refused before the server is started).
    bad = subprocess.run(
        [*CLI, "call", "--db", str(db_path), "tools/call", "--params", "[1", "--", *DEMO],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "not valid JSON" in bad.stderr
    assert _call(db_path, "tools/call", "--params", "[1", "--", *DEMO).returncode == 2


def test_call_over_streamable_http_and_legacy_sse(db_path: Path) -> None:
    for transport in ("streamable-http", "sse"):
        with demo_http_server(transport, warm=True) as url:
            out = _call(
                db_path, "tools/call", "--params", '{"name":"echo","arguments":{"text":"web"}}', "--url", url
            )
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["content"][0]["text"] == "web"
