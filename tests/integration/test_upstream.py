"""`inspector.transports.upstream.UpstreamClient` against a real server that writes exact bytes.

The server is this module run as a script (`python -m tests.integration.test_upstream serve`):
a plain asyncio TCP server (optionally TLS) that answers each path with
scripted bytes, so framing, interim responses, early closes and broken HTTP
can be produced on purpose. Every response carries `x-conn: N`, the number
of the connection it came on, to check connection reuse.

Paths:
  /echo                 the exact bytes of the request (head and body as they arrived)
  /sink                 {"length", "sha256"} of the request body
  /length?bytes=N       N bytes with content-length
  /chunks?n=K&delay_ms=D  K chunks "chunk i\\n", D ms apart (chunked encoding)
  /sse?n=K&delay_ms=D&quiet_ms=Q  an event stream: the head, Q ms of nothing, K events D ms apart
  /until-close          a body without length, in two parts 50 ms apart, ended by closing
  /interim              100 Continue and 103 Early Hints, then the real 200
  /trailers             a chunked body followed by a trailer
  /close                a response with `connection: close`, then the close
  /close-later?ms=M     a keep-alive response, then the connection closed M ms later
  /no-content           204
  /head                 (HEAD) content-length 1234 and no body
  /garbage              bytes that are not HTTP
  /hangup               the connection closed without an answer
  /cut                  content-length 100, 10 bytes, close
  /cut-chunked          one chunk, then close
  /early-413            413 right after the request head (its body 200 ms later), the request body
                        read and thrown away afterwards
  /slow                 a chunk every 20 ms until the client leaves
  /stats                {"disconnects": n}: /slow clients seen to leave
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import os
import shutil
import ssl
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest

from inspector.errors import ConnectError, ConnectTimeout, RemoteProtocolError, RequestBodyError
from inspector.transports.upstream import UpstreamClient

ROOT = Path(__file__).resolve().parents[2]

# --- the scripted server ------------------------------------------------------------------------

_conns = itertools.count(1)
_stats = {"disconnects": 0}


def _response(status: str, headers: list[tuple[str, str]], body: bytes, conn: int) -> bytes:
    lines = [f"HTTP/1.1 {status}", *(f"{k}: {v}" for k, v in headers), f"x-conn: {conn}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def _json(data: object, conn: int) -> bytes:
    body = json.dumps(data).encode()
    return _response(
        "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))], body, conn
    )


async def _read_body(reader: asyncio.StreamReader, headers: dict[bytes, bytes]) -> tuple[bytes, bytes]:
    """(decoded body, bytes as they came on the wire)."""
    if b"content-length" in headers:
        body = await reader.readexactly(int(headers[b"content-length"]))
        return body, body
    if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        body, wire = bytearray(), bytearray()
        while True:
            size_line = await reader.readuntil(b"\r\n")
            wire += size_line
            size = int(size_line.split(b";")[0], 16)
            data = await reader.readexactly(size + 2)
            wire += data
            if size == 0:
                return bytes(body), bytes(wire)
            body += data[:-2]
    return b"", b""


async def _serve_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    conn = next(_conns)
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            lines = head[:-4].split(b"\r\n")
            method, target, _ = lines[0].split(b" ", 2)
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                headers[name.strip().lower()] = value.strip()
            path, _, query = target.decode().partition("?")
            params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
            if path == "/early-413":
                writer.write(_response("413 Payload Too Large", [("Content-Length", "5")], b"", conn))
                await writer.drain()
                await asyncio.sleep(0.2)
                writer.write(b"large")  # the body after a while: the client has stopped sending by then
                await writer.drain()
                while await reader.read(1 << 16):  # the rest of the request body, thrown away
                    pass
                return
            body, wire = await _read_body(reader, headers)
            if not await _answer(method, path, params, head, body, wire, conn, writer):
                return
    finally:
        writer.close()


async def _answer(
    method: bytes,
    path: str,
    params: dict[str, str],
    head: bytes,
    body: bytes,
    wire: bytes,
    conn: int,
    writer: asyncio.StreamWriter,
) -> bool:
    """Write the answer; False when the connection is to be closed."""
    w = writer.write
    if path == "/echo":
        raw = head + wire
        w(_response("200 OK", [("Content-Length", str(len(raw)))], raw, conn))
    elif path == "/sink":
        w(_json({"length": len(body), "sha256": hashlib.sha256(body).hexdigest()}, conn))
    elif path == "/length":
        n = int(params.get("bytes", "100"))
        w(_response("200 OK", [("Content-Length", str(n))], _pattern(n), conn))
    elif path == "/chunks":
        w(_response("200 OK", [("Transfer-Encoding", "chunked")], b"", conn))
        for i in range(int(params.get("n", "3"))):
            if i:
                await asyncio.sleep(float(params.get("delay_ms", "0")) / 1000)
            data = f"chunk {i}\n".encode()
            w(b"%x\r\n%b\r\n" % (len(data), data))
            await writer.drain()
        w(b"0\r\n\r\n")
    elif path == "/sse":
        w(
            _response(
                "200 OK", [("Content-Type", "text/event-stream"), ("Transfer-Encoding", "chunked")], b"", conn
            )
        )
        await writer.drain()
        await asyncio.sleep(float(params.get("quiet_ms", "0")) / 1000)
        for i in range(int(params.get("n", "3"))):
            if i:
                await asyncio.sleep(float(params.get("delay_ms", "0")) / 1000)
            data = f'id: {i}\ndata: {{"n": {i}}}\n\n'.encode()
            w(b"%x\r\n%b\r\n" % (len(data), data))
            await writer.drain()
        w(b"0\r\n\r\n")
    elif path == "/until-close":
        w(_response("200 OK", [("Content-Type", "text/plain")], b"first part, ", conn))
        await writer.drain()
        await asyncio.sleep(0.05)
        w(b"second part")
        await writer.drain()
        return False
    elif path == "/interim":
        w(b"HTTP/1.1 100 Continue\r\n\r\n")
        w(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n")
        w(_response("200 OK", [("Content-Length", "5")], b"final", conn))
    elif path == "/trailers":
        w(_response("200 OK", [("Transfer-Encoding", "chunked"), ("Trailer", "X-Checksum")], b"", conn))
        w(b"5\r\nhello\r\n0\r\nX-Checksum: abc\r\n\r\n")
    elif path == "/close":
        w(_response("200 OK", [("Content-Length", "3"), ("Connection", "close")], b"bye", conn))
        await writer.drain()
        return False
    elif path == "/close-later":
        w(_response("200 OK", [("Content-Length", "2")], b"ok", conn))
        await writer.drain()
        await asyncio.sleep(int(params.get("ms", "100")) / 1000)
        return False
    elif path == "/no-content":
        w(_response("204 No Content", [], b"", conn))
    elif path == "/head":
        w(_response("200 OK", [("Content-Length", "1234")], b"", conn))
    elif path == "/garbage":
        w(b"SPDY/9 what is this\r\n\r\n")
        await writer.drain()
        return False
    elif path == "/hangup":
        return False
    elif path == "/cut":
        w(_response("200 OK", [("Content-Length", "100")], b"0123456789", conn))
        await writer.drain()
        return False
    elif path == "/cut-chunked":
        w(_response("200 OK", [("Transfer-Encoding", "chunked")], b"5\r\nhello\r\n", conn))
        await writer.drain()
        return False
    elif path == "/slow":
        w(_response("200 OK", [("Transfer-Encoding", "chunked")], b"", conn))
        try:
            while True:
                w(b"6\r\ntick!\n\r\n")
                await writer.drain()
                await asyncio.sleep(0.02)
        except ConnectionError:
            _stats["disconnects"] += 1
            return False
    elif path == "/stats":
        w(_json(_stats, conn))
    else:
        w(_response("404 Not Found", [("Content-Length", "0")], b"", conn))
    await writer.drain()
    return True


def _pattern(n: int) -> bytes:
    block = bytes(range(256)) * 64
    return (block * (n // len(block) + 1))[:n]


async def _serve(tls: tuple[str, str] | None) -> None:
    context = None
    if tls:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(*tls)
    server = await asyncio.start_server(_serve_connection, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    print(f"upstream test server listening on port {port}", file=sys.stderr, flush=True)
    async with server:
        await server.serve_forever()


# --- helpers ------------------------------------------------------------------------------------


@contextmanager
def scripted_server(tls: tuple[str, str] | None = None) -> Iterator[int]:
    """This module's server in a subprocess; yields its port."""
    from tests.http_peers import LineProcess

    argv = [sys.executable, "-m", "tests.integration.test_upstream", "serve", *(tls or ())]
    server = LineProcess(argv, env={"PYTHONPATH": str(ROOT)})
    try:
        yield int(server.wait_for(r"listening on port (\d+)").group(1))
    finally:
        server.stop()


def self_signed_cert(directory: Path) -> tuple[str, str]:
    """A certificate for localhost / 127.0.0.1 made with the openssl command (cert path, key path)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make a test certificate")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return str(cert), str(key)


async def _body(chunks: list[bytes], delay: float = 0.0) -> AsyncIterator[bytes]:
    for chunk in chunks:
        if delay:
            await asyncio.sleep(delay)
        yield chunk


async def _get(
    client: UpstreamClient, url: str, method: str = "GET"
) -> tuple[int, dict[bytes, bytes], bytes]:
    response = await client.request(method, url)
    try:
        body = await response.aread()
    finally:
        await response.aclose()
    return response.status, {k.lower(): v for k, v in response.headers}, body


@pytest.fixture(params=[False, True], ids=["asyncio", "uvloop"])
def anyio_backend(request: pytest.FixtureRequest) -> tuple[str, dict[str, bool]]:
    """Both loops: the proxy runs on uvloop, other users of the client may not."""
    return "asyncio", {"use_uvloop": request.param}


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with scripted_server() as p:
        yield p


@pytest.fixture
def base(port: int) -> str:
    return f"http://127.0.0.1:{port}"


# --- the request as sent ------------------------------------------------------------------------


@pytest.mark.anyio
async def test_request_goes_out_as_given_head_and_body_together(base: str, port: int) -> None:
    client = UpstreamClient()
    headers = [(b"Content-Type", b"application/json"), (b"X-Order", b"1"), (b"x-order", b"2")]
    response = await client.request("POST", f"{base}/echo?q=%20a+b", headers, b'{"a":1}')
    echoed = await response.aread()
    await response.aclose()
    assert echoed == (
        b"POST /echo?q=%20a+b HTTP/1.1\r\nhost: 127.0.0.1:PORT\r\nContent-Type: application/json\r\n"
        b'X-Order: 1\r\nx-order: 2\r\ncontent-length: 7\r\n\r\n{"a":1}'.replace(b"PORT", str(port).encode())
    )
    assert response.status == 200 and response.http_version == "1.1"
    assert response.headers[0] == (b"Content-Length", str(len(echoed)).encode())
    assert [name for name, _ in response.headers] == [b"Content-Length", b"x-conn"], "names as sent"
    await client.aclose()


@pytest.mark.anyio
async def test_callers_host_and_content_length_kept_transfer_encoding_dropped(base: str) -> None:
    client = UpstreamClient()
    headers = [(b"Host", b"example.test"), (b"Content-Length", b"2"), (b"Transfer-Encoding", b"gzip")]
    _, _, echoed = await _request(client, "PUT", f"{base}/echo", headers, b"hi")
    assert echoed == b"PUT /echo HTTP/1.1\r\nHost: example.test\r\nContent-Length: 2\r\n\r\nhi"
    _, _, bare = await _request(client, "GET", f"{base}/echo", [], b"")
    assert bare.split(b"\r\n")[1:] == [b"host: " + base.split("//")[1].encode(), b"", b""]
    await client.aclose()


async def _request(
    client: UpstreamClient, method: str, url: str, headers: list, body: object
) -> tuple[int, dict[bytes, bytes], bytes]:  # type: ignore[type-arg]
    response = await client.request(method, url, headers, body)  # type: ignore[arg-type]
    try:
        data = await response.aread()
    finally:
        await response.aclose()
    return response.status, {k.lower(): v for k, v in response.headers}, data


@pytest.mark.anyio
async def test_a_line_break_in_a_header_is_refused(base: str) -> None:
    client = UpstreamClient()
    with pytest.raises(ValueError, match="line break"):
        await client.request("GET", f"{base}/echo", [(b"x-a", b"1\r\nx-injected: 2")])
    with pytest.raises(ValueError, match="content-length"):
        await client.request("POST", f"{base}/echo", [(b"content-length", b"5")], b"abc")
    await client.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        await client.request("GET", f"{base}/echo")


# --- connections --------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_connections_are_reused_and_one_per_concurrent_request(base: str) -> None:
    client = UpstreamClient()
    first = (await _get(client, f"{base}/length?bytes=10"))[1][b"x-conn"]
    assert (await _get(client, f"{base}/length?bytes=10"))[1][b"x-conn"] == first
    results = await asyncio.gather(*(_get(client, f"{base}/chunks?n=2&delay_ms=30") for _ in range(3)))
    conns = {h[b"x-conn"] for _, h, _ in results}
    assert len(conns) == 3 and first in conns
    after = await asyncio.gather(*(_get(client, f"{base}/length?bytes=1") for _ in range(3)))
    assert {h[b"x-conn"] for _, h, _ in after} == conns, "the three pooled connections are reused"
    await client.aclose()


@pytest.mark.anyio
async def test_connection_close_until_close_and_errors_are_not_reused(base: str) -> None:
    client = UpstreamClient()
    seen = []
    for path in ("/close", "/until-close", "/length?bytes=1"):
        status, headers, body = await _get(client, base + path)
        seen.append(headers[b"x-conn"])
    assert body == b"\x00" and len(set(seen)) == 3
    status, headers, body = await _get(client, f"{base}/until-close")
    assert (status, body) == (200, b"first part, second part")


@pytest.mark.anyio
async def test_idle_connections_closed_by_the_server_or_expired_are_not_reused(base: str) -> None:
    client = UpstreamClient(keepalive_expiry=0.3)
    first = (await _get(client, f"{base}/close-later?ms=50"))[1][b"x-conn"]
    await asyncio.sleep(0.2)  # the server has closed it meanwhile
    second = (await _get(client, f"{base}/length?bytes=3"))[1][b"x-conn"]
    assert second != first
    await asyncio.sleep(0.5)  # past keepalive_expiry
    third = (await _get(client, f"{base}/length?bytes=3"))[1][b"x-conn"]
    assert third != second
    assert (await _get(client, f"{base}/length?bytes=3"))[1][b"x-conn"] == third
    await client.aclose()


@pytest.mark.anyio
async def test_connect_refused_and_timeout() -> None:
    import socket

    from tests.http_peers import free_port

    client = UpstreamClient(connect_timeout=0.5)
    dead = free_port()
    with pytest.raises(ConnectError, match=f"cannot connect to 127.0.0.1:{dead}"):
        await client.request("GET", f"http://127.0.0.1:{dead}/")
    # A listener that never accepts, its queue full: the handshake never completes.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        fillers = []
        for _ in range(4):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            fillers.append(s)
        try:
            started = time.monotonic()
            with pytest.raises(ConnectTimeout, match="within 0.5 s"):
                await client.request("GET", f"http://127.0.0.1:{port}/")
            assert time.monotonic() - started < 5
        finally:
            for s in fillers:
                s.close()


# --- responses ----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_chunks_arrive_as_the_server_sends_them(base: str) -> None:
    client = UpstreamClient()
    response = await client.request("GET", f"{base}/chunks?n=3&delay_ms=150")
    arrivals = []
    async for chunk in response.aiter_raw():
        arrivals.append((chunk, time.monotonic()))
    await response.aclose()
    assert b"".join(c for c, _ in arrivals) == b"chunk 0\nchunk 1\nchunk 2\n"
    assert arrivals[-1][1] - arrivals[0][1] > 0.2, "the first chunk came before the response ended"
    await client.aclose()


@pytest.mark.anyio
async def test_interim_responses_skipped_trailers_dropped_bodiless_answers(base: str) -> None:
    client = UpstreamClient()
    status, headers, body = await _get(client, f"{base}/interim")
    assert (status, body) == (200, b"final") and b"link" not in headers
    status, headers, body = await _get(client, f"{base}/trailers")
    assert (status, body) == (200, b"hello") and b"x-checksum" not in headers
    status, headers, body = await _get(client, f"{base}/no-content")
    assert (status, body) == (204, b"")
    status, headers, body = await _get(client, f"{base}/head", method="HEAD")
    assert (status, body, headers[b"content-length"]) == (200, b"", b"1234")
    status, _, body = await _get(client, f"{base}/length?bytes=4")
    assert (status, body) == (200, bytes(range(4)))
    await client.aclose()


@pytest.mark.anyio
async def test_broken_responses_raise_remote_protocol_error(base: str) -> None:
    client = UpstreamClient()
    with pytest.raises(RemoteProtocolError, match="invalid HTTP"):
        await client.request("GET", f"{base}/garbage")
    with pytest.raises(RemoteProtocolError, match="before answering"):
        await client.request("GET", f"{base}/hangup")
    for path in ("/cut", "/cut-chunked"):
        response = await client.request("GET", base + path)
        assert response.status == 200
        with pytest.raises(RemoteProtocolError, match="in the middle of the response"):
            await response.aread()
        await response.aclose()
    assert (await _get(client, f"{base}/length?bytes=2"))[0] == 200, "the client works on"
    await client.aclose()


@pytest.mark.anyio
async def test_ten_megabytes_read_slowly_arrive_whole_with_bounded_buffering(base: str) -> None:
    client = UpstreamClient()
    size = 10 * 1024 * 1024
    response = await client.request("GET", f"{base}/length?bytes={size}")
    digest, total, most = hashlib.sha256(), 0, 0
    async for chunk in response.aiter_raw():
        digest.update(chunk)
        total += len(chunk)
        most = max(most, response._buffered)
        if total < size // 4:
            await asyncio.sleep(0.002)  # a slow reader for the first part
    await response.aclose()
    assert total == size and digest.digest() == hashlib.sha256(_pattern(size)).digest()
    assert most < 3 * 1024 * 1024, f"{most} bytes buffered: reading did not pause"
    assert (await _get(client, f"{base}/length?bytes=2"))[0] == 200
    await client.aclose()


@pytest.mark.anyio
async def test_closing_a_response_early_closes_its_connection(base: str) -> None:
    client = UpstreamClient()
    before = json.loads((await _get(client, f"{base}/stats"))[2])["disconnects"]
    response = await client.request("GET", f"{base}/slow")
    async for _ in response.aiter_raw():
        break
    await response.aclose()
    deadline = time.monotonic() + 60
    while json.loads((await _get(client, f"{base}/stats"))[2])["disconnects"] == before:
        assert time.monotonic() < deadline, "the server never saw the client leave"
        await asyncio.sleep(0.05)
    await client.aclose()


# --- streamed request bodies --------------------------------------------------------------------


@pytest.mark.anyio
async def test_streamed_bodies_chunked_or_with_their_content_length(base: str) -> None:
    client = UpstreamClient()
    parts = [b"abc", b"", b"defg", b"h" * 100_000]
    whole = b"".join(parts)
    _, _, echoed = await _request(client, "POST", f"{base}/echo", [], _body(parts))
    assert echoed.endswith(b"\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n186a0\r\n" + b"h" * 100_000 + b"\r\n0\r\n\r\n")
    assert b"\r\ntransfer-encoding: chunked\r\n" in echoed and b"content-length" not in echoed.lower()
    length = [(b"content-length", str(len(whole)).encode())]
    _, _, echoed = await _request(client, "POST", f"{base}/echo", length, _body(parts, 0.01))
    assert echoed.endswith(b"\r\n\r\n" + whole) and b"chunked" not in echoed
    _, _, echoed = await _request(client, "POST", f"{base}/echo", [], _body([]))
    assert echoed.endswith(b"transfer-encoding: chunked\r\n\r\n0\r\n\r\n")
    await client.aclose()


@pytest.mark.anyio
async def test_ten_megabyte_streamed_request_body(base: str) -> None:
    client = UpstreamClient()
    size = 10 * 1024 * 1024
    data = _pattern(size)
    parts = [data[i : i + 65536] for i in range(0, size, 65536)]
    for headers in ([], [(b"content-length", str(size).encode())]):
        _, _, answer = await _request(client, "POST", f"{base}/sink", headers, _body(parts))
        got = json.loads(answer)
        assert got["length"] == size and got["sha256"] == hashlib.sha256(data).hexdigest()
    await client.aclose()


@pytest.mark.anyio
async def test_a_body_shorter_than_its_content_length_fails_and_the_connection_is_dropped(
    base: str,
) -> None:
    client = UpstreamClient()
    conn = (await _get(client, f"{base}/length?bytes=1"))[1][b"x-conn"]
    with pytest.raises(RequestBodyError, match="after 3 of its 10 bytes"):
        await client.request("POST", f"{base}/echo", [(b"content-length", b"10")], _body([b"abc"]))
    with pytest.raises(RequestBodyError, match="longer than its content-length"):
        await client.request("POST", f"{base}/echo", [(b"content-length", b"2")], _body([b"abc"]))
    status, headers, _ = await _get(client, f"{base}/length?bytes=1")
    assert status == 200 and headers[b"x-conn"] != conn
    await client.aclose()


@pytest.mark.anyio
async def test_an_early_answer_stops_the_body(base: str) -> None:
    client = UpstreamClient()
    sent = []

    async def endless() -> AsyncIterator[bytes]:
        for i in range(200):
            sent.append(i)
            yield b"x" * 65536
            await asyncio.sleep(0.01)

    response = await client.request("POST", f"{base}/early-413", [], endless())
    assert response.status == 413 and len(sent) < 200
    assert await response.aread() == b"large"
    await response.aclose()
    # The server still expects the rest of that body: the connection must not carry another request.
    with anyio.fail_after(10):
        status, headers, _ = await _get(client, f"{base}/length?bytes=1")
    assert status == 200 and headers[b"x-conn"] != dict(response.headers)[b"x-conn"]
    await client.aclose()


# --- TLS ----------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_https_with_a_trusted_certificate_and_refused_otherwise(tmp_path: Path) -> None:
    cert, key = self_signed_cert(tmp_path)
    with scripted_server((cert, key)) as port:
        trusting = UpstreamClient(ssl_context=ssl.create_default_context(cafile=cert))
        status, _, echoed = await _get(trusting, f"https://localhost:{port}/echo")
        assert status == 200 and echoed == b"GET /echo HTTP/1.1\r\nhost: localhost:%d\r\n\r\n" % port
        await trusting.aclose()
        default = UpstreamClient()
        with pytest.raises(ConnectError, match="TLS handshake with localhost:.* failed.*CERTIFICATE_VERIFY"):
            await default.request("GET", f"https://localhost:{port}/echo")
        await default.aclose()


if __name__ == "__main__" and sys.argv[1:2] == ["serve"]:
    os.environ.pop("PYTHONPATH", None)
    tls_files = tuple(sys.argv[2:4]) if len(sys.argv) >= 4 else None
    asyncio.run(_serve(tls_files))  # type: ignore[arg-type]
