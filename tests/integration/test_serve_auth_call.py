"""Our own `call --auth` against `serve --auth`: the whole flow, and the no-S256 fault refused with
the failed expectation named (2025-11-25: the client MUST refuse an AS that does not advertise S256).
Both sides' recordings hold no token, code or secret."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx
import pytest

from inspector.scenario.runner import ServeOptions
from tests.cli_in_process import Ran, run
from tests.integration.serve_helpers import serve_http_in_process
from tests.secrets_scan import secret_leaks


def _call(db: Path, auth_file: Path, url: str, *extra: str) -> Ran:
    """Our client in-process (tests/cli_in_process.py), as `serve --auth` (serve_http_in_process)."""
    return run(
        "call", "--db", str(db), "--url", url, *extra, "--auth", "--auth-non-interactive", "--timeout", "20",
        "tools/call", "--params", '{"name": "echo", "arguments": {"text": "authorized"}}',
        env={"MCP_INSPECTOR_AUTH_FILE": str(auth_file)},
    )  # fmt: skip


def _client_steps(db: Path, session: int = 1) -> list[str]:
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT json_extract(meta, '$.auth_step') FROM message WHERE direction = 'c2s' AND session_id = ?"
        " AND json_extract(meta, '$.auth_step') IS NOT NULL ORDER BY seq",
        (session,),
    ).fetchall()
    conn.close()
    return [r[0] for r in rows]


def _secrets(auth_file: Path) -> list[str]:
    """Every token and client secret our client keeps (they must be in neither recording)."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("access_token", "refresh_token", "client_secret") and isinstance(item, str):
                    found.append(item)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json.loads(auth_file.read_text()))
    return found


def _guard_checks(origin: str) -> None:
    """The authorization endpoints are behind the listener's guard, as /mcp is."""
    port = origin.rsplit(":", 1)[1]
    metadata = f"{origin}/.well-known/oauth-authorization-server"
    assert httpx.get(metadata).status_code == 200
    assert httpx.get(metadata, headers={"host": f"rebound.example:{port}"}).status_code == 403
    foreign = {"origin": "http://evil.example"}
    token = httpx.post(f"{origin}/token", data={"grant_type": "refresh_token"}, headers=foreign)
    assert token.status_code == 403 and "cross-site" in token.text
    assert (
        httpx.post(f"{origin}/register", content=b"{}", headers={"content-type": "text/plain"}).status_code
        == 415
    )
    assert (
        httpx.post(f"{origin}/register", json={"redirect_uris": []}).status_code == 400
    )  # reached: so it can fail


REVISIONS = ("2025-03-26", "2026-07-28")  # the oldest and the newest; the other tests use the default


@pytest.mark.timeout(200)
def test_call_auth_against_serve_auth_in_each_revision(tmp_path: Path) -> None:
    """Each revision's flow (its own auth file, so each registers and authorizes afresh)."""
    served, client_db = tmp_path / "served.db", tmp_path / "client.db"
    secrets: list[str] = []
    with serve_http_in_process(served, ServeOptions(auth=True)) as url:
        for number, revision in enumerate(REVISIONS, 1):
            auth_file = tmp_path / f"auth-{revision}.json"
            done = _call(client_db, auth_file, url, "--protocol-version", revision)
            assert done.returncode == 0, (revision, done.stderr)
            assert json.loads(done.stdout)["content"][0]["text"] == "authorized"
            assert _client_steps(client_db, number) == [
                "unauthorized",
                "resource-metadata",
                "as-metadata",
                "registration",
                "authorization-request",
                "token-request",
            ], revision
            secrets += _secrets(auth_file)
        _guard_checks(url.removesuffix("/mcp"))
    assert len(secrets) >= 2 * len(REVISIONS)
    for db in (served, client_db):
        leaks = secret_leaks(db, secrets)
        assert not leaks, leaks


@pytest.mark.timeout(150)
def test_call_auth_refuses_an_as_without_s256(tmp_path: Path) -> None:
    served, client_db = tmp_path / "served.db", tmp_path / "client.db"
    with serve_http_in_process(served, ServeOptions(auth_faults=("no-s256",))) as url:
        done = _call(client_db, tmp_path / "auth.json", url)
    assert done.returncode == 2, done.stdout
    assert "authorization failed at pkce" in done.stderr
    assert "code_challenge_methods_supported" in done.stderr
    # Refused after reading the metadata: no registration, no authorization request.
    assert _client_steps(client_db) == ["unauthorized", "resource-metadata", "as-metadata"]


@pytest.mark.timeout(150)
def test_call_auth_survives_expired_token_and_step_up(tmp_path: Path) -> None:
    """Both faults at once: the first token is refused as expired after one request (our client
    refreshes), then tools/call needs mcp:tools (it authorizes again with the wider scope)."""
    served, client_db = tmp_path / "served.db", tmp_path / "client.db"
    with serve_http_in_process(served, ServeOptions(auth_faults=("expired-token", "step-up"))) as url:
        done = _call(client_db, tmp_path / "auth.json", url)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == "authorized"
    conn = sqlite3.connect(served)
    rows = conn.execute(
        "SELECT json_extract(m.meta, '$.auth_step'), m.http_path, m.raw FROM message m JOIN session s"
        " ON s.id = m.session_id WHERE s.name LIKE '%(authorization)' AND m.direction = 'c2s' ORDER BY m.id"
    ).fetchall()
    conn.close()
    steps = [r[0] for r in rows]
    assert steps.index("unauthorized", 1) < steps.index("insufficient-scope")
    assert any(r[2] and r[2].startswith(b"grant_type=refresh_token&") for r in rows)  # the expired token
    authorizations = [r[1] for r in rows if r[0] == "authorization-request"]
    assert len(authorizations) == 2 and "scope=mcp+mcp%3Atools" in authorizations[1]
    assert steps.count("registration") == 1  # the step-up reuses the registered client
