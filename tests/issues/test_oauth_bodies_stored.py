"""Regression: OAuth exchanges recorded through the proxy kept their secrets in plain text: the
token request's form body (`code`, `code_verifier`, `client_secret`), the token response's JSON
(`access_token`, `refresh_token`, `id_token`), a registration response's `client_secret` and
`registration_access_token`, and the authorization redirect's `code`. Each value is now a
`[secret:body.NAME]` (or `query.NAME`) placeholder in an otherwise unchanged body.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.http_peers import inspector_proxy
from tests.peers import secrets_server as upstream
from tests.secrets_scan import placeholders, secret_leaks, secrets_server

CODE = "CodeSecret4b2e7"
VERIFIER = "VerifierSecret81d0c"
CLIENT_SECRET = "FormSecret5f3a8"


def test_oauth_form_and_json_bodies_keep_no_secret(tmp_path: Path) -> None:
    db = tmp_path / "proxy.db"
    with (
        secrets_server(tmp_path / "log.jsonl") as url,
        inspector_proxy(url, db, warm=True) as (proxy_url, _proxy),
    ):
        base = proxy_url.removesuffix("/mcp")
        form = f"grant_type=authorization_code&code={CODE}&code_verifier={VERIFIER}&client_secret={CLIENT_SECRET}"
        form_type = {"content-type": "application/x-www-form-urlencoded"}
        assert (
            httpx.post(f"{base}/token", content=form, headers=form_type).json()["id_token"]
            == upstream.ID_TOKEN
        )
        assert httpx.post(f"{base}/register", json={"client_name": "t"}).status_code == 201
        assert upstream.CODE in httpx.get(f"{base}/authorize?client_id=c1").headers["location"]
    secrets = [CODE, VERIFIER, CLIENT_SECRET, upstream.ACCESS, upstream.REFRESH, upstream.ID_TOKEN]
    secrets += [upstream.CLIENT_SECRET, upstream.REGISTRATION, upstream.CODE]
    assert secret_leaks(db, secrets) == []
    stored = placeholders(db)
    assert (
        "grant_type=authorization_code&code=[secret:body.code]&code_verifier=[secret:body.code_verifier]"
        "&client_secret=[secret:body.client_secret]"
    ) in stored
    assert '"refresh_token": "[secret:body.refresh_token]", "id_token": "[secret:body.id_token]"}' in stored
