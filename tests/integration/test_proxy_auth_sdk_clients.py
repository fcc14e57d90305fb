"""The official SDK clients authorize through `mcp-inspect proxy --rewrite-auth-metadata` to the
Python SDK's protected server (tests/peers/oauth_server.py): discovery, registration, the
authorization request and the token request go through the proxy; the recording labels each leg
with `meta.auth_step` like the mock client does, keeps what the server sent (what the client got in
`meta.rewritten_to`) and holds no token, code or client secret."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conformance.suite import NODE  # node 22 from tests/peers (the SDK's engines)
from tests.conftest import PEERS
from tests.http_peers import LineProcess, free_port, proxy_in_process
from tests.lint_auth_recordings import all_findings, auth_findings
from tests.secrets_scan import secret_leaks
from tests.warm_peers import inspector_argv, peer_argv

STEPS = {
    "unauthorized",
    "resource-metadata",
    "as-metadata",
    "registration",
    "authorization-request",
    "token-request",
}


@contextmanager
def _protected(*extra: str) -> Iterator[str]:
    server = LineProcess(peer_argv("tests.peers.oauth_server", *extra))
    try:
        yield server.wait_for(r"listening on (\S+)").group(1)
    finally:
        server.stop()


@contextmanager
def _through_proxy(db: Path, *, audience: bool = True, rewrite: bool = True) -> Iterator[tuple[str, str]]:
    """The protected server (told the proxy's URL as an audience) behind the proxy: (upstream, client URL)."""
    port = free_port()
    proxy_url = f"http://127.0.0.1:{port}/mcp"
    with _protected(*(["--audience", proxy_url] if audience else [])) as upstream:
        extra = ["--listen", f"127.0.0.1:{port}"] + (["--rewrite-auth-metadata"] if rewrite else [])
        with proxy_in_process(upstream, db, *extra) as (url, _proxy):  # the last --listen counts
            assert url == proxy_url
            yield upstream, url


def _python_client(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        peer_argv("tests.peers.oauth_sdk_client", url),
        capture_output=True,
        text=True,
        timeout=60,
    )


def _ts_client(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(NODE), str(PEERS / "oauth_ts_client.mjs"), url], capture_output=True, text=True, timeout=60
    )


def _legs(db: Path) -> list[tuple[str, str, str, int | None, str | None]]:
    """(step, direction, method, status, path) of every labelled row, in order."""
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT json_extract(meta, '$.auth_step'), direction, http_method, http_status, http_path"
        " FROM message WHERE json_extract(meta, '$.auth_step') IS NOT NULL ORDER BY ts_ns, id"
    ).fetchall()
    conn.close()
    return rows


def _rewritten(db: Path) -> list[tuple[str, str, dict]]:
    """(step, what the server sent, meta.rewritten_to) of every rewritten response."""
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT json_extract(meta, '$.auth_step'), CAST(raw AS TEXT), http_headers,"
        " json_extract(meta, '$.rewritten_to') FROM message"
        " WHERE json_extract(meta, '$.rewritten_to') IS NOT NULL"
    ).fetchall()
    conn.close()
    return [(r[0], (r[1] or "") + (r[2] or ""), json.loads(r[3])) for r in rows]


def _check_recording(db: Path, upstream: str, client_url: str, secrets: list[str]) -> None:
    legs = _legs(db)
    assert {leg[0] for leg in legs} >= STEPS, legs
    # Every request leg went through the proxy and is paired with its answer.
    for step in STEPS - {"unauthorized"}:
        assert any(leg[0] == step and leg[1] == "c2s" for leg in legs), (step, legs)
    assert any(leg[0] == "unauthorized" and leg[3] == 401 for leg in legs)
    proxy_origin = client_url.rsplit("/", 1)[0]
    upstream_origin = upstream.rsplit("/", 1)[0]
    rewritten = {step: (server, got) for step, server, got in _rewritten(db)}
    # The server's bytes are kept; what the client got names the proxy.
    server_prm, got_prm = rewritten["resource-metadata"]
    assert upstream in server_prm and json.loads(got_prm["body"])["resource"] == client_url
    server_as, got_as = rewritten["as-metadata"]
    assert upstream_origin in server_as
    assert json.loads(got_as["body"])["token_endpoint"] == f"{proxy_origin}/token"
    _server_401, got_401 = rewritten["unauthorized"]
    assert (
        f'resource_metadata="{proxy_origin}/.well-known/oauth-protected-resource/mcp"'
        in (got_401["www-authenticate"])
    )
    assert [s for s in secrets if s] and secret_leaks(db, [s for s in secrets if s]) == []
    # A good flow: the authorization lint rules find nothing, and the HTTP transport rules leave
    # the OAuth legs alone.
    assert auth_findings(db) == []
    assert [f for f in all_findings(db) if f[0].startswith("http-")] == []


def _proxy(upstream: str, db: Path, *extra: str) -> LineProcess:
    return LineProcess(inspector_argv("proxy", "--target", upstream, "--db", str(db), *extra))


@pytest.mark.timeout(180)
def test_sdk_clients_authorize_through_the_proxy(tmp_path: Path) -> None:
    """The Python SDK's OAuthClientProvider, then the TypeScript SDK's client auth, through one proxy."""
    db = tmp_path / "rec.db"
    with _through_proxy(db) as (upstream, url):
        python = _python_client(url)
        assert python.returncode == 0, python.stderr[-3000:]
        ts = _ts_client(url)
        assert ts.returncode == 0, ts.stderr[-3000:]
    secrets = []
    for run in (python, ts):
        out = json.loads(run.stdout.strip().splitlines()[-1])
        assert out["text"] == "hello, authorized client"
        assert all(out["secrets"][:2]) and all(out["secrets"][3:])  # tokens, code, verifier
        secrets += out["secrets"]
    _check_recording(db, upstream, url, secrets)
    # Two flows: each client registered and got its token through the proxy.
    legs = _legs(db)
    for step in ("registration", "authorization-request", "token-request"):
        assert sum(1 for leg in legs if leg[0] == step and leg[1] == "c2s") == 2, (step, legs)


@pytest.mark.timeout(180)
def test_without_the_option_or_the_audience_the_flow_fails(tmp_path: Path) -> None:
    """Without --rewrite-auth-metadata the resource metadata names the upstream's URL and the SDK
    client refuses it (RFC 8707 check); with it, a server that validates the audience and was not
    told the proxy's URL refuses the token issued for that URL (docs/how-to/record-http.md: audience)."""
    with _protected() as upstream:
        plain = _proxy(upstream, tmp_path / "plain.db", "--listen", "127.0.0.1:0")
        rewriting = _proxy(upstream, tmp_path / "rw.db", "--listen", "127.0.0.1:0", "--rewrite-auth-metadata")
        try:
            plain_url = plain.wait_for(r"point your client at (\S+)").group(1)
            rewriting_url = rewriting.wait_for(r"point your client at (\S+)").group(1)
            # Both clients at once.
            clients = [
                subprocess.Popen(
                    peer_argv("tests.peers.oauth_sdk_client", u),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                for u in (plain_url, rewriting_url)
            ]
            outputs = [c.communicate(timeout=60) for c in clients]
            refused_resource, refused_token = (
                subprocess.CompletedProcess(c.args, c.returncode, *out)
                for c, out in zip(clients, outputs, strict=True)
            )
        finally:
            plain.stop()
            rewriting.stop()
    assert refused_resource.returncode != 0
    assert "does not match expected" in refused_resource.stderr
    assert _rewritten(tmp_path / "plain.db") == []
    assert refused_token.returncode != 0
    conn = sqlite3.connect(tmp_path / "rw.db")
    refused = conn.execute(
        "SELECT count(*) FROM message WHERE http_status = 401 AND http_headers LIKE '%invalid_token%'"
    ).fetchone()[0]
    tokens = conn.execute(
        "SELECT count(*) FROM message WHERE json_extract(meta, '$.auth_step') = 'token-request'"
        " AND direction = 's2c' AND http_status = 200"
    ).fetchone()[0]
    conn.close()
    assert tokens >= 1 and refused >= 1
