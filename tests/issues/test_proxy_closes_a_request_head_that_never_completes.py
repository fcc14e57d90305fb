"""Regression (issue 33, finding 12): the proxy's own listener (`transports/http_listener.py`) had no
header-read timeout. A client could open connections and send part of a request head (or trickle
its bytes, slowloris-style) and each connection was held until the keep-alive sweep closed it
85-90 s later (1,100 partial heads held for 40 s). Now a head must be complete within
`$MCP_INSPECTOR_HEADER_TIMEOUT` seconds (10 by default) of its first byte (of the connection's
start, for its first request): else the listener answers 408 and closes the connection.

A real `mcp-inspect proxy` with a short timeout and raw sockets; each test reads until EOF under a
deadline, which fails if the proxy keeps the connection open.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import anyio
import pytest

from tests.http_peers import inspector_proxy

HEAD_TIMEOUT = 1.0
DEADLINE = 20.0  # far below the 75 s keep-alive sweep that closed them before, far above the timeout


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    db = tmp_path_factory.mktemp("headtimeout") / "rec.db"
    env = {"MCP_INSPECTOR_HEADER_TIMEOUT": str(HEAD_TIMEOUT), "MCP_INSPECTOR_PROXY_LISTENER": "own"}
    # The upstream is never reached: no head is ever complete.
    with inspector_proxy("http://127.0.0.1:9/mcp", db, env=env, warm=True) as (url, _process):
        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None
        yield parts.hostname, parts.port


async def _until_eof(stream: anyio.abc.ByteStream) -> bytes:
    got = b""
    while True:
        try:
            got += await stream.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            return got


@pytest.mark.anyio
async def test_a_partial_head_is_answered_408_and_closed(proxy: tuple[str, int]) -> None:
    host, port = proxy
    with anyio.fail_after(DEADLINE):
        async with await anyio.connect_tcp(host, port) as stream:
            sent = time.monotonic()
            await stream.send(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:%d\r\ncontent-type: appl" % port)
            got = await _until_eof(stream)
    assert time.monotonic() - sent >= HEAD_TIMEOUT * 0.9  # not before the timeout
    assert got.startswith(b"HTTP/1.1 408 "), got
    assert b"connection: close" in got.lower()


@pytest.mark.anyio
async def test_a_head_trickled_byte_by_byte_is_closed_at_the_timeout(proxy: tuple[str, int]) -> None:
    """Slowloris: a byte every 0.1 s keeps the connection busy but never completes the head; the
    deadline counts from the head's first byte, so the trickle does not extend it."""
    host, port = proxy
    head = b"GET /mcp HTTP/1.1\r\nhost: 127.0.0.1:%d\r\n" % port + b"x-pad: " + b"a" * 10_000
    with anyio.fail_after(DEADLINE):
        async with await anyio.connect_tcp(host, port) as stream:

            async def trickle() -> None:
                for byte in head:
                    try:
                        await stream.send(bytes([byte]))
                    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                        return
                    await anyio.sleep(0.1)  # the attacker's pace, not a wait for the proxy

            async with anyio.create_task_group() as tg:
                tg.start_soon(trickle)
                got = await _until_eof(stream)
                tg.cancel_scope.cancel()
    assert got.startswith(b"HTTP/1.1 408 "), got


@pytest.mark.anyio
async def test_a_connection_that_sends_nothing_is_closed(proxy: tuple[str, int]) -> None:
    host, port = proxy
    with anyio.fail_after(DEADLINE):
        async with await anyio.connect_tcp(host, port) as stream:
            await _until_eof(stream)


@pytest.mark.anyio
async def test_a_complete_request_is_still_answered_on_a_kept_connection(proxy: tuple[str, int]) -> None:
    """The timeout only concerns heads: complete requests are answered, the connection stays open
    for the next (here: the guard's 403 for a foreign Host, twice on one connection)."""
    host, port = proxy
    request = b"GET /mcp HTTP/1.1\r\nhost: elsewhere.example\r\n\r\n"
    with anyio.fail_after(DEADLINE):
        async with await anyio.connect_tcp(host, port) as stream:
            for _ in range(2):
                await stream.send(request)
                got = b""
                while b"\r\n\r\n" not in got or not got.endswith(b"}"):
                    got += await stream.receive()
                assert got.startswith(b"HTTP/1.1 403 "), got
