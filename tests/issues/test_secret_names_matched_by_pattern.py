"""Issue #33, finding 4: secret query parameters and headers were matched by exact name only.

Stored before: query `auth_token`, `private_token`, `access-token`, `jwt`, `sessionToken`,
`secret_key`, `pass`, `pwd`, `auth`, `X-Amz-Credential` (in `http_path` and the proxy's
`session.target`, and in the gateway's start-up lines); headers `X-Auth-Key`, `X-Auth`,
`Authentication`, `Ocp-Apim-Subscription-Key`, `X-Functions-Key`, `X-Access-Key`, `X-Credential`,
`X-Signature`, `X-Session`; doctor printed them too. One name rule now (`redact.secret_name`):
tokens of the name, whole ("author", "keyboard", "passage" are not secrets), for headers, query
parameters, form and JSON fields of non-JSON-RPC HTTP bodies, command lines, log lines.

The protocol's own names stay readable: `Mcp-Session-Id` and the legacy transport's
`sessionId`/`session_id` (identifiers the inspector groups sessions by), `Mcp-Protocol-Version`,
`Content-Type`, `Accept`, `Last-Event-ID`, the OAuth metadata fields lint reads.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from inspector.capture import MessageBuilder
from inspector.capture.redact import Redaction, secret_name
from inspector.capture.sessions import create_session
from inspector.doctor import render, run_doctor
from inspector.gateway_config import load_gateway_config
from inspector.gateway_run import route_line
from inspector.share.export import har_sessions
from inspector.share.har import har_chunks
from inspector.store import open_engine
from inspector.store.queries import get_session, iter_rows
from inspector.store.writer import SessionWriter
from tests.gateway_helpers import route_table

SECRET_QUERY = [
    "auth_token", "private_token", "access-token", "jwt", "sessionToken", "secret_key", "pass", "pwd",
    "auth", "X-Amz-Credential", "X-Amz-Signature", "apiKey", "accesstoken", "authToken", "sig",
]  # fmt: skip
PLAIN_QUERY = [
    "author", "authority", "keyboard", "monkey", "passage", "page", "cursor", "sessionId", "session_id",
    "max_tokens", "X-Amz-Date", "X-Amz-SignedHeaders",
]  # fmt: skip
SECRET_HEADERS = [
    "X-Auth-Key", "X-Auth", "Authentication", "Ocp-Apim-Subscription-Key", "X-Functions-Key",
    "X-Access-Key", "X-Credential", "X-Signature", "X-Session", "X-Api-Key", "X-Hub-Signature-256",
    "Cf-Access-Jwt-Assertion", "X-CSRF-Token",
]  # fmt: skip
PLAIN_HEADERS = [
    "Mcp-Session-Id", "Mcp-Protocol-Version", "Content-Type", "Accept", "Last-Event-ID", "Author",
    "WWW-Authenticate", "X-OAuth-Scopes", "Keep-Alive", "Mcp-Method", "Mcp-Name", "User-Agent",
    "Access-Control-Allow-Headers", "Access-Control-Allow-Credentials", "X-Request-Id",
]  # fmt: skip


def _value(i: int) -> str:
    return f"S3cr3t{i:02d}v"  # each secret distinct, so a leak names which


def _query(names: list[str], offset: int) -> str:
    return "&".join(f"{n}={_value(offset + i)}" for i, n in enumerate(names))


def test_the_rule_takes_whole_tokens() -> None:
    for name in [
        *SECRET_QUERY, *SECRET_HEADERS, "client_secret", "PHPSESSID", "refresh-token", "passwd",
        *(h.lower() for h in SECRET_HEADERS), "x-accesstoken", "x-subscriptionkey", "oauth_token",
    ]:  # fmt: skip
        assert secret_name(name), name
    for name in [
        *PLAIN_QUERY, *PLAIN_HEADERS, "token_type", "token_endpoint", "--token-file", "no-auth", "compass",
        "x-monkey", "OAuth", "oauth", "x-turkey", "possession", "tokenizer",
    ]:  # fmt: skip
        assert not secret_name(name), name


def test_listed_names_are_stored_redacted_and_plain_ones_kept(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "rec.db")
    n = len(SECRET_QUERY)
    target = f"https://mcp.example.com/mcp?{_query(SECRET_QUERY, 0)}&{_query(PLAIN_QUERY, n)}"
    session_id = create_session(engine, kind="http-proxy", target=target, name="proxy", redaction=Redaction())
    builder = MessageBuilder(session_id)
    rules = Redaction()
    m = n + len(PLAIN_QUERY)
    headers = [[h, _value(m + i)] for i, h in enumerate([*SECRET_HEADERS, *PLAIN_HEADERS])]
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
    request = builder.message(
        time.time_ns(), "c2s", "http-request", body, http_method="POST",
        http_path=f"/mcp?{_query(SECRET_QUERY, 0)}&{_query(PLAIN_QUERY, n)}", http_headers=headers,
    )  # fmt: skip
    # An OAuth token request (a form) and its JSON response: not JSON-RPC, the same name rule.
    form = builder.message(
        time.time_ns(), "c2s", "http-request",
        f"grant_type=password&username=ann&pwd={_value(90)}&auth_token={_value(91)}&author=ann".encode(),
        jsonrpc=False, http_method="POST", http_path="/token", http_headers=[["Content-Type", "x"]],
    )  # fmt: skip
    token = json.dumps({
        "access_token": _value(92), "sessionToken": _value(93), "token_type": "Bearer", "expires_in": 3600,
        "signature": _value(94), "author": "ann",
    }).encode()  # fmt: skip
    answer = builder.message(
        time.time_ns(), "s2c", "http-response", token, jsonrpc=False, http_status=200, http_headers=[]
    )
    # Authorization server metadata (lint reads it): nothing in it is a secret.
    metadata = json.dumps({
        "issuer": "https://as.example.com", "token_endpoint": "https://as.example.com/token",
        "token_endpoint_auth_methods_supported": ["client_secret_post"],
        "code_challenge_methods_supported": ["S256"], "registration_endpoint": "https://as.example.com/r",
        "authorization_servers": ["https://as.example.com"], "jwks_uri": "https://as.example.com/jwks",
    }).encode()  # fmt: skip
    meta_row = builder.message(
        time.time_ns(), "s2c", "http-response", metadata, jsonrpc=False, http_status=200, http_headers=[]
    )
    rows = [request, form, answer, meta_row]
    for row in rows:
        rules.row(row)
    writer = SessionWriter(engine, session_id)
    writer.on_batch(rows)
    writer.on_end(0, "test")

    session = get_session(engine, session_id)
    assert session is not None
    stored = list(iter_rows(engine, session_id))
    seen = json.dumps([session.target, [r["http_path"] for r in stored], [r["http_headers"] for r in stored]])
    path = str(stored[0]["http_path"])
    for i, name in enumerate(SECRET_QUERY):
        assert _value(i) not in seen, name
        assert f"{name}=[secret:query.{name.lower()}]" in path, name
        assert f"{name}=[secret:query.{name.lower()}]" in session.target, name
    for i, name in enumerate(PLAIN_QUERY):
        assert f"{name}={_value(n + i)}" in path, name
        assert f"{name}={_value(n + i)}" in session.target, name
    kept = dict(stored[0]["http_headers"])
    for name in SECRET_HEADERS:
        assert kept[name] == f"[secret:{name.lower()}]", name
    for i, name in enumerate(PLAIN_HEADERS):
        assert kept[name] == _value(m + len(SECRET_HEADERS) + i), name
    assert stored[1]["raw"] == (
        b"grant_type=password&username=ann&pwd=[secret:body.pwd]&auth_token=[secret:body.auth_token]"
        b"&author=ann"
    )
    assert json.loads(stored[2]["raw"]) == {
        "access_token": "[secret:body.access_token]", "sessionToken": "[secret:body.sessiontoken]",
        "token_type": "Bearer", "expires_in": 3600, "signature": "[secret:body.signature]", "author": "ann",
    }  # fmt: skip
    assert stored[3]["raw"] == metadata

    # The HAR export of the session holds none of the secrets.
    har = b"".join(har_chunks(har_sessions(engine, [session])))
    for i in [*range(n), *range(m, m + len(SECRET_HEADERS)), 90, 91, 92, 93, 94]:
        assert _value(i).encode() not in har, i
    engine.dispose()


def test_gateway_start_up_lines_hide_the_target_secrets(tmp_path: Path) -> None:
    config = tmp_path / "gateway.toml"
    one, two = "http://h/mcp?page=2&auth_token=GATEWAYSECRET1", "http://h/mcp?sessionToken=GATEWAYSECRET2"
    config.write_text(route_table("one", "/one", one) + "\n" + route_table("two", "/two", two))
    lines = [route_line(route, Redaction()) for route in load_gateway_config(config).route]
    assert "GATEWAYSECRET" not in "".join(lines)
    assert lines[0].startswith("  one  /one/mcp?page=2&auth_token=[secret:query.auth_token] -> http://h/")
    assert "/two/mcp?sessionToken=[secret:query.sessiontoken]" in lines[1]


def test_doctor_masks_secret_names_in_what_it_prints(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    cursor = home / ".cursor" / "mcp.json"
    cursor.parent.mkdir(parents=True)
    servers: dict[str, Any] = {
        "remote": {
            "url": "https://mcp.example.com/mcp?auth_token=DOCTORSECRET1&X-Amz-Credential=DOCTORSECRET2"
        },
        "local": {
            "command": "srv",
            "args": ["--auth", "DOCTORSECRET3", "--session=DOCTORSECRET4", "--verbose"],
        },
    }
    cursor.write_text(json.dumps({"mcpServers": servers}))
    report = run_doctor(home, project, str(tmp_path / "rec.db"))
    out = io.StringIO()
    render(report, Console(file=out, width=80, highlight=False), home)
    printed = out.getvalue()
    shown = printed + json.dumps(report.as_json())
    assert "DOCTORSECRET" not in shown, printed
    assert "[secret:query.auth_token]" in printed and "[secret:arg.auth]" in printed
    assert "stands for the entry's secret" in printed
