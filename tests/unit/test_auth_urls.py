"""`auth.urls.check_url`, the one check of a URL an MCP or authorization server names (issue #33)."""

from __future__ import annotations

import pytest

from inspector.auth.urls import check_url, origin_of
from inspector.errors import AuthFailure

LOCAL = "http://127.0.0.1:8000/mcp"
REMOTE = "https://mcp.example/mcp"


@pytest.mark.parametrize(
    ("url", "server", "origins"),
    [
        ("https://as.example/authorize", LOCAL, None),
        ("HTTPS://as.example/authorize", REMOTE, None),
        ("http://127.0.0.1:9000/token", LOCAL, None),
        ("http://localhost:9000/token", LOCAL, None),
        ("http://[::1]:9000/token", LOCAL, None),
        ("http://127.0.0.1:8000/.well-known/x", LOCAL, [LOCAL]),
        ("http://127.0.0.1:9000/token", LOCAL, [LOCAL, "http://127.0.0.1:9000"]),
        ("http://lan.test:8000/authorize", "http://lan.test:8000/mcp", None),  # the user's own origin
    ],
)
def test_accepted(url: str, server: str, origins: list[str] | None) -> None:
    assert check_url(url, "field", "step", server_url=server, origins=origins) == url


@pytest.mark.parametrize(
    ("url", "server", "origins", "said"),
    [
        ("file:///etc/passwd?x=1", LOCAL, None, "only https"),
        ("javascript:alert(1)", LOCAL, None, "only https"),
        ("data:text/html,<script>", LOCAL, None, "only https"),
        ("http://as.example/authorize", LOCAL, None, "only https"),
        ("https:///nohost", LOCAL, None, "only https"),
        ("https://as.example:99999/", LOCAL, None, "not a URL"),
        ("https://as.example/a b", LOCAL, None, "control characters"),
        ("https://as.example/\x1b[2J", LOCAL, None, "control characters"),
        (["https://as.example/"], LOCAL, None, "not a URL"),
        ("http://127.0.0.1:9000/x", REMOTE, None, "names this machine"),
        ("https://localhost/x", REMOTE, None, "names this machine"),
        ("https://0.0.0.0:9000/x", REMOTE, None, "names this machine"),
        ("http://127.0.0.1:9000/admin", LOCAL, [LOCAL], "another local port"),
        ("http://localhost:8000/x", LOCAL, [LOCAL], "another local port"),  # another origin by name
    ],
)
def test_refused(url: object, server: str, origins: list[str] | None, said: str) -> None:
    with pytest.raises(AuthFailure) as caught:
        check_url(url, "the metadata's token_endpoint", "as-metadata", server_url=server, origins=origins)
    failure = caught.value
    assert failure.expectation == "unsafe-url" and failure.step == "as-metadata"
    assert said in str(failure) and "token_endpoint" in str(failure)
    assert "\x1b" not in str(failure)


def test_an_issuer_has_no_query() -> None:
    with pytest.raises(AuthFailure, match="no query"):
        check_url("https://as.example/?x=1", "issuer", "as-metadata", server_url=LOCAL, plain=True)


def test_origin_of() -> None:
    assert origin_of("HTTPS://AS.example/x") == "https://as.example:443"
    assert origin_of("http://[::1]/x") == "http://[::1]:80"
    assert origin_of("file:///etc/passwd") is None
    assert origin_of("http://h:bad/") is None
