"""The HTTP exchange rules live in the sans-IO core, with table tests.

What was wrong: header filtering, content sniffing, endpoint rewriting and
session routing were private functions of the proxy (`transports/http_proxy.py`,
`transports/http_sessions.py`), next to sockets and the event loop, and only
tested through a running proxy. They are now `inspector.protocol.http_exchange`
(no IO: the guard `tests/unit/test_protocol_is_sans_io.py` covers it), tested
here as tables.
"""

from __future__ import annotations

import gzip
import zlib

import pytest

from inspector.protocol.http_exchange import (
    SessionRouter,
    decoded_body,
    forward_headers,
    is_json_body,
    legacy_session_param,
    media_type,
    path_forms,
    rewrite_endpoint,
)

UP = "http://127.0.0.1:9000"


@pytest.mark.parametrize(
    ("headers", "forwarded"),
    [
        ([(b"accept", b"*/*")], [(b"accept", b"*/*")]),
        ([(b"host", b"proxy"), (b"Connection", b"keep-alive"), (b"TE", b"trailers")], []),
        ([(b"connection", b"x-drop, close"), (b"x-drop", b"1"), (b"x-keep", b"2")], [(b"x-keep", b"2")]),
        ([(b"transfer-encoding", b"chunked"), (b"upgrade", b"h2c")], []),
        ([(b"cookie", b"a=1; mcp_inspector_token_6290=secret; b=2")], [(b"cookie", b"a=1; b=2")]),
        ([(b"cookie", b"mcp_inspector_token_6290=secret")], []),
        ([(b"authorization", b"Bearer t")], [(b"authorization", b"Bearer t")]),  # the server's business
    ],
)
def test_forward_headers(headers: list[tuple[bytes, bytes]], forwarded: list[tuple[bytes, bytes]]) -> None:
    assert forward_headers(headers) == forwarded


@pytest.mark.parametrize(
    ("content_type", "body", "is_json"),
    [
        (b"application/json; charset=utf-8", b"{}", True),
        (b"application/problem+json", b"{}", True),
        (b"text/plain", b"{}", False),
        (b"", b'  {"jsonrpc":"2.0"}', True),
        (b"", b"[1]", True),
        (b"", b"hello", False),
        (b"", b"", False),
    ],
)
def test_json_sniffing(content_type: bytes, body: bytes, is_json: bool) -> None:
    kind = media_type([(b"Content-Type", content_type)]) if content_type else b""
    assert is_json_body(kind, body) is is_json


@pytest.mark.parametrize(
    ("body", "encoding", "stored", "meta"),
    [
        (b"{}", None, b"{}", None),
        (b"{}", "identity", b"{}", None),
        (gzip.compress(b"{}", mtime=0), "gzip", b"{}", {"content_encoding": "gzip"}),
        (zlib.compress(b"{}"), "deflate", b"{}", {"content_encoding": "deflate"}),
        (b"nope", "gzip", b"nope", {"content_encoding": "gzip", "problem": True}),
        (b"br-bytes", "br", b"br-bytes", {"content_encoding": "br", "problem": True}),
    ],
)
def test_decoded_body(body: bytes, encoding: str | None, stored: bytes, meta: dict | None) -> None:  # type: ignore[type-arg]
    got, got_meta = decoded_body(body, encoding)
    assert got == stored
    if meta is None:
        assert got_meta is None
    else:
        assert got_meta is not None and got_meta["content_encoding"] == meta["content_encoding"]
        assert ("problem" in got_meta) is ("problem" in meta)


@pytest.mark.parametrize(
    ("data", "sent", "meta", "legacy", "paths"),
    [
        (
            "/messages?session_id=a1",
            b"data: /messages?session_id=a1\n\n",
            {},
            "a1",
            {"/messages", "/messages/"},
        ),
        (
            f"{UP}/m/?sessionId=b2",
            b"data: /m/?sessionId=b2\n\n",
            {"rewritten_to": "/m/?sessionId=b2"},
            "b2",
            {"/m", "/m/"},
        ),
        ("http://elsewhere:1/m?session_id=c", b"data: http://elsewhere:1/m?session_id=c\n\n", {}, "c", set()),
        ("/plain", b"data: /plain\n\n", {}, None, {"/plain", "/plain/"}),
    ],
)
def test_rewrite_endpoint(data: str, sent: bytes, meta: dict, legacy: str | None, paths: set[str]) -> None:  # type: ignore[type-arg]
    rewrite = rewrite_endpoint(f"data: {data}\n\n".encode(), data, UP)
    assert (rewrite.raw, rewrite.meta, rewrite.legacy_id, rewrite.mcp_paths) == (sent, meta, legacy, paths)


@pytest.mark.parametrize(
    ("query", "found"),
    [("session_id=x", "x"), ("sessionId=y&z=1", "y"), ("other=1", None), ("", None)],
)
def test_legacy_session_param(query: str, found: str | None) -> None:
    assert legacy_session_param(query) == found


def test_path_forms() -> None:
    assert path_forms("/mcp") == path_forms("/mcp/") == {"/mcp", "/mcp/"}
    assert path_forms("/") == {"/"}


def _router(idle: float | None = None) -> SessionRouter:
    ids = iter(range(1, 100))
    return SessionRouter(lambda _hint: next(ids), idle)


def test_routing_streamable_session_takes_its_id() -> None:
    router = _router()
    sid, key = router.route(None, "", "c:1")  # initialize: no session id yet
    router.bind_mcp_session(key, "S")
    assert router.route("S", "", "c:2") == (sid, ("mcp", "S"))
    assert router.route(None, "", "c:1")[0] != sid  # the connection is free for a next session
    assert router.connection_closed("c:9") is None


def test_routing_legacy_session_lives_with_its_stream() -> None:
    router = _router()
    sid, _ = router.route(None, "", "c:1")  # the GET event stream
    router.begin(sid, 0.0)
    router.bind_legacy(sid, "L")
    assert router.is_legacy_stream(sid)
    assert router.route(None, "session_id=L", "c:2")[0] == sid  # a POST to the message endpoint
    assert (
        router.close(sid, "the client closed the event stream") is None
    )  # the stream's exchange is under way
    assert router.finish(sid, 1.0) == "the client closed the event stream"
    router.forget(sid)
    assert router.open_sessions() == set()


def test_routing_stateless_session_ends_with_its_connection_once_idle() -> None:
    router = _router()
    sid, _ = router.route(None, "", "c:1")
    router.begin(sid, 0.0)
    assert router.connection_closed("c:1") is None  # a request is still under way
    assert router.finish(sid, 0.5) == "the client closed its connection"


def test_routing_idle_sessions() -> None:
    router = _router(idle=10.0)
    a, _ = router.route(None, "", "c:1")
    b, _ = router.route("S", "", "c:2")
    router.begin(a, 0.0)
    router.finish(a, 1.0)
    router.begin(b, 0.0)  # an open stream: never idle
    assert router.idle(10.5) == []
    assert router.idle(11.0) == [a]
    assert _router().idle(1e9) == []  # no idle limit
