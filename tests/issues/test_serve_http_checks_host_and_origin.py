"""Regression (issue 13, finding 2): `mcp-inspect serve --http` (the scenario mock server)
answered `Origin: http://evil.example` and `Host: evil.example` with 200: a cross-site page or a
DNS-rebinding page could open sessions and drive it, its `/control` route included.

Now the listener guard refuses a foreign Origin (and `null`) and Host with 403, on `/mcp` and
on `/control`, and a non-JSON POST to `/mcp` with 415; the official SDK client still works.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import mcp
import pytest
from anyio import fail_after

from inspector.store import list_sessions, open_engine
from tests.listeners import INITIALIZE, JSON_HEADERS, serve_http


def _mock_sessions(db: Path) -> int:
    return sum(1 for s in list_sessions(open_engine(db)) if s.kind == "mock-server")


def test_foreign_host_origin_and_non_json_are_refused(db_path: Path) -> None:
    with serve_http(db_path, warm=True) as url:
        port = url.split("/")[2].split(":")[1]
        control = url.replace("/mcp", "/control/sessions")
        body = json.dumps(INITIALIZE)
        for origin in ("http://evil.example", "null", "http://localhost:1"):
            response = httpx.post(url, content=body, headers={**JSON_HEADERS, "origin": origin})
            assert response.status_code == 403, (origin, response.text)
            assert "Origin" in response.json()["detail"]
        for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{int(port) + 1}"):
            response = httpx.post(url, content=body, headers={**JSON_HEADERS, "host": host})
            assert response.status_code == 403, (host, response.text)
            assert "Host" in response.json()["detail"]
            assert httpx.get(control, headers={"host": host}).status_code == 403
        plain = httpx.post(url, content=body, headers={**JSON_HEADERS, "content-type": "text/plain"})
        assert plain.status_code == 415, plain.text
        assert _mock_sessions(db_path) == 0, "a refused request opened a session"
        ok = httpx.post(url, content=body, headers={**JSON_HEADERS, "origin": "http://" + url.split("/")[2]})
        assert ok.status_code == 200 and "mcp-session-id" in ok.headers


@pytest.mark.anyio
async def test_the_official_sdk_client_still_works(db_path: Path) -> None:
    with serve_http(db_path, warm=True) as url:
        with fail_after(60):
            async with mcp.Client(url, mode="legacy") as client:
                tools = await client.list_tools()
    assert tools.tools
