"""Regression (issue 13, finding 1): `mock-server --http` took any request. A cross-site page's
`<form enctype="text/plain">` (no CORS preflight) posted a JSON-RPC batch (initialize,
initialized, tools/call) and, with `--unmatched forward --forward-cmd ...`, the mock started the
real server and ran the tool. It checked neither Origin nor Host nor the content type.

Now the listener guard refuses a foreign Origin (and `null`) and Host with 403 and a non-JSON
POST with 415 before the mock sees anything: nothing is spawned. The same batch sent by a real
(non-browser) client still reaches the forward command, so the payload is not what fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import mcp
import pytest
from anyio import fail_after

from tests.listeners import (
    BATCH,
    JSON_HEADERS,
    empty_recording,
    forward_marker,
    mock_server_http,
    wait_until,
)
from tests.sessions import load

TEXT_PLAIN = {"content-type": "text/plain", "accept": "application/json, text/event-stream"}


def test_cross_site_requests_spawn_nothing(db_path: Path, tmp_path: Path) -> None:
    cmd, marker = forward_marker(tmp_path)
    ref = empty_recording(db_path)
    with mock_server_http(db_path, ref, "--unmatched", "forward", "--forward-cmd", cmd, warm=True) as url:
        port = url.split("/")[2].split(":")[1]
        body = json.dumps(BATCH)
        attempts = {
            "text/plain form from another site": {**TEXT_PLAIN, "origin": "http://evil.example"},
            "JSON from another site": {**JSON_HEADERS, "origin": "http://evil.example"},
            "JSON from a loopback page on another port": {**JSON_HEADERS, "origin": "http://127.0.0.1:1"},
            "sandboxed page (Origin: null)": {**JSON_HEADERS, "origin": "null"},
            "DNS rebinding (Host: evil.example)": {**JSON_HEADERS, "host": f"evil.example:{port}"},
        }
        for what, headers in attempts.items():
            response = httpx.post(url, content=body, headers=headers, timeout=30)
            assert response.status_code == 403, (what, response.status_code, response.text)
            detail = response.json()["detail"]
            assert ("Host" in detail) if "Host" in what else ("Origin" in detail), (what, detail)
        plain = httpx.post(url, content=body, headers=TEXT_PLAIN, timeout=30)
        assert plain.status_code == 415 and "application/json" in plain.json()["detail"]
        assert not marker.exists(), "a refused request spawned the forward command"

        # The same batch from a real client (JSON, no Origin) does reach the forward command.
        with httpx.stream("POST", url, content=body, headers=JSON_HEADERS, timeout=60) as ok:
            assert ok.status_code == 200
            answers = [line for line in ok.iter_lines() if line.startswith("data:")]
        assert len(answers) == 2, answers  # initialize and tools/call, both forwarded
        wait_until(marker.exists, "the forward command to be spawned by a legitimate request")


@pytest.mark.anyio
async def test_the_official_sdk_client_still_works(db_path: Path) -> None:
    """A legitimate client through the guard: the SDK's Streamable HTTP client against a mock."""
    load(db_path, "demo", name="demo-cassette")  # the demo recorded through `wrap` (tests/sessions.py)
    with mock_server_http(db_path, "demo-cassette", warm=True) as url:
        with fail_after(60):
            async with mcp.Client(url, mode="legacy") as client:
                result = await client.call_tool("echo", {"text": "hello inspector"})
    assert result.content[0].text == "hello inspector"  # type: ignore[union-attr]
