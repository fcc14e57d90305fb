"""The OAuth core's discovery: WWW-Authenticate parsing (table + Hypothesis), well-known URL orders."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.auth.discovery import as_metadata_urls, bearer_challenge, parse_www_authenticate, prm_urls


@pytest.mark.parametrize(
    ("header", "scheme", "params"),
    [
        ('Bearer resource_metadata="https://a/x"', "Bearer", {"resource_metadata": "https://a/x"}),
        (
            'Bearer error="insufficient_scope", scope="a b", resource_metadata="http://h/.well-known/x"',
            "Bearer",
            {"error": "insufficient_scope", "scope": "a b", "resource_metadata": "http://h/.well-known/x"},
        ),
        ("bearer realm=example", "bearer", {"realm": "example"}),
        ('Bearer realm="a \\"q\\" b"', "Bearer", {"realm": 'a "q" b'}),
        ("Bearer", "Bearer", {}),
        ('Bearer  scope = "x" ,  error=invalid_token', "Bearer", {"scope": "x", "error": "invalid_token"}),
    ],
)
def test_one_challenge(header: str, scheme: str, params: dict[str, str]) -> None:
    (challenge,) = parse_www_authenticate(header)
    assert challenge.scheme == scheme
    assert challenge.params == params


def test_several_challenges_and_token68() -> None:
    found = parse_www_authenticate('Basic realm="x", Negotiate abc123==, Bearer scope="s"')
    assert [c.scheme for c in found] == ["Basic", "Negotiate", "Bearer"]
    assert found[1].token68 == "abc123=="
    challenge = bearer_challenge('Basic realm="x", Bearer scope="s"')
    assert challenge is not None and challenge.params == {"scope": "s"}
    assert bearer_challenge('Basic realm="x"') is None
    assert bearer_challenge(None) is None


_token = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-0123456789", min_size=1, max_size=12)
_value = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=30)


@given(st.dictionaries(_token, _value, max_size=5))
def test_quoted_params_round_trip(params: dict[str, str]) -> None:
    """Any parameters, written as quoted strings with escapes, parse back to the same values."""
    quoted = ", ".join(
        f'{k}="{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
        for k, v in params.items()
    )
    (challenge,) = parse_www_authenticate(f"Bearer {quoted}")
    assert challenge.params == params


@given(st.text(max_size=200))
def test_never_raises(header: str) -> None:
    for challenge in parse_www_authenticate(header):
        assert challenge.scheme


@pytest.mark.parametrize(
    ("server", "header", "expected"),
    [
        (
            "http://h:1/mcp",
            None,
            [
                "http://h:1/.well-known/oauth-protected-resource/mcp",
                "http://h:1/.well-known/oauth-protected-resource",
            ],
        ),
        ("http://h:1/", None, ["http://h:1/.well-known/oauth-protected-resource"]),
        ("http://h:1/mcp", "http://h:1/custom.json", ["http://h:1/custom.json"]),
    ],
)
def test_prm_order(server: str, header: str | None, expected: list[str]) -> None:
    """2025-11-25: the header's URL, else path-aware then root."""
    assert prm_urls(server, header) == expected


@pytest.mark.parametrize(
    ("issuer", "expected"),
    [
        (
            "https://as/tenant1",
            [
                "https://as/.well-known/oauth-authorization-server/tenant1",
                "https://as/.well-known/openid-configuration/tenant1",
                "https://as/tenant1/.well-known/openid-configuration",
            ],
        ),
        (
            "https://as",
            [
                "https://as/.well-known/oauth-authorization-server",
                "https://as/.well-known/openid-configuration",
            ],
        ),
    ],
)
def test_as_metadata_order(issuer: str, expected: list[str]) -> None:
    assert as_metadata_urls(issuer) == expected
