"""The gateway's routing (`transports/gateway.py`) and the mounted legacy endpoint, without IO:
which route a path goes to, what path its upstream sees, which paths are MCP endpoints for the
guard, and the raw path passed on."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from inspector.capture import Recorder
from inspector.protocol.http_exchange import rewrite_endpoint
from inspector.transports.gateway import Gateway, Mounted, _raw
from inspector.transports.http_proxy import HttpProxy


def _gateway() -> Gateway:
    recorder = Recorder([])

    def proxy(target: str, prefix: str) -> HttpProxy:
        return HttpProxy(target, recorder, lambda _hint: 1, mount=prefix)

    return Gateway(
        [
            Mounted("github", "/github", proxy("http://127.0.0.1:9/mcp", "/github")),
            Mounted("docs", "/team/docs", proxy("http://127.0.0.1:8/v1/rpc", "/team/docs")),
        ]
    )


def test_paths_go_to_their_route_with_the_prefix_cut() -> None:
    gw = _gateway()
    cases = {
        "/github/mcp": ("github", "/mcp"),
        "/github": ("github", "/"),
        "/github/token": ("github", "/token"),
        "/team/docs/v1/rpc": ("docs", "/v1/rpc"),
        # RFC 9728 / RFC 8414 path insertion: discovery for a resource or issuer under a prefix.
        "/.well-known/oauth-protected-resource/github/mcp": (
            "github",
            "/.well-known/oauth-protected-resource/mcp",
        ),
        "/.well-known/oauth-authorization-server/github": (
            "github",
            "/.well-known/oauth-authorization-server",
        ),
        "/.well-known/openid-configuration/team/docs": ("docs", "/.well-known/openid-configuration"),
        # The prefix form the proxy's rewritten URLs use (http://GATEWAY<prefix>/.well-known/...).
        "/github/.well-known/oauth-protected-resource/mcp": (
            "github",
            "/.well-known/oauth-protected-resource/mcp",
        ),
    }
    for path, (name, upstream) in cases.items():
        found = gw.match(path)
        assert found is not None and (found[0].name, found[1]) == (name, upstream), path


def test_paths_no_route_serves_match_nothing() -> None:
    gw = _gateway()
    for path in (
        "/",
        "/githubx/mcp",
        "/team",
        "/team/docsx",
        "/mcp",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/other/mcp",
        "/.well-known/",
    ):
        assert gw.match(path) is None, path


def test_the_guard_sees_each_routes_mcp_paths_only() -> None:
    gw = _gateway()
    assert "/github/mcp" in gw.json_paths and "/team/docs/v1/rpc" in gw.json_paths
    assert "/github/token" not in gw.json_paths and "/mcp" not in gw.json_paths
    assert "/team/docs/mcp" not in gw.json_paths and None not in gw.json_paths


def test_the_raw_path_keeps_the_clients_encoding_after_the_prefix() -> None:
    scope = {"path": "/github/a b", "raw_path": b"/github/a%20b"}
    assert _raw(scope, "/github", "/a b") == b"/a%20b"
    scope = {"path": "/github/mcp", "raw_path": b"/github/mcp"}
    assert _raw(scope, "/github", "/mcp") == b"/mcp"
    # An encoded prefix (%67 is g): the path is re-encoded from what the route decided.
    scope = {"path": "/github/a b", "raw_path": b"/%67ithub/a%20b"}
    assert _raw(scope, "/github", "/a b") == b"/a%20b"
    # An encoded slash right after the prefix: what follows the origin is still a path, so the
    # upstream URL cannot name another host (`http://127.0.0.1:9%2F@other.host/`).
    scope = {"path": "/github/@other.host/", "raw_path": b"/github%2F@other.host/"}
    assert _raw(scope, "/github", "/@other.host/") == b"/%40other.host/"


def test_a_mounted_legacy_endpoint_points_under_the_prefix() -> None:
    raw = b"event: endpoint\r\ndata: /messages/?session_id=abc\r\n\r\n"
    out = rewrite_endpoint(raw, "/messages/?session_id=abc", "http://127.0.0.1:9", "/old")
    assert out.raw == raw.replace(b"/messages/", b"/old/messages/")
    assert out.meta == {"rewritten_to": "/old/messages/?session_id=abc"}
    assert out.legacy_id == "abc" and "/messages/" in out.mcp_paths
    absolute = rewrite_endpoint(
        raw, "http://127.0.0.1:9/messages/?session_id=abc", "http://127.0.0.1:9", "/old"
    )
    assert absolute.meta == {"rewritten_to": "/old/messages/?session_id=abc"}
    # Without a mount, as before: a relative endpoint is left alone.
    assert rewrite_endpoint(raw, "/messages/?session_id=abc", "http://127.0.0.1:9").meta == {}


_SEGMENT = st.sampled_from(["github", "team", "docs", ".well-known", "oauth-protected-resource", "mcp", "x"])


@given(st.lists(_SEGMENT, max_size=5))
def test_a_routed_path_is_its_prefix_plus_what_the_upstream_gets(segments: list[str]) -> None:
    gw = _gateway()
    path = "/" + "/".join(segments)
    found = gw.match(path)
    if found is None:
        assert not any(path == r.prefix or path.startswith(r.prefix + "/") for r in gw.routes)
        return
    route, upstream = found
    if path.startswith("/.well-known/"):
        head = "/".join(path.split("/")[:3])
        assert head + route.prefix + upstream[len(head) :] == path
    else:
        assert route.prefix + (upstream if upstream != "/" else "") == path or path == route.prefix + upstream
