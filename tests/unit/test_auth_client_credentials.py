"""The client_credentials grant (SEP-1046, the MCP extension for clients acting on their own behalf):
a pre-registered confidential client, against an authorization server that offers that grant and not
the authorization code one, goes from the metadata straight to the token endpoint (no registration,
no PKCE, no authorization request); with the authorization code grant offered, the flow is the
usual one. The flow is driven step by step against canned answers."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson
import pytest

from inspector.auth.flow import Authorized, FlowInput, authorize
from inspector.auth.registration import ClientOptions
from inspector.auth.revisions import revision_for
from inspector.auth.steps import HttpRequest, HttpResponse
from inspector.errors import AuthFailure

SERVER = "http://mcp.test/mcp"
AS = "https://as.test"


def _json(doc: dict[str, Any], status: int = 200) -> HttpResponse:
    return HttpResponse(status, {"content-type": "application/json"}, orjson.dumps(doc))


def _run(grants: list[str] | None, options: ClientOptions) -> tuple[Authorized, list[str], list[HttpRequest]]:
    meta: dict[str, Any] = {
        "issuer": AS,
        "token_endpoint": f"{AS}/token",
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        "code_challenge_methods_supported": ["S256"],
    }
    if grants is not None:
        meta["grant_types_supported"] = grants
    if grants is None or "authorization_code" in grants:
        meta["authorization_endpoint"] = f"{AS}/authorize"

    def answer(req: HttpRequest) -> HttpResponse:
        base = req.url.split("?", 1)[0]
        if base.startswith("http://mcp.test/.well-known/oauth-protected-resource"):
            return _json({"resource": SERVER, "authorization_servers": [AS], "scopes_supported": ["read"]})
        if base == f"{AS}/.well-known/oauth-authorization-server":
            return _json(meta)
        if base == f"{AS}/authorize":
            q = {k: v[0] for k, v in parse_qs(urlsplit(req.url).query).items()}
            return HttpResponse(302, {"location": f"{q['redirect_uri']}?code=c&state={q['state']}"})
        if base == f"{AS}/token":
            return _json({"access_token": "cc-token", "token_type": "Bearer"})
        return HttpResponse(404)

    flow = authorize(FlowInput(SERVER, None, revision_for("2026-07-28"), "http://127.0.0.1:9/cb", options))
    names, sent = [], []
    response: HttpResponse | None = None
    try:
        while True:
            step = flow.send(response)
            names.append(step.name)
            response = answer(step.request) if step.request else None
            if step.request:
                sent.append(step.request)
    except StopIteration as done:
        return done.value, names, sent


def test_client_credentials_when_the_as_offers_only_that_grant() -> None:
    done, names, sent = _run(["client_credentials"], ClientOptions("svc", "s3cret"))
    assert names == ["resource-metadata", "as-metadata", "token-request"]
    token = sent[-1]
    form = parse_qs(token.body.decode())
    assert form["grant_type"] == ["client_credentials"]
    assert form["resource"] == [SERVER] and form["scope"] == ["read"]
    assert "client_secret" not in form  # client_secret_basic: in the header
    assert token.headers["authorization"] == "Basic " + base64.b64encode(b"svc:s3cret").decode()
    assert done.tokens.access_token == "cc-token" and done.client.client_id == "svc"


@pytest.mark.parametrize(
    ("grants", "options"),
    [
        (["authorization_code", "client_credentials"], ClientOptions("svc", "s3cret")),  # both offered
        (None, ClientOptions("svc", "s3cret")),  # not said: authorization_code (RFC 8414 default)
        (["authorization_code", "client_credentials"], ClientOptions("svc")),  # a public client
    ],
)
def test_otherwise_the_authorization_code_flow(grants: list[str] | None, options: ClientOptions) -> None:
    _, names, sent = _run(grants, options)
    assert "authorization-request" in names and "pkce" in names
    assert parse_qs(sent[-1].body.decode())["grant_type"] == ["authorization_code"]


def test_a_public_client_against_a_client_credentials_only_as_is_told_what_to_give() -> None:
    with pytest.raises(AuthFailure) as failed:
        _run(["client_credentials"], ClientOptions("svc"))
    assert failed.value.expectation == "missing-field"
    assert "--client-secret" in str(failed.value)


def test_a_client_with_a_private_key_authenticates_with_a_signed_assertion(tmp_path: Path) -> None:
    import jwt
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    pem = tmp_path / "client.pem"
    pem.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    _, names, sent = _run(["client_credentials"], ClientOptions("svc", private_key_file=str(pem)))
    assert names == ["resource-metadata", "as-metadata", "token-request"]
    form = {k: v[0] for k, v in parse_qs(sent[-1].body.decode()).items()}
    assert form["grant_type"] == "client_credentials"
    assert form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    assert "authorization" not in sent[-1].headers and "client_secret" not in form
    claims = jwt.decode(form["client_assertion"], key.public_key(), algorithms=["ES256"], audience=AS)
    assert claims["iss"] == claims["sub"] == "svc" and claims["exp"] > claims["iat"] and claims["jti"]


def test_an_unreadable_private_key_is_a_clear_failure(tmp_path: Path) -> None:
    (tmp_path / "bad.pem").write_text("not a key")
    with pytest.raises(AuthFailure) as failed:
        _run(["client_credentials"], ClientOptions("svc", private_key_file=str(tmp_path / "bad.pem")))
    assert failed.value.expectation == "bad-private-key"
