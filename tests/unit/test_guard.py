"""The listener guard's pure parts: bind policy, allowed Host names, --allow-origin values, and
the refusal decision for ASGI scopes (no sockets: the real listeners are tested in
tests/issues/ and tests/integration/test_listener_guard.py)."""

from __future__ import annotations

import pytest

from inspector.errors import InspectorError
from inspector.guard import ListenerGuard, allowed_hosts, check_bind, is_loopback, parse_origins


def test_loopback_names() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "localhost", "LOCALHOST", "::1", "[::1]"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "192.168.1.5", "example.com", ""):
        assert not is_loopback(host), host


def test_a_non_loopback_bind_needs_allow_remote() -> None:
    check_bind("127.0.0.1", allow_remote=False)
    check_bind("0.0.0.0", allow_remote=True)
    with pytest.raises(InspectorError, match="--http 0.0.0.0 .*--allow-remote"):
        check_bind("0.0.0.0", allow_remote=False, option="--http")


def test_allowed_hosts_of_a_loopback_listener() -> None:
    hosts = allowed_hosts("127.0.0.1", 6280)
    assert hosts == {"127.0.0.1:6280", "localhost:6280", "[::1]:6280"}
    assert "127.0.0.1" not in hosts and "evil.example:6280" not in hosts


def test_allowed_hosts_widen_only_for_a_remote_bind_or_allow_host() -> None:
    remote = allowed_hosts("0.0.0.0", 80)
    assert {"127.0.0.1:80", "127.0.0.1", "0.0.0.0:80"} <= remote and len(remote) > 6
    named = allowed_hosts("127.0.0.1", 7000, extra=["Inspector.Test", "proxy.test:8443", "::2"])
    assert {"inspector.test:7000", "inspector.test", "proxy.test:8443", "[::2]:7000", "[::2]"} <= named
    assert "proxy.test:7000" not in named


def test_allow_origin_values_are_checked() -> None:
    assert parse_origins(["http://localhost:5173/", "null", "HTTPS://App.Example"]) == (
        "http://localhost:5173",
        "null",
        "https://app.example",
    )
    for bad in ("localhost:5173", "http://x/path", "ftp://x", "*"):
        with pytest.raises(InspectorError, match="--allow-origin"):
            parse_origins([bad])


def _scope(headers: dict[str, str], method: str = "POST", path: str = "/mcp", kind: str = "http") -> dict:
    raw = [(k.encode(), v.encode()) for k, v in headers.items()]
    return {"type": kind, "method": method, "path": path, "headers": raw}


def test_refusal_decisions() -> None:
    guard = ListenerGuard(None, hosts=allowed_hosts("127.0.0.1", 9), origins=["null"], json_paths={"/mcp"})
    ok = {"host": "127.0.0.1:9", "content-type": "application/json; charset=utf-8"}
    assert guard.refusal(_scope(ok)) is None
    assert guard.refusal(_scope({**ok, "origin": "http://localhost:9"})) is None
    assert guard.refusal(_scope({**ok, "origin": "null"})) is None  # explicitly allowed here
    assert guard.refusal(_scope({**ok, "host": "LOCALHOST:9"})) is None
    assert guard.refusal(_scope({**ok, "host": "evil.example:9"}))[0] == 403  # type: ignore[index]
    assert "Origin" in guard.refusal(_scope({**ok, "origin": "http://localhost:8"}))[1]  # type: ignore[index]
    assert guard.refusal(_scope({"content-type": "application/json"}))[0] == 403  # type: ignore[index]
    assert guard.refusal(_scope({**ok, "content-type": "text/plain"}))[0] == 415  # type: ignore[index]
    assert guard.refusal(_scope({"host": "127.0.0.1:9"}))[0] == 415  # type: ignore[index]
    # Only MCP POSTs must be JSON: a form post elsewhere, a GET or a websocket is not judged by type.
    form = {"host": "127.0.0.1:9", "content-type": "application/x-www-form-urlencoded"}
    assert guard.refusal(_scope(form, path="/token")) is None
    assert guard.refusal(_scope(form, method="GET")) is None
    assert guard.refusal(_scope({"host": "127.0.0.1:9"}, kind="websocket")) is None
    strict = ListenerGuard(None, hosts=allowed_hosts("127.0.0.1", 9))
    assert strict.refusal(_scope({"host": "127.0.0.1:9", "origin": "null"}))[0] == 403  # type: ignore[index]
