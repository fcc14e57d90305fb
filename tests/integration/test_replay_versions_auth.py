"""`replay --url --auth` and `versions --url --auth` against an authorization-protected server built
with the official Python SDK's server auth support (tests/peers/oauth_server.py).

A recording made with `call --auth` is replayed with a fresh auth file: the replay authorizes
itself (its session holds the legs, labelled), and the behaviour is unchanged. Without --auth the
replay stops at the 401 and says how to authorize. `versions --auth` probes two revisions, each
with its own OAuth rules; the second reuses the first's token. No token reaches the database.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_in_process import Ran, run
from tests.http_peers import LineProcess
from tests.secrets_scan import secret_leaks
from tests.warm_peers import peer_argv

AUTH = ["--auth", "--auth-non-interactive"]


@pytest.fixture
def server() -> Iterator[str]:
    process = LineProcess(peer_argv("tests.peers.oauth_server"))
    try:
        yield process.wait_for(r"listening on (\S+)").group(1)
    finally:
        process.stop()


def _run(env: dict[str, str], *args: str) -> Ran:
    """`mcp-inspect ARGS...` in-process (tests/cli_in_process.py) with `env` (the OAuth server is a process)."""
    return run(*args, env=env)


def _steps(db: Path, session: int) -> list[str]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT json_extract(meta, '$.auth_step') FROM message WHERE session_id = ?"
            " AND direction = 'c2s' AND json_extract(meta, '$.auth_step') IS NOT NULL ORDER BY seq",
            (session,),
        ).fetchall()
    return [r[0] for r in rows]


def _tokens(auth_file: Path) -> list[str]:
    grants = json.loads(auth_file.read_text())["servers"].values()
    return [t for g in grants for t in (g["tokens"]["access_token"], g["tokens"].get("refresh_token")) if t]


@pytest.mark.timeout(180)
def test_replay_authorizes_itself(tmp_path: Path, server: str) -> None:
    auth_file = tmp_path / "auth.json"
    env = {**os.environ, "MCP_INSPECTOR_AUTH_FILE": str(auth_file)}
    db = tmp_path / "rec.db"
    params = '{"name": "whoami", "arguments": {}}'
    recorded = _run(env, "call", "--db", str(db), "tools/call", "--params", params, "--url", server, *AUTH)
    assert recorded.returncode == 0, recorded.stderr
    seen = _tokens(auth_file)
    auth_file.unlink()  # the replay must get its own token

    refused = _run(env, "replay", "1", "--db", str(db), "--url", server)
    assert refused.returncode == 2
    assert "401" in refused.stderr and "--auth" in refused.stderr

    replayed = _run(env, "replay", "1", "--db", str(db), "--url", server, *AUTH)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "behaviour unchanged" in replayed.stdout
    session = int(replayed.stderr.rsplit("session ", 1)[1].split()[0])
    assert _steps(db, session) == [
        "unauthorized",
        "resource-metadata",
        "as-metadata",
        "registration",
        "authorization-request",
        "token-request",
    ]
    assert secret_leaks(db, seen + _tokens(auth_file)) == []


@pytest.mark.timeout(180)
def test_versions_authorize_each_revision(tmp_path: Path, server: str) -> None:
    """Each revision authorizes by its own rules: this server binds tokens to itself (RFC 8707),
    so a 2025-03-26 client, which sends no `resource`, is refused, and the matrix says so."""
    auth_file = tmp_path / "auth.json"
    env = {**os.environ, "MCP_INSPECTOR_AUTH_FILE": str(auth_file)}
    db = tmp_path / "rec.db"
    revisions = "2025-03-26,2025-06-18,2025-11-25"
    args = ["versions", "--db", str(db), "--url", server, "--revisions", revisions, "--json"]
    probed = _run(env, *args, *AUTH)
    assert probed.returncode == 1, probed.stderr  # one revision got no answer
    assert "2025-03-26 clients send no `resource`" in probed.stderr
    columns = {c["revision"]: c for c in json.loads(probed.stdout)["columns"]}
    assert columns["2025-03-26"]["outcome"] == "failed"
    assert "401" in columns["2025-03-26"]["error"]
    assert columns["2025-06-18"]["negotiated"] == "2025-06-18"
    assert columns["2025-11-25"]["negotiated"] == "2025-11-25"
    old, first, second = (columns[r]["session_id"] for r in revisions.split(","))
    assert "token-request" in _steps(db, old)  # it did authorize, without `resource`
    assert "token-request" in _steps(db, first)
    assert _steps(db, second) == []  # the 2025-06-18 token, from the auth file
    assert secret_leaks(db, _tokens(auth_file)) == []


def test_auth_options_need_auth(tmp_path: Path) -> None:
    env = {**os.environ, "MCP_INSPECTOR_AUTH_FILE": str(tmp_path / "auth.json")}
    for command in (["replay", "1"], ["versions"]):
        result = _run(
            env, *command, "--db", str(tmp_path / "x.db"), "--url", "http://127.0.0.1:9/mcp", "--scope", "a"
        )
        assert result.returncode == 2
        assert "go with --auth" in result.stderr
    stdio = _run(env, "versions", "--db", str(tmp_path / "x.db"), "--auth", "--", sys.executable, "-c", "0")
    assert stdio.returncode == 2 and "--auth needs --url" in stdio.stderr
