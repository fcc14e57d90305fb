"""The recording proxy's authorization rules without IO (`protocol/auth_legs.py`): which step an
exchange is, and what `--rewrite-auth-metadata` changes (only URLs on the upstream's origin)."""

from __future__ import annotations

import orjson
import pytest

from inspector.protocol.auth_legs import AuthLegs, rewrite_challenge, rewrite_metadata, rewrite_url

UP = "http://127.0.0.1:8000"
PX = "http://127.0.0.1:6280"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (UP, PX),
        (f"{UP}/", f"{PX}/"),
        (f"{UP}/mcp", f"{PX}/mcp"),
        (f"{UP}?a=1", f"{PX}?a=1"),
        (f"{UP}0/mcp", None),  # another port that starts the same
        ("https://127.0.0.1:8000/mcp", None),  # another scheme
        ("https://auth.example.com/", None),
    ],
)
def test_rewrite_url(url: str, expected: str | None) -> None:
    assert rewrite_url(url, UP, PX) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            f'Bearer error="invalid_token", resource_metadata="{UP}/.well-known/oauth-protected-resource/mcp"',
            f'Bearer error="invalid_token", resource_metadata="{PX}/.well-known/oauth-protected-resource/mcp"',
        ),
        (f"Bearer resource_metadata={UP}/prm, scope=mcp", f"Bearer resource_metadata={PX}/prm, scope=mcp"),
        ('Bearer resource_metadata="https://elsewhere.example/prm"', None),
        ('Bearer error="invalid_token"', None),
        ("", None),
    ],
)
def test_rewrite_challenge(value: str, expected: str | None) -> None:
    assert rewrite_challenge(value, UP, PX) == expected


def test_rewrite_metadata_moves_upstream_urls_only() -> None:
    prm = {
        "resource": f"{UP}/mcp",
        "authorization_servers": [f"{UP}/", "https://idp.example/"],
        "scopes_supported": ["mcp"],
        "bearer_methods_supported": ["header"],
    }
    out = rewrite_metadata(orjson.dumps(prm), UP, PX)
    assert out is not None
    assert orjson.loads(out) == {
        **prm,
        "resource": f"{PX}/mcp",
        "authorization_servers": [f"{PX}/", "https://idp.example/"],
    }
    assert rewrite_metadata(orjson.dumps({"issuer": "https://idp.example/"}), UP, PX) is None
    assert rewrite_metadata(b"not json", UP, PX) is None
    assert rewrite_metadata(b"[1, 2]", UP, PX) is None


@pytest.mark.parametrize(
    ("method", "path", "body", "step"),
    [
        ("POST", "/mcp", b"{}", None),
        ("GET", "/.well-known/oauth-protected-resource", b"", "resource-metadata"),
        ("GET", "/.well-known/oauth-protected-resource/mcp", b"", "resource-metadata"),
        ("GET", "/.well-known/oauth-authorization-server", b"", "as-metadata"),
        ("GET", "/.well-known/openid-configuration/tenant", b"", "as-metadata"),
        ("GET", "/tenant/.well-known/openid-configuration", b"", "as-metadata"),
        ("GET", "/.well-known/oauth-protected-resourcex", b"", None),
        ("POST", "/register", b"{}", "registration"),
        ("GET", "/authorize", b"", "authorization-request"),
        ("POST", "/token", b"grant_type=authorization_code&code=x", "token-request"),
        ("POST", "/token", b"grant_type=refresh_token&refresh_token=x", "refresh"),
        ("GET", "/register", b"", None),
        ("GET", "/favicon.ico", b"", None),
    ],
)
def test_steps(method: str, path: str, body: bytes, step: str | None) -> None:
    assert AuthLegs({"/mcp", "/mcp/"}).step(method, path, body) == step


def test_endpoints_learned_from_metadata() -> None:
    legs = AuthLegs({"/mcp"})
    legs.learn(
        orjson.dumps(
            {
                "authorization_endpoint": f"{UP}/oauth2/auth",
                "token_endpoint": f"{UP}/oauth2/token",
                "registration_endpoint": "https://idp.example/reg",
            }
        )
    )
    assert legs.step("GET", "/oauth2/auth") == "authorization-request"
    assert legs.step("POST", "/oauth2/token", b"grant_type=authorization_code") == "token-request"
    assert legs.step("POST", "/reg") == "registration"
    legs.learn(b"not json")  # ignored


def test_refused_mcp_requests() -> None:
    legs = AuthLegs({"/mcp"})
    assert legs.refused("/mcp", 401) == "unauthorized"
    assert legs.refused("/mcp", 403) == "step-up"
    assert legs.refused("/mcp", 404) is None
    assert legs.refused("/token", 401) is None
