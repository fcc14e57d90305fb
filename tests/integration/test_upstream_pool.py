"""`UpstreamClient`'s pool rules against tests/peers/keepalive_server.py: the connection cap per
origin (requests wait, never fail) and the single retry of a request whose reused connection the
server had closed, streamed bodies included."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from inspector.errors import RemoteProtocolError
from inspector.transports.upstream import UpstreamClient
from tests.http_peers import keepalive_server


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with keepalive_server() as base:
        yield base


def _stats(base: str) -> dict:  # type: ignore[type-arg]
    return httpx.get(f"{base}/stats", timeout=20).json()


async def _read(client: UpstreamClient, method: str, url: str, **kw: object) -> tuple[int, bytes]:
    response = await client.request(method, url, **kw)  # type: ignore[arg-type]
    try:
        return response.status, await response.aread()
    finally:
        await response.aclose()


async def _chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        await asyncio.sleep(0)
        yield part


@pytest.mark.anyio
async def test_requests_past_the_cap_wait_and_all_complete(server: str) -> None:
    before = _stats(server)
    client = UpstreamClient(max_connections_per_origin=2)
    results = await asyncio.gather(*(_read(client, "GET", f"{server}/sse?n=3&ms=40") for _ in range(7)))
    after = _stats(server)
    await client.aclose()
    assert [status for status, _ in results] == [200] * 7
    assert all(body.count(b"data: event") == 3 for _, body in results)
    assert after["connections"] - before["connections"] <= 2
    assert after["max_open"] <= max(2, before["max_open"])


@pytest.mark.anyio
async def test_a_cancelled_waiter_passes_its_turn_on(server: str) -> None:
    client = UpstreamClient(max_connections_per_origin=1)
    holder = await client.request("GET", f"{server}/sse?n=2&ms=100")
    waiting = asyncio.ensure_future(_read(client, "GET", f"{server}/sse?n=1&ms=1"))
    behind = asyncio.ensure_future(_read(client, "GET", f"{server}/sse?n=1&ms=1"))
    await asyncio.sleep(0.05)
    assert not waiting.done() and not behind.done()
    waiting.cancel()
    await holder.aread()
    await holder.aclose()
    async with asyncio.timeout(10):
        assert (await behind)[0] == 200
    await client.aclose()


@pytest.mark.anyio
@pytest.mark.parametrize("length", [True, False], ids=["content-length", "chunked"])
async def test_a_streamed_body_is_sent_whole_again_on_the_retry(server: str, length: bool) -> None:
    client = UpstreamClient()
    assert (await _read(client, "POST", f"{server}/once", body=b"first"))[0] == 200
    headers = [(b"content-length", b"10")] if length else []
    status, body = await _read(
        client, "POST", f"{server}/once", headers=headers, body=_chunks(b"01234", b"56789")
    )
    await client.aclose()
    assert status == 200 and json.loads(body)["body"] == "0123456789"
    assert client.retries == 1


@pytest.mark.anyio
async def test_no_retry_on_a_fresh_connection(server: str) -> None:
    client = UpstreamClient()
    with pytest.raises(RemoteProtocolError, match="before answering"):
        await client.request("POST", f"{server}/never", body=b"x")
    await client.aclose()
    assert client.retries == 0
