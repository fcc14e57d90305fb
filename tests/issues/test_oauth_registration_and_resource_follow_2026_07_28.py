"""Issue #38: what our OAuth client sends the authorization server, as the 2026-07-28
authorization spec and conformance 0.2.0-alpha.12 ask.

- SEP-837: dynamic client registration names an `application_type` (`native` for a redirect URI on
  this machine, `web` for one elsewhere): an OIDC server defaults a missing one to `web` and refuses
  loopback redirect URIs.
- RFC 8707 / RFC 9728 3.3: the `resource` of the authorization and token requests is the resource
  metadata's `resource` exactly as published (a root identifier for a server at /mcp stays the root,
  no "/" appended), not the server URL.

The flow is driven step by step (sans-IO) against canned HTTP answers of a resource server and an
authorization server.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson
import pytest

from inspector.auth.flow import FlowInput, authorize
from inspector.auth.revisions import revision_for
from inspector.auth.steps import HttpRequest, HttpResponse

AS = "https://as.test"


def _json(doc: dict[str, Any], status: int = 200) -> HttpResponse:
    return HttpResponse(status, {"content-type": "application/json"}, orjson.dumps(doc))


def _drive(server_url: str, prm_resource: str, redirect_uri: str, version: str) -> list[HttpRequest]:
    """Every request the flow made, answering as a compliant resource and authorization server."""

    def answer(req: HttpRequest) -> HttpResponse:
        base = req.url.split("?", 1)[0]
        if "/.well-known/oauth-protected-resource" in base:
            return _json({"resource": prm_resource, "authorization_servers": [AS]})
        if base == f"{AS}/.well-known/oauth-authorization-server":
            return _json(
                {
                    "issuer": AS,
                    "authorization_endpoint": f"{AS}/authorize",
                    "token_endpoint": f"{AS}/token",
                    "registration_endpoint": f"{AS}/register",
                    "code_challenge_methods_supported": ["S256"],
                }
            )
        if base == f"{AS}/register":
            return _json({"client_id": "cid"}, 201)
        if base == f"{AS}/authorize":
            q = {k: v[0] for k, v in parse_qs(urlsplit(req.url).query).items()}
            return HttpResponse(302, {"location": f"{q['redirect_uri']}?code=c&state={q['state']}&iss={AS}"})
        if base == f"{AS}/token":
            return _json({"access_token": "at", "token_type": "Bearer"})
        return HttpResponse(404)

    flow = authorize(FlowInput(server_url, None, revision_for(version), redirect_uri))
    sent: list[HttpRequest] = []
    response: HttpResponse | None = None
    with pytest.raises(StopIteration):
        while True:
            step = flow.send(response)
            response = answer(step.request) if step.request else None
            if step.request:
                sent.append(step.request)
    return sent


@pytest.mark.parametrize(
    ("redirect_uri", "expected"),
    [
        ("http://127.0.0.1:8123/callback", "native"),
        ("http://localhost:6274/oauth/callback", "native"),
        ("http://[::1]:8123/callback", "native"),
        ("https://inspector.example.com/oauth/callback", "web"),
    ],
)
def test_dynamic_registration_names_the_application_type(redirect_uri: str, expected: str) -> None:
    sent = _drive("http://mcp.test/mcp", "http://mcp.test/mcp", redirect_uri, "2026-07-28")
    (registration,) = [r for r in sent if r.url == f"{AS}/register"]
    body = orjson.loads(registration.body)
    assert body["application_type"] == expected
    assert body["redirect_uris"] == [redirect_uri]


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_resource_is_sent_exactly_as_the_resource_metadata_publishes_it(version: str) -> None:
    # The server is at /mcp; its resource metadata names the origin (no path, no trailing "/").
    sent = _drive("http://mcp.test/mcp", "http://mcp.test", "http://127.0.0.1:9/callback", version)
    (authorization,) = [r for r in sent if r.url.startswith(f"{AS}/authorize")]
    (token,) = [r for r in sent if r.url == f"{AS}/token"]
    assert parse_qs(urlsplit(authorization.url).query)["resource"] == ["http://mcp.test"]
    assert parse_qs(token.body.decode())["resource"] == ["http://mcp.test"]
