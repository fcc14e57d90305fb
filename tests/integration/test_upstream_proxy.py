"""`mcp-inspect proxy` over its upstream client, against the byte-exact server of tests/integration/test_upstream.py.

What reaches the upstream server and what comes back, to the byte: only
hop-by-hop headers go and `Host` names the upstream; nothing is added either
way; bodies of every framing pass whole; a response cut short upstream is
cut short for the client too, and recorded as such.

One plain (HTTP) server serves the module (`port`); each test has a proxy (and a recording) of its own.
"""

from __future__ import annotations

import hashlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from inspector.store import Message, list_sessions, open_engine
from tests.http_peers import proxy_in_process
from tests.integration.test_upstream import _pattern, scripted_server, self_signed_cert
from tests.shim_process import messages


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    """The byte-exact server over plain HTTP, for the module (the TLS test starts its own)."""
    with scripted_server() as started:
        yield started


def _rows(db: Path, predicate, timeout: float = 20.0) -> list[Message]:  # type: ignore[no-untyped-def]
    """The proxy commits off the forwarding path: wait (bounded) for rows matching `predicate`."""
    deadline = time.monotonic() + timeout
    while True:
        rows = []
        if db.exists():
            engine = open_engine(db)
            rows = [m for s in list_sessions(engine) for m in messages(engine, s.id)]
        if predicate(rows):
            return rows
        assert time.monotonic() < deadline, f"rows never matched: {[(m.channel, m.meta) for m in rows]}"
        time.sleep(0.05)


def _raw_exchange(url: str, request: bytes) -> tuple[bytes, bytes]:
    """Send `request` bytes to the proxy on a fresh socket; (response head, body) for a content-length answer."""
    host, port = url.split("//")[1].split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        while len(body) < length:
            body += sock.recv(65536)
        return head, body


def test_request_and_response_pass_byte_for_byte_but_hop_by_hop_and_host(db_path: Path, port: int) -> None:
    with proxy_in_process(f"http://127.0.0.1:{port}/mcp", db_path) as (url, _):
        proxy_port = url.split(":")[2].split("/")[0]
        request = (
            b"POST /echo?x=1&y=%2F HTTP/1.1\r\nHost: 127.0.0.1:" + proxy_port.encode() + b"\r\n"
            b"Content-Type: application/json\r\nMcp-Session-Id: abc-123\r\nLast-Event-ID: 7\r\n"
            b"Connection: keep-alive, X-Drop\r\nX-Drop: 1\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\n"
            b"X-Custom: Value  With  Spaces\r\nAccept: application/json, text/event-stream\r\n"
            b'Content-Length: 7\r\n\r\n{"a":1}'
        )  # fmt: skip
        head, echoed = _raw_exchange(url, request)
    assert echoed == (
        b"POST /echo?x=1&y=%2F HTTP/1.1\r\nhost: 127.0.0.1:" + str(port).encode() + b"\r\n"
        b"content-type: application/json\r\nmcp-session-id: abc-123\r\nlast-event-id: 7\r\n"
        b"x-custom: Value  With  Spaces\r\naccept: application/json, text/event-stream\r\n"
        b'content-length: 7\r\n\r\n{"a":1}'
    ), "ASGI gives header names in lower case; nothing else may change"
    lines = head.split(b"\r\n")
    assert lines[0] == b"HTTP/1.1 200 OK"
    assert sorted(line.split(b":")[0].lower() for line in lines[1:]) == [b"content-length", b"x-conn"], (
        "no header of the proxy's own"
    )


def test_upstream_connections_are_reused_across_requests(db_path: Path, port: int) -> None:
    with (
        proxy_in_process(f"http://127.0.0.1:{port}/mcp", db_path) as (url, _),
        httpx.Client(timeout=20) as http,
    ):
        base = url.removesuffix("/mcp")
        conns = {http.get(f"{base}/length?bytes=5").headers["x-conn"] for _ in range(5)}
        assert len(conns) == 1
        # Bodies framed by the end of the connection arrive whole (the proxy re-frames them for its client).
        reply = http.get(f"{base}/until-close")
        assert (reply.status_code, reply.content) == (200, b"first part, second part")
        assert http.get(f"{base}/interim").content == b"final"


def test_ten_megabyte_request_bodies_stream_through_chunked_or_with_length(db_path: Path, port: int) -> None:
    size = 10 * 1024 * 1024
    data = _pattern(size)
    want = {"length": size, "sha256": hashlib.sha256(data).hexdigest()}

    def chunks():  # type: ignore[no-untyped-def]
        for i in range(0, size, 65536):
            yield data[i : i + 65536]

    with (
        proxy_in_process(f"http://127.0.0.1:{port}/mcp", db_path) as (url, _),
        httpx.Client(timeout=60) as http,
    ):
        sink = url.replace("/mcp", "/sink")
        assert http.post(sink, content=chunks()).json() == want  # chunked from the client
        assert http.post(sink, content=data).json() == want  # with content-length
    rows = _rows(db_path, lambda rows: sum(m.channel == "http-request" and m.size == size for m in rows) == 2)
    assert all(m.raw == data for m in rows if m.channel == "http-request")


def test_a_response_cut_short_upstream_is_cut_short_for_the_client_and_recorded(
    db_path: Path, port: int
) -> None:
    with (
        proxy_in_process(f"http://127.0.0.1:{port}/mcp", db_path) as (url, _),
        httpx.Client(timeout=20) as http,
    ):
        base = url.removesuffix("/mcp")
        with pytest.raises(httpx.RemoteProtocolError):
            http.get(f"{base}/cut")
        assert http.get(f"{base}/length?bytes=3").content == bytes(range(3)), "the proxy works on"
    rows = _rows(db_path, lambda rows: any("broke" in json.dumps(m.meta) for m in rows))
    cut = next(m for m in rows if "broke" in json.dumps(m.meta))
    assert cut.raw == b"0123456789" and cut.http_status == 200
    assert "in the middle of the response" in cut.meta["problem"]


def test_https_upstream_verified_with_the_system_trust_settings(
    db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = self_signed_cert(tmp_path)
    with scripted_server((cert, key)) as port:
        monkeypatch.setenv("SSL_CERT_FILE", cert)  # what ssl.create_default_context() trusts in the proxy
        with proxy_in_process(f"https://localhost:{port}/mcp", db_path) as (url, _):
            echoed = httpx.get(url.replace("/mcp", "/echo"), timeout=20).content
        assert echoed.startswith(b"GET /echo HTTP/1.1\r\nhost: localhost:" + str(port).encode() + b"\r\n")
        monkeypatch.delenv("SSL_CERT_FILE")
        monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path / "nothing-here"))
        with proxy_in_process(f"https://localhost:{port}/mcp", db_path) as (url, _):
            refused = httpx.get(url.replace("/mcp", "/echo"), timeout=20)
        assert refused.status_code == 502 and "CERTIFICATE_VERIFY_FAILED" in refused.text


def test_event_stream_head_and_events_pass_each_as_it_comes(db_path: Path, port: int) -> None:
    with (
        proxy_in_process(f"http://127.0.0.1:{port}/mcp", db_path) as (url, _),
        httpx.Client(timeout=20) as http,
    ):
        base = url.removesuffix("/mcp")
        started = time.monotonic()
        with http.stream("GET", f"{base}/sse?n=3&delay_ms=300&quiet_ms=1000") as r:
            head_at = time.monotonic() - started
            arrivals = []
            for line in r.iter_lines():
                if line.startswith("data:"):
                    arrivals.append(time.monotonic() - started)
    assert r.headers["content-type"] == "text/event-stream"
    assert head_at < 0.5, f"a quiet stream's head was held back {head_at:.3f} s"
    assert len(arrivals) == 3 and arrivals[0] > 0.9
    assert arrivals[1] - arrivals[0] > 0.2 and arrivals[2] - arrivals[1] > 0.2, "each event as it comes"
    rows = _rows(db_path, lambda rows: sum(m.channel == "sse" for m in rows) == 3)
    assert [m.sse_event_id for m in rows if m.channel == "sse"] == ["0", "1", "2"]
