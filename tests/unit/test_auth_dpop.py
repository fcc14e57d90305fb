"""DPoP (RFC 9449, the MCP DPoP extension SEP-1932): when the authorization server advertises ES256
in `dpop_signing_alg_values_supported`, the token request carries a proof of a fresh key, is sent
again with the server's nonce on `use_dpop_nonce`, and the grant keeps the key the tokens are bound
to; each proof is a `dpop+jwt` signed by that key, naming the request (htm, htu without the query),
and, when it presents a token, the token's hash (ath). The flow is driven against canned answers."""

from __future__ import annotations

import base64
import hashlib
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
import orjson
from jwt.algorithms import ECAlgorithm

from inspector.auth import dpop
from inspector.auth.flow import Authorized, FlowInput, authorize
from inspector.auth.revisions import revision_for
from inspector.auth.steps import HttpRequest, HttpResponse

SERVER = "http://mcp.test/mcp"
AS = "https://as.test"


def _json(doc: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None) -> HttpResponse:
    return HttpResponse(status, {"content-type": "application/json", **(headers or {})}, orjson.dumps(doc))


def _claims(proof: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The proof's header and claims, its signature checked with the key in its header."""
    header = jwt.get_unverified_header(proof)
    key = ECAlgorithm.from_jwk(header["jwk"])
    return header, jwt.decode(proof, key, algorithms=["ES256"])  # type: ignore[arg-type]


def _run(nonce_first: bool) -> tuple[Authorized, list[HttpRequest]]:
    tokens_asked: list[HttpRequest] = []

    def answer(req: HttpRequest) -> HttpResponse:
        base = req.url.split("?", 1)[0]
        if base.startswith("http://mcp.test/.well-known/oauth-protected-resource"):
            return _json({"resource": SERVER, "authorization_servers": [AS]})
        if base == f"{AS}/.well-known/oauth-authorization-server":
            return _json(
                {
                    "issuer": AS,
                    "authorization_endpoint": f"{AS}/authorize",
                    "token_endpoint": f"{AS}/token",
                    "code_challenge_methods_supported": ["S256"],
                    "dpop_signing_alg_values_supported": ["ES256"],
                }
            )
        if base == f"{AS}/authorize":
            q = {k: v[0] for k, v in parse_qs(urlsplit(req.url).query).items()}
            return HttpResponse(302, {"location": f"{q['redirect_uri']}?code=c&state={q['state']}"})
        if base == f"{AS}/token":
            tokens_asked.append(req)
            if nonce_first and len(tokens_asked) == 1:
                return _json({"error": "use_dpop_nonce"}, 400, {"dpop-nonce": "n-1"})
            return _json({"access_token": "at", "token_type": "DPoP"})
        return HttpResponse(404)

    from inspector.auth.registration import ClientOptions

    flow = authorize(
        FlowInput(SERVER, None, revision_for("2026-07-28"), "http://127.0.0.1:9/cb", ClientOptions("cid"))
    )
    response: HttpResponse | None = None
    try:
        while True:
            step = flow.send(response)
            response = answer(step.request) if step.request else None
    except StopIteration as done:
        return done.value, tokens_asked


def test_the_token_request_proves_possession_of_the_grants_key() -> None:
    done, asked = _run(nonce_first=False)
    assert len(asked) == 1 and done.dpop is not None
    header, claims = _claims(asked[0].headers["dpop"])
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256" and "d" not in header["jwk"]
    assert header["jwk"]["x"] == done.dpop["x"]  # the key kept with the grant
    assert (
        claims["htm"] == "POST" and claims["htu"] == f"{AS}/token" and claims["jti"] and "nonce" not in claims
    )


def test_the_token_request_is_sent_again_with_the_servers_nonce() -> None:
    done, asked = _run(nonce_first=True)
    assert len(asked) == 2 and done.tokens.access_token == "at"
    first, second = (_claims(r.headers["dpop"])[1] for r in asked)
    assert "nonce" not in first and second["nonce"] == "n-1" and first["jti"] != second["jti"]


def test_a_resource_request_proof_names_the_request_and_the_token() -> None:
    key = dpop.new_key()
    _, claims = _claims(dpop.proof(key, "post", "http://mcp.test/mcp?x=1#f", access_token="at", nonce="n"))
    digest = base64.urlsafe_b64encode(hashlib.sha256(b"at").digest()).rstrip(b"=").decode()
    assert claims["htm"] == "POST" and claims["htu"] == "http://mcp.test/mcp"
    assert claims["ath"] == digest and claims["nonce"] == "n"


def test_nonce_challenges() -> None:
    assert dpop.nonce_challenge(400, {"dpop-nonce": "a"}, {"error": "use_dpop_nonce"}) == "a"
    assert (
        dpop.nonce_challenge(
            401, {"dpop-nonce": "b", "www-authenticate": 'DPoP error="use_dpop_nonce"'}, None
        )
        == "b"
    )
    assert dpop.nonce_challenge(400, {"dpop-nonce": "a"}, {"error": "invalid_grant"}) is None
    assert dpop.nonce_challenge(401, {"www-authenticate": 'DPoP error="use_dpop_nonce"'}, None) is None
