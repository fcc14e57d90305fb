"""Regression (issue 13, finding 3): the recording proxy answered and forwarded a request with
`Host: evil.example` (a DNS-rebinding page reached the upstream through it), let any loopback
Origin in whatever its port (`http://localhost:5173` is another origin than the proxy's), and
forwarded `text/plain` POSTs to the MCP endpoint (a cross-site form needs no preflight).

Now the shared listener guard refuses those (403 naming Host or Origin, 415 for the content
type) and the upstream sees nothing; an OAuth form post to `/token` is still forwarded, and
`--allow-origin` lets a browser-based client's origin in.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx
import pytest

from inspector.demo.driver import drive_demo
from tests.http_peers import demo_http_server
from tests.listeners import INITIALIZE, JSON_HEADERS, RecordingUpstream, inspector_proxy


def test_rebinding_cross_site_and_non_json_requests_never_reach_the_upstream(db_path: Path) -> None:
    body = json.dumps(INITIALIZE)
    with (
        RecordingUpstream() as upstream,
        inspector_proxy(f"{upstream.url}/mcp", db_path, warm=True) as (url, _p),
    ):
        port = url.split("/")[2].split(":")[1]
        for host in ("evil.example", f"evil.example:{port}", f"localhost:{int(port) + 1}"):
            for method in ("GET", "POST"):
                response = httpx.request(method, url, content=body, headers={**JSON_HEADERS, "host": host})
                assert response.status_code == 403, (host, method, response.text)
                assert "Host" in response.json()["detail"]
        for origin in (
            "http://evil.example",
            "http://localhost:5173",
            f"http://127.0.0.1:{int(port) + 1}",
            "null",
        ):
            response = httpx.post(url, content=body, headers={**JSON_HEADERS, "origin": origin})
            assert response.status_code == 403, (origin, response.text)
            assert "Origin" in response.json()["detail"]
        plain = httpx.post(url, content=body, headers={**JSON_HEADERS, "content-type": "text/plain"})
        assert plain.status_code == 415 and "application/json" in plain.json()["detail"]
        assert upstream.requests == [], "a refused request was forwarded"

        # What a real client sends still goes through: JSON to /mcp, an OAuth form post to /token.
        assert httpx.post(url, content=body, headers=JSON_HEADERS).status_code == 200
        token_url = url.replace("/mcp", "/token")
        form = httpx.post(token_url, data={"grant_type": "authorization_code", "code": "x"})
        assert form.status_code == 200
        assert [(r["method"], r["path"]) for r in upstream.requests] == [("POST", "/mcp"), ("POST", "/token")]
        assert upstream.requests[0]["headers"]["host"] == upstream.url.split("/")[2]


def test_allow_origin_lets_a_browser_based_client_in(db_path: Path) -> None:
    body = json.dumps(INITIALIZE)
    allowed = ("--allow-origin", "http://localhost:5173")
    with (
        RecordingUpstream() as upstream,
        inspector_proxy(f"{upstream.url}/mcp", db_path, *allowed, warm=True) as (url, _p),
    ):
        ok = httpx.post(url, content=body, headers={**JSON_HEADERS, "origin": "http://localhost:5173"})
        assert ok.status_code == 200
        other = httpx.post(url, content=body, headers={**JSON_HEADERS, "origin": "http://localhost:5174"})
        assert other.status_code == 403
    assert len(upstream.requests) == 1


@pytest.mark.anyio
async def test_the_official_sdk_client_still_works_through_the_proxy(db_path: Path) -> None:
    with (
        demo_http_server("streamable-http", warm=True) as target,
        inspector_proxy(target, db_path, warm=True) as (url, _p),
    ):
        with anyio.fail_after(90):
            report = await drive_demo(url, mode="legacy")
    assert report.tool_results["echo"].text == "hello inspector"
