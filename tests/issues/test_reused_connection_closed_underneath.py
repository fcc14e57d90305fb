"""Regression (issue 14, HTTPS upstreams: retry once): when the upstream server closed a kept-alive
connection just as the proxy sent the next request on it (servers close idle connections, and a
request can cross that close), the client got a 502, though the server never saw the request.

Now a request that went out on a reused (pooled) connection and got no byte of an answer before
the close is sent once more on a new connection; never on a fresh connection, never twice, never
after a response byte arrived.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.http_peers import inspector_proxy, keepalive_server

JSON = {"content-type": "application/json"}


def test_second_request_on_a_connection_the_server_closed_is_sent_again(db_path: Path) -> None:
    with keepalive_server() as base, inspector_proxy(f"{base}/once", db_path, warm=True) as (url, _proxy):
        with httpx.Client(timeout=20) as http:
            first = http.post(url, content=b'{"n": 1}', headers=JSON)
            second = http.post(url, content=b'{"n": 2}', headers=JSON)
        stats = httpx.get(f"{base}/stats", timeout=20).json()
    assert first.status_code == 200, first.text
    assert second.status_code == 200, second.text
    assert second.json() == {"path": "/once", "body": '{"n": 2}'}
    # The server saw the second request twice: on the closed connection, then on a new one.
    assert stats["attempts"]["/once"] == 3 and stats["bodies"]["/once"][1:] == ['{"n": 2}'] * 2
    assert stats["connections"] == 2


def test_never_a_second_retry_nor_one_on_a_fresh_connection_or_after_a_response_byte(
    db_path: Path,
) -> None:
    with keepalive_server() as base, inspector_proxy(f"{base}/mcp", db_path, warm=True) as (url, _proxy):
        root = url.removesuffix("/mcp")
        with httpx.Client(timeout=20) as http:
            fresh = http.post(f"{root}/never", content=b"{}", headers=JSON)  # a fresh connection
            assert http.post(f"{root}/once", content=b"{}", headers=JSON).status_code == 200
            twice = http.post(f"{root}/never", content=b"{}", headers=JSON)  # reused, retried once
            assert http.post(f"{root}/partial", content=b"{}", headers=JSON).status_code == 200
            partial = http.post(f"{root}/partial", content=b"{}", headers=JSON)  # a byte came: no retry
        stats = httpx.get(f"{base}/stats", timeout=20).json()
    assert (fresh.status_code, twice.status_code, partial.status_code) == (502, 502, 502)
    assert "before answering" in twice.text and "in the middle of the response" not in twice.text
    assert stats["attempts"]["/never"] == 1 + 2
    assert stats["attempts"]["/partial"] == 2
