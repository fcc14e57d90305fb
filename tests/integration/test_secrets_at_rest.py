"""Secrets never at rest: every secret form, through the proxy, the mock client (CLI and UI API) and
wrap, is absent from every column, the full-text index and the database files, present as a
placeholder, and put back on the wire by a replay that is given it (the upstream logs what it got).

The upstream is a real SDK server (tests/peers/secrets_server.py) that also plays an OAuth
authorization server (`/token`, `/authorize`, `/register`) and sets a session cookie.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from inspector.store import iter_messages, list_sessions, open_engine
from tests.api.conftest import serve
from tests.api.test_client_api import _connect, _ok, _request
from tests.cli_in_process import Ran, run
from tests.conftest import PEERS
from tests.http_peers import LineProcess, proxy_in_process
from tests.peers import secrets_server as upstream
from tests.secrets_scan import placeholders, received, secret_leaks
from tests.shim_process import ended_session
from tests.warm_peers import inspector_argv, peer_argv

CLI = [sys.executable, "-m", "inspector"]
BEARER = "BearerSecret2b7e1"
HEADER_TOKEN = "HeaderTokenSecret90c4"
CUSTOM = "CustomHeaderSecret6d2a"
REQUEST_COOKIE = "RequestCookieSecret11f0"
TARGET_KEY = "TargetKeySecret4f1c"
QUERY_TOKEN = "QueryTokenSecret5a0b"
ARG_KEY = "ArgumentKeySecret8b3d"
NOTE = "NoteSecret2c6e9"
CLIENT_CODE = "ClientCodeSecret7d1a"
VERIFIER = "VerifierSecret3e8f0"
FORM_CLIENT_SECRET = "FormClientSecret0a9b"
STATE = "StateSecret6c5d2"
CLIENT_SIDE = [BEARER, HEADER_TOKEN, CUSTOM, REQUEST_COOKIE, TARGET_KEY, QUERY_TOKEN, ARG_KEY]
OAUTH = [CLIENT_CODE, VERIFIER, FORM_CLIENT_SECRET, STATE]
EVERY_SECRET = [*CLIENT_SIDE, *OAUTH, *upstream.SERVER_SECRETS]
CALL_ARGS = json.dumps({"name": "echo", "arguments": {"text": "hello", "api_key": ARG_KEY}})
HEADERS = [
    f"Authorization: Bearer {BEARER}",
    f"X-Upstream-Token: {HEADER_TOKEN}",
    f"X-Custom-Cred: {CUSTOM}",
    f"Cookie: pref={REQUEST_COOKIE}",
]
USER_RULES = ["--redact", "x-custom-cred", "--redact-path", "params.arguments.api_key"]


def _run(*args: str, env: dict[str, str] | None = None) -> Ran:
    """The command in this process (tests/cli_in_process.py); servers, proxies and wraps stay processes."""
    return run(*args, env=env)


def _call(db: Path, url: str, *extra: str) -> Ran:
    headers = [a for h in HEADERS for a in ("--header", h)]
    out = _run("call", "tools/call", "--db", str(db), "--url", url, "--params", CALL_ARGS, *headers, *extra)
    assert out.returncode == 0, out.stderr
    return out


def _oauth_through(proxy_url: str) -> None:
    """The OAuth exchanges a client makes with an authorization server, through the proxy."""
    base = proxy_url.split("/mcp")[0]
    form = f"grant_type=authorization_code&code={CLIENT_CODE}&code_verifier={VERIFIER}"
    form += f"&client_id=c1&client_secret={FORM_CLIENT_SECRET}&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb"
    token = httpx.post(
        f"{base}/token", content=form, headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert token.json()["access_token"] == upstream.ACCESS
    authorize = httpx.get(f"{base}/authorize?response_type=code&client_id=c1&state={STATE}")
    assert upstream.CODE in authorize.headers["location"]
    register = httpx.post(
        f"{base}/register", json={"client_name": "t", "redirect_uris": ["http://127.0.0.1:9/cb"]}
    )
    assert register.json()["client_secret"] == upstream.CLIENT_SECRET


def _mcp_session(db: Path) -> Any:
    engine = open_engine(db, create=False)
    try:
        for session in list_sessions(engine):
            if any(m.method == "tools/call" for m in iter_messages(engine, session.id)):
                return session
    finally:
        engine.dispose()
    raise AssertionError("no session with a tools/call")


@pytest.fixture(scope="module")
def _upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One secrets server (tests/peers/secrets_server.py, forked from the warm server) for the module:
    its MCP URL and the log of what it received."""
    log = tmp_path_factory.mktemp("upstream") / "upstream.jsonl"
    server = LineProcess(peer_argv("tests.peers.secrets_server", str(log)))
    try:
        yield server.wait_for(r"listening on (\S+)").group(1), log
    finally:
        server.stop()


@pytest.fixture
def log(_upstream: tuple[str, Path]) -> Path:
    """The upstream's log, emptied for this test (the server appends a line per request)."""
    _url, path = _upstream
    path.write_text("")
    return path


@pytest.fixture
def url(_upstream: tuple[str, Path], log: Path) -> str:
    """The upstream's MCP URL (its log emptied for this test)."""
    return _upstream[0]


def test_every_form_through_the_proxy_and_the_mock_client_then_a_replay_puts_them_back(
    tmp_path: Path, log: Path, url: str
) -> None:
    proxy_db, call_db = tmp_path / "proxy.db", tmp_path / "call.db"
    with proxy_in_process(f"{url}?api_key={TARGET_KEY}", proxy_db, *USER_RULES) as (proxy_url, _proxy):
        assert TARGET_KEY in proxy_url  # the client is told the URL with the key, as the target had it
        _call(call_db, f"{proxy_url}&access_token={QUERY_TOKEN}", *USER_RULES)
        _oauth_through(proxy_url)
    for db in (proxy_db, call_db):
        assert secret_leaks(db, EVERY_SECRET) == [], db.name
    stored = placeholders(proxy_db)
    for expected in (
        "Bearer [secret:authorization]",
        '"[secret:x-upstream-token]"',
        '"[secret:x-custom-cred]"',
        '"[secret:cookie]"',
        "sid=[secret:set-cookie.sid]; Path=/; HttpOnly",
        "?api_key=[secret:query.api_key]&access_token=[secret:query.access_token]",
        '"api_key":"[secret:body.params.arguments.api_key]"',
        "code=[secret:body.code]&code_verifier=[secret:body.code_verifier]&client_id=c1",
        '"access_token": "[secret:body.access_token]", "token_type": "Bearer", "expires_in": 3600',
        '"client_secret": "[secret:body.client_secret]"',
        '"registration_access_token": "[secret:body.registration_access_token]"',
        "callback?code=[secret:query.code]&state=[secret:query.state]",  # the redirect's Location
        "client_id=c1&state=[secret:query.state]",
    ):
        assert expected in stored, expected
    assert '"text":"hello"' in stored  # the rest of a redacted body is as it was
    session = _mcp_session(proxy_db)
    assert session.target == f"{url}?api_key=[secret:query.api_key]"

    # A replay given the secrets (flags and environment) puts each one back on the wire.
    log.write_text("")
    out = _run(
        "replay", str(session.id), "--db", str(proxy_db), "--url", session.target,
        "--secret", f"authorization={BEARER}", "--secret", f"query.api_key={TARGET_KEY}",
        "--secret", f"body.params.arguments.api_key={ARG_KEY}", "--secret", f"cookie=pref={REQUEST_COOKIE}",
        env={
            "MCP_INSPECTOR_SECRET_X_UPSTREAM_TOKEN": HEADER_TOKEN,
            "MCP_INSPECTOR_SECRET_X_CUSTOM_CRED": CUSTOM,
            "MCP_INSPECTOR_SECRET_QUERY_ACCESS_TOKEN": QUERY_TOKEN,
        },
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "not given" not in out.stderr
    seen = received(log)
    call = next(r for r in seen if '"tools/call"' in r["body"])
    headers = dict(call["headers"])
    assert headers["authorization"] == f"Bearer {BEARER}" and headers["x-upstream-token"] == HEADER_TOKEN
    assert headers["x-custom-cred"] == CUSTOM and headers["cookie"].startswith(f"pref={REQUEST_COOKIE}")
    assert call["query"] == f"api_key={TARGET_KEY}"
    assert json.loads(call["body"])["params"]["arguments"]["api_key"] == ARG_KEY
    # The replay's own recording redacted what it put back.
    assert secret_leaks(proxy_db, EVERY_SECRET) == []


def test_a_replay_without_the_secrets_names_each_missing_one(tmp_path: Path, log: Path, url: str) -> None:
    db = tmp_path / "call.db"
    _call(db, f"{url}?api_key={TARGET_KEY}", *USER_RULES)
    log.write_text("")
    out = _run("replay", "last", "--db", str(db), "--url", f"{url}?api_key=[secret:query.api_key]")
    assert out.returncode in (0, 1), out.stderr
    for name, env in (
        ("authorization", "MCP_INSPECTOR_SECRET_AUTHORIZATION"),
        ("x-upstream-token", "MCP_INSPECTOR_SECRET_X_UPSTREAM_TOKEN"),
        ("query.api_key", "MCP_INSPECTOR_SECRET_QUERY_API_KEY"),
        ("body.params.arguments.api_key", "MCP_INSPECTOR_SECRET_BODY_PARAMS_ARGUMENTS_API_KEY"),
    ):
        assert f"--secret {name}=VALUE" in out.stderr and env in out.stderr, out.stderr
    assert all(BEARER not in json.dumps(r) for r in received(log))


def test_the_ui_clients_headers_and_url_secrets_are_redacted(tmp_path: Path, log: Path, url: str) -> None:
    db = tmp_path / "ui.db"
    for api in serve(db):
        headers = {"Authorization": f"Bearer {BEARER}", "X-Upstream-Token": HEADER_TOKEN}
        client = _connect(api, {"url": f"{url}?token={QUERY_TOKEN}"}, "2025-11-25", headers=headers)
        answer = _request(api, client["id"], "tools/call", {"name": "echo", "arguments": {"text": "hi"}})
        assert "hi" in json.dumps(answer)
        _ok(api.http.delete(f"/api/clients/{client['id']}"), 204)
    assert any(BEARER in json.dumps(r["headers"]) for r in received(log))  # it did go on the wire
    assert secret_leaks(db, [BEARER, HEADER_TOKEN, QUERY_TOKEN, upstream.COOKIE]) == []
    stored = placeholders(db)
    assert "Bearer [secret:authorization]" in stored and "?token=[secret:query.token]" in stored


def test_a_client_connected_to_a_recorded_target_gets_its_secrets_from_the_environment(
    tmp_path: Path, log: Path, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "ui.db"
    monkeypatch.setenv("MCP_INSPECTOR_SECRET_QUERY_TOKEN", QUERY_TOKEN)
    monkeypatch.setenv("MCP_INSPECTOR_SECRET_AUTHORIZATION", BEARER)
    for api in serve(db):
        target = {"url": f"{url}?token=[secret:query.token]"}  # as the session list shows it
        headers = {"Authorization": "Bearer [secret:authorization]"}
        client = _connect(api, target, "2025-11-25", headers=headers)
        _ok(api.http.delete(f"/api/clients/{client['id']}"), 204)
    first = received(log)[0]
    assert (
        first["query"] == f"token={QUERY_TOKEN}"
        and dict(first["headers"])["authorization"] == f"Bearer {BEARER}"
    )
    assert secret_leaks(db, [BEARER, QUERY_TOKEN]) == []
    assert "?token=[secret:query.token]" in placeholders(db)


def test_wrap_redacts_a_configured_name_and_json_path(tmp_path: Path) -> None:
    wrap_db, call_db = tmp_path / "wrap.db", tmp_path / "call.db"
    args = json.dumps({"name": "echo", "arguments": {"text": "hello", "api_key": ARG_KEY, "note": NOTE}})
    # Plain processes, the wrap and its server: a warm-forked one under the in-process `call`'s own
    # child left that child's pipes open past the call (asyncio's "Event loop is closed" at its GC).
    wrapped = [*CLI, "wrap", "--db", str(wrap_db), "--redact-path", "params.arguments.api_key", "--"]
    out = _run(
        "call", "tools/call", "--db", str(call_db), "--params", args, "--redact", "note",
        "--redact-path", "params.arguments.api_key", "--", *wrapped, sys.executable, str(PEERS / "secrets_server.py"), "--stdio",
        env={"MCP_INSPECTOR_REDACT": "note"},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "key given: True, note given: True" in out.stdout  # the server got both
    # The wrap may have been told to leave before its store opened (see tests/shim_process.py).
    ended_session(open_engine(wrap_db))
    for db in (wrap_db, call_db):
        assert secret_leaks(db, [ARG_KEY, NOTE]) == [], db.name
        stored = placeholders(db)
        assert '"api_key":"[secret:body.params.arguments.api_key]","note":"[secret:body.note]"' in stored
    engine = open_engine(wrap_db, create=False)
    (call,) = [m for m in iter_messages(engine, 1) if m.method == "tools/call" and m.kind == "request"]
    assert call.meta["redacted"] == ["body.note", "body.params.arguments.api_key"]
    engine.dispose()


def test_keep_secrets_keeps_them_and_every_recording_command_offers_it(
    tmp_path: Path, log: Path, url: str
) -> None:
    db = tmp_path / "kept.db"
    _call(db, f"{url}?api_key={TARGET_KEY}", "--keep-secrets")
    found = "\n".join(secret_leaks(db, [BEARER, TARGET_KEY, upstream.COOKIE]))
    for kept in (BEARER, TARGET_KEY, upstream.COOKIE):
        assert kept.lower() in found, found
    for command in ("wrap", "proxy", "call", "replay", "versions", "serve", "mock-server", "ui"):
        text = _run(command, "--help", env={"COLUMNS": "80"}).stdout
        assert "--keep-secrets" in text and "[secret:NAME]" in text and "--redact-path" in text, command
    bad = _run(
        "call", "tools/list", "--db", str(db), "--redact-path", "a..b", "--url", "http://127.0.0.1:9/mcp"
    )
    assert bad.returncode == 2 and "not a JSON path" in bad.stderr


def test_serve_and_mock_server_record_through_the_same_step(tmp_path: Path) -> None:
    serve_db, mock_db, call_db = tmp_path / "serve.db", tmp_path / "mock.db", tmp_path / "call.db"
    headers = ["--header", f"Authorization: Bearer {BEARER}", "--header", f"X-Upstream-Token: {HEADER_TOKEN}"]
    server = LineProcess(
        inspector_argv("serve", "--db", str(serve_db), "--http", "127.0.0.1:0", *USER_RULES[2:])
    )
    try:
        url = server.wait_for(r"at (http://\S+/mcp)").group(1)
        out = _run("call", "tools/list", "--db", str(call_db), "--url", f"{url}?key={TARGET_KEY}", *headers)
        assert out.returncode == 0, out.stderr
    finally:
        server.stop()
    # The recording of that client session, played by mock-server to a client with the same secrets.
    engine = open_engine(call_db, create=False)
    (recorded,) = list_sessions(engine)
    engine.dispose()
    mock = LineProcess(
        inspector_argv(
            "mock-server", str(recorded.id), "--db", str(call_db), "--http", "127.0.0.1:0", "--name", "m"
        )
    )
    try:
        url = mock.wait_for(r"mock server at (\S+);").group(1)
        out = _run("call", "tools/list", "--db", str(mock_db), "--url", f"{url}?key={TARGET_KEY}", *headers)
        assert out.returncode == 0, out.stderr
    finally:
        mock.stop()
    for db in (serve_db, call_db, mock_db):
        assert secret_leaks(db, [BEARER, HEADER_TOKEN, TARGET_KEY]) == [], db.name
        stored = placeholders(db)
        assert "Bearer [secret:authorization]" in stored and "?key=[secret:query.key]" in stored, db.name
