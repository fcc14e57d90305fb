"""Regression (issue 14, HTTPS upstreams: cap connections): the proxy opened one upstream connection
per concurrent request, without limit; nothing capped what one busy client could open on the server.

Now `proxy --max-connections N` (default 64) caps the connections per upstream origin: requests
past the cap wait for a connection to come free and all complete; none fails for it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests.http_peers import inspector_proxy, keepalive_server

CAP = 3
STREAMS = 10


def _events(url: str) -> list[str]:
    with httpx.Client(timeout=60) as http, http.stream("GET", url) as response:
        assert response.status_code == 200
        return [line for line in response.iter_lines() if line.startswith("data:")]


def test_concurrent_event_streams_over_the_cap_all_complete_on_at_most_cap_connections(
    db_path: Path,
) -> None:
    with (
        keepalive_server() as base,
        inspector_proxy(f"{base}/mcp", db_path, "--max-connections", str(CAP), warm=True) as (url, _proxy),
    ):
        stream = url.replace("/mcp", "/sse?n=4&ms=60")
        with ThreadPoolExecutor(STREAMS) as pool:
            results = list(pool.map(_events, [stream] * STREAMS))
        stats = httpx.get(f"{base}/stats", timeout=20).json()
    assert results == [[f"data: event {i}" for i in range(4)]] * STREAMS
    assert stats["attempts"]["/sse"] == STREAMS
    assert stats["max_open"] <= CAP, stats
    assert stats["connections"] <= CAP, "waiting requests take the connections that came back"
