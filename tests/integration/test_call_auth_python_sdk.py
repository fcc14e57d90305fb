"""`call --auth` against an authorization-protected server built with the official Python SDK's
server auth support (tests/peers/oauth_server.py): it registers, authorizes, calls a tool; the next
run reuses the token from the user-only auth file; when the server no longer accepts it (401) the
client refreshes instead of authorizing again. The recordings hold no token. The server is a process
forked from the warm server (tests/warm_peers.py): the SDK's imports are not paid at each start."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from tests.cli_in_process import Ran, run
from tests.http_peers import LineProcess
from tests.secrets_scan import secret_leaks
from tests.warm_peers import peer_argv

CLI = [sys.executable, "-m", "inspector"]
# The OAuth SDK server, forked from the warm server (tests/warm_peers.py).
OAUTH_SERVER = peer_argv("tests.peers.oauth_server")


def _call(db: Path, env: dict[str, str], url: str, *args: str) -> Ran:
    """`mcp-inspect call --auth` in this process (tests/cli_in_process.py); the server is a process."""
    return run(
        "call", "--db", str(db), *args, "--url", url, "--auth", "--auth-non-interactive", "--timeout", "20",
        env=dict(env),
    )  # fmt: skip


def _steps(db: Path, session: int) -> list[str]:
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT json_extract(meta, '$.auth_step') FROM message WHERE session_id = ? AND direction = 'c2s'"
        " AND json_extract(meta, '$.auth_step') IS NOT NULL ORDER BY seq",
        (session,),
    ).fetchall()
    conn.close()
    return [r[0] for r in rows]


@pytest.mark.timeout(120)
def test_authorize_call_then_refresh(tmp_path: Path) -> None:
    import os

    env = {**os.environ, "MCP_INSPECTOR_AUTH_FILE": str(tmp_path / "auth.json")}
    server = LineProcess(OAUTH_SERVER)
    try:
        url = server.wait_for(r"listening on (\S+)").group(1)
        db = tmp_path / "rec.db"
        first = _call(db, env, url, "tools/call", "--params", '{"name": "whoami", "arguments": {}}')
        assert first.returncode == 0, first.stderr
        assert "hello, authorized client" in first.stdout
        assert _steps(db, 1) == [
            "unauthorized",
            "resource-metadata",
            "as-metadata",
            "registration",
            "authorization-request",
            "token-request",
        ]
        grant = next(iter(json.loads((tmp_path / "auth.json").read_text())["servers"].values()))
        first_token = grant["tokens"]["access_token"]

        second = _call(db, env, url, "tools/call", "--params", '{"name": "forget_tokens", "arguments": {}}')
        assert second.returncode == 0, second.stderr
        # The stored token served the call; the requests after the tool dropped the tokens (the
        # closing DELETE, maybe the GET stream) got 401s: one refresh, no new authorization.
        steps = _steps(db, 2)
        assert steps.count("refresh") == 1 and set(steps) == {"unauthorized", "refresh"}, steps

        third = _call(db, env, url, "tools/list")
        assert third.returncode == 0, third.stderr
        assert _steps(db, 3) == []  # the refreshed token, from the auth file
        grant = next(iter(json.loads((tmp_path / "auth.json").read_text())["servers"].values()))
        assert grant["tokens"]["access_token"] != first_token
        assert grant["resource"] == url
        secrets = [first_token, grant["tokens"]["access_token"], grant["tokens"]["refresh_token"]]
        assert secret_leaks(db, secrets) == []
    finally:
        server.stop()
