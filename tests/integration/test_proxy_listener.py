"""The proxy's own HTTP/1.1 listener (`transports/http_listener.py`) at the byte level, on real sockets.

The real `mcp-inspect proxy` in front of tests/peers/scripted_http_server.py;
the client is a raw socket, its responses read with h11. What uvicorn did for
the proxy and the listener must keep doing: pipelined requests answered in
order, chunked request bodies, `Expect: 100-continue`, HEAD responses without
a body on a connection that stays usable, HTTP/1.0 closing, 400 for what is
not HTTP, a stop (SIGINT) that does not hang on an open event stream, a
12 MiB request body (read pauses and resumes) and a client that leaves in
the middle of its request body.

The own listener's proxy runs in this process (tests/http_peers.py `proxy_in_process`), uvicorn's
(it stops on signals only) and the one the stop test signals as processes.

One scripted server serves the module. The tests that only read responses share one proxy per
listener (`shared_proxy`: a client that broke off or sent garbage leaves it working for the next
test); the tests that read the recording, and the stop, start their own.
"""

from __future__ import annotations

import signal
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import h11
import httpx
import orjson
import pytest

from inspector.store import list_sessions, open_engine
from tests.http_peers import inspector_proxy, proxy_in_process, scripted_http_server
from tests.shim_process import messages

TIMEOUT = 20.0


@pytest.fixture(params=["own", "uvicorn"])
def listener_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """Each test runs on the proxy's own listener and on its library fallback (uvicorn)."""
    return {"MCP_INSPECTOR_PROXY_LISTENER": request.param}


def _listening(target: str, db: Path, env: dict[str, str]) -> Any:
    """The proxy on the listener `env` names: the own one in this process, uvicorn as a process."""
    if env["MCP_INSPECTOR_PROXY_LISTENER"] == "uvicorn":
        return inspector_proxy(target, db, env=env, warm=True)
    return proxy_in_process(target, db, env=env)


JSON_TYPES = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def _request(method: str, id_: int) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": id_, "method": method})


def _post(path: str, host: str, body: bytes, *extra: bytes, version: bytes = b"1.1") -> bytes:
    return (
        b"POST " + path.encode() + b" HTTP/" + version + b"\r\nhost: " + host.encode() + b"\r\n"
        b"content-type: application/json\r\naccept: application/json, text/event-stream\r\n"
        + b"".join(h + b"\r\n" for h in extra)
        + b"content-length: %d\r\n\r\n" % len(body)
        + body
    )


@pytest.fixture(scope="module")
def scripted() -> Iterator[str]:
    """tests/peers/scripted_http_server.py for the module (it keeps no state between requests)."""
    with scripted_http_server() as base:
        yield base


@pytest.fixture(scope="module", params=["own", "uvicorn"])
def shared_proxy(
    request: pytest.FixtureRequest, scripted: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A proxy on each listener (as `listener_env`) for the tests that do not read the recording."""
    db = tmp_path_factory.mktemp(f"shared-{request.param}") / "rec.db"
    with _listening(f"{scripted}/mcp", db, {"MCP_INSPECTOR_PROXY_LISTENER": request.param}) as (url, _p):
        yield url


@contextmanager
def _connected(url: str) -> Iterator[tuple[str, str, socket.socket]]:
    """(path, host header, a connected socket) for the proxy at `url`."""
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT)
    try:
        yield parts.path, parts.netloc, sock
    finally:
        sock.close()


@contextmanager
def _proxy(db: Path, env: dict[str, str], scripted: str) -> Iterator[tuple[str, str, socket.socket]]:
    """(path, host header, a connected socket) for a proxy of its own in front of the scripted server."""
    with (
        _listening(f"{scripted}/mcp", db, env) as (url, _proxy),
        _connected(url) as connected,
    ):
        yield connected


class _Reader:
    """Responses from a raw socket, parsed by h11 (the client side of a connection)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.conn = h11.Connection(h11.CLIENT)

    def expect(self, method: bytes) -> None:
        # h11 must have seen a request to parse its response; it is never sent from here.
        self.conn.send(h11.Request(method=method, target="/", headers=[("host", "x")]))
        self.conn.send(h11.EndOfMessage())

    def response(self) -> tuple[int, dict[bytes, bytes], bytes]:
        status, headers, body = 0, {}, b""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            event = self.conn.next_event()
            if event is h11.NEED_DATA:
                self.conn.receive_data(self.sock.recv(65536))
            elif isinstance(event, h11.Response):
                status, headers = event.status_code, dict(event.headers)
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                if self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE:
                    self.conn.start_next_cycle()
                return status, headers, body
            elif isinstance(event, h11.ConnectionClosed):
                raise AssertionError("the connection closed before the response's end")
        raise AssertionError("no complete response in time")


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the peer sends until it closes the connection (bounded by the socket's timeout)."""
    got = b""
    while chunk := sock.recv(65536):
        got += chunk
    return got


def _rows(db: Path, predicate, timeout: float = TIMEOUT):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        if db.exists():
            engine = open_engine(db)
            rows = [m for s in list_sessions(engine) for m in messages(engine, s.id)]
            if predicate(rows):
                return rows
        if time.monotonic() > deadline:
            raise AssertionError("the recorded rows never matched")
        time.sleep(0.05)


def test_pipelined_requests_are_answered_in_order_on_one_connection(
    db_path: Path, listener_env: dict[str, str], scripted: str
) -> None:
    with _proxy(db_path, listener_env, scripted) as (path, host, sock):
        sock.sendall(_post(path, host, _request("tools/list", 1)) + _post(path, host, _request("ping", 2)))
        reader = _Reader(sock)
        answers = []
        for _ in range(2):
            reader.expect(b"POST")
            status, _headers, body = reader.response()
            assert status == 200
            answers.append(orjson.loads(body))
        assert [(a["id"], a["result"]["echo"]) for a in answers] == [(1, "tools/list"), (2, "ping")]
    rows = _rows(db_path, lambda rows: sum(m.channel == "http-request" for m in rows) == 2)
    assert [m.method for m in rows if m.channel == "http-request"] == ["tools/list", "ping"]


def test_a_chunked_request_body_is_forwarded_and_recorded_whole(
    db_path: Path, listener_env: dict[str, str], scripted: str
) -> None:
    body = _request("tools/call", 7)
    parts = [body[:5], body[5:20], body[20:]]
    with _proxy(db_path, listener_env, scripted) as (path, host, sock):
        sock.sendall(
            b"POST " + path.encode() + b" HTTP/1.1\r\nhost: " + host.encode() + b"\r\n"
            b"content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
        )
        for part in parts:  # separate writes: the listener sees the body arrive in pieces
            sock.sendall(b"%x\r\n%b\r\n" % (len(part), part))
        sock.sendall(b"0\r\n\r\n")
        reader = _Reader(sock)
        reader.expect(b"POST")
        status, _headers, answer = reader.response()
        assert status == 200 and orjson.loads(answer)["result"] == {"echo": "tools/call"}
    rows = _rows(db_path, lambda rows: any(m.channel == "http-request" for m in rows))
    assert next(m for m in rows if m.channel == "http-request").raw == body


def test_expect_100_continue_is_answered_before_the_body_is_sent(shared_proxy: str) -> None:
    body = _request("ping", 3)
    with _connected(shared_proxy) as (path, host, sock):
        head = _post(path, host, body, b"expect: 100-continue")[: -len(body)]
        sock.sendall(head)
        got = b""
        while b"\r\n\r\n" not in got:  # bounded by the socket timeout
            got += sock.recv(1024)
        assert got.startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(body)
        reader = _Reader(sock)
        reader.expect(b"POST")
        reader.conn.receive_data(got)  # the 100 is an informational response to h11: skipped
        status, _headers, answer = reader.response()
        assert status == 200 and orjson.loads(answer)["id"] == 3


def test_a_head_response_has_no_body_and_the_connection_stays_usable(shared_proxy: str) -> None:
    with _connected(shared_proxy) as (path, host, sock):
        well_known = b"/.well-known/oauth-authorization-server"
        sock.sendall(b"HEAD " + well_known + b" HTTP/1.1\r\nhost: " + host.encode() + b"\r\n\r\n")
        sock.sendall(_post(path, host, _request("ping", 4)))
        reader = _Reader(sock)
        reader.expect(b"HEAD")
        status, headers, body = reader.response()
        assert status == 200 and body == b"" and int(headers[b"content-length"]) > 0
        reader.expect(b"POST")
        status, _headers, answer = reader.response()
        assert status == 200 and orjson.loads(answer)["id"] == 4


def test_an_http_1_0_request_is_answered_and_the_connection_closed(shared_proxy: str) -> None:
    with _connected(shared_proxy) as (path, host, sock):
        sock.sendall(_post(path, host, _request("ping", 5), version=b"1.0"))
        got = _until_closed(sock)  # the proxy closes after answering: that ends the read
        head, _, body = got.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 ") and b"connection: close" in head.lower()
        assert orjson.loads(body)["id"] == 5


def test_what_is_not_http_gets_400_with_a_reason_and_the_connection_closed(shared_proxy: str) -> None:
    with _connected(shared_proxy) as (_path, _host, sock):
        sock.sendall(b"HELLO THERE\x00\x01\r\n\r\n")
        got = _until_closed(sock)
        assert got.startswith(b"HTTP/1.1 400 ")
        assert b"Invalid HTTP request" in got and b"connection: close" in got.lower()


def test_stopping_the_proxy_with_an_event_stream_open_does_not_hang(
    db_path: Path, listener_env: dict[str, str], scripted: str
) -> None:
    with inspector_proxy(f"{scripted}/mcp", db_path, env=listener_env, warm=True) as (url, proxy):
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT) as sock:
            sock.sendall(b"GET /slow-stream HTTP/1.1\r\nhost: " + parts.netloc.encode() + b"\r\n\r\n")
            got = b""
            while b"data:" not in got:  # the stream is open and forwarding
                got += sock.recv(65536)
            started = time.monotonic()
            status = proxy.stop(signal.SIGINT, timeout=15.0)
            assert status == 0 and time.monotonic() - started < 10.0
    engine = open_engine(db_path)
    assert [s.status for s in list_sessions(engine)] == ["ended"]


def test_a_twelve_megabyte_request_body_is_forwarded_and_recorded_whole(
    db_path: Path, listener_env: dict[str, str], scripted: str
) -> None:
    # Past the listener's read high-water mark (1 MiB): reading pauses and resumes as the body goes upstream.
    text = "x" * (12 * 1024 * 1024)
    body = orjson.dumps({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"text": text}})
    with _listening(f"{scripted}/mcp", db_path, listener_env) as (url, _proxy):
        reply = httpx.post(url, content=body, headers=JSON_TYPES, timeout=60)
        assert reply.status_code == 200 and reply.json()["result"] == {"echo": "tools/call"}
    rows = _rows(db_path, lambda rows: any(m.channel == "http-request" for m in rows), timeout=60)
    assert next(m for m in rows if m.channel == "http-request").raw == body


def test_a_client_leaving_in_the_middle_of_its_request_body_leaves_the_proxy_working(
    shared_proxy: str,
) -> None:
    url = shared_proxy
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT) as sock:
        body = _request("ping", 9)
        sock.sendall(_post(parts.path, parts.netloc, body)[: -len(body) // 2])  # half the body, then gone
    reply = httpx.post(url, content=_request("ping", 10), headers=JSON_TYPES, timeout=TIMEOUT)
    assert reply.status_code == 200 and reply.json()["id"] == 10
