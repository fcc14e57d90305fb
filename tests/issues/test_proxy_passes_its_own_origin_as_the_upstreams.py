"""A request whose Origin is the proxy's own origin reaches a DNS-rebinding-protected upstream as
a same-origin request (the proxy rewrites it as it rewrites Host), so `proxy` scores what the
server scores directly. Issue #38: through the proxy, the conformance suite's
`dns-rebinding-protection` scenario got 403 from `serve --http` (Origin http://127.0.0.1:PROXYPORT
is foreign to the server), directly 200."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import pytest

from tests.http_peers import proxy_in_process
from tests.integration.serve_helpers import serving

pytestmark = pytest.mark.anyio

_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


async def test_the_proxys_own_origin_is_same_origin_upstream(tmp_path: Path) -> None:
    async with serving(tmp_path / "serve.db") as url:
        with proxy_in_process(url, tmp_path / "proxy.db") as (proxied, _proxy):
            own = proxied.removesuffix("/mcp")
            with anyio.fail_after(30):
                async with httpx.AsyncClient() as client:
                    headers = {"Origin": own, "Accept": "application/json, text/event-stream"}
                    answer = await client.post(proxied, json=_INIT, headers=headers)
                    foreign = await client.post(
                        proxied, json=_INIT, headers={**headers, "Origin": "http://evil.example.com"}
                    )
    assert answer.status_code == 200, answer.text
    assert foreign.status_code == 403  # any other origin is still refused (by the proxy's guard)
