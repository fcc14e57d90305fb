"""HTTP proxy sessions end when their client is gone.

What was wrong: a legacy HTTP+SSE session stayed `recording` after the client
left (until the proxy stopped), and the UI then refused to delete it (409). A
stateless Streamable HTTP session (one per client connection) never ended
either. Now a legacy session ends with its event stream, a stateless one once
none of its client's connections has been open for `--peer-gap` seconds, any
session after `--idle-end` seconds with no traffic, each with a reason, and the
UI can delete them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import mcp
import pytest
from mcp.client.sse import sse_client

from inspector.api.server import UiServer
from inspector.store import list_sessions, open_engine
from tests.http_peers import demo_http_server, proxy_in_process


def _ended_sessions(db: Path, deadline: float = 20.0) -> list:  # type: ignore[type-arg]
    """The recorded sessions once every one with messages has ended (polled, bounded)."""
    end = time.monotonic() + deadline
    while True:
        engine = open_engine(db)
        sessions = [s for s in list_sessions(engine) if s.message_count]
        engine.dispose()
        if sessions and all(s.status == "ended" for s in sessions):
            return sessions
        if time.monotonic() > end:
            raise AssertionError([(s.id, s.status, s.end_reason) for s in sessions])
        time.sleep(0.05)


@pytest.fixture
def ui(db_path: Path) -> Iterator[httpx.Client]:
    server = UiServer(open_engine(db_path), port=0).start()
    with httpx.Client(base_url=server.base_url, headers={"authorization": f"Bearer {server.token}"}) as http:
        yield http
    server.stop()


async def _use(target: object) -> None:
    with anyio.fail_after(60):
        async with mcp.Client(target, mode="legacy") as client:  # type: ignore[arg-type]
            assert (await client.list_tools()).tools


def _assert_deletable(ui: httpx.Client, session_ids: list[int]) -> None:
    for sid in session_ids:
        answer = ui.delete(f"/api/sessions/{sid}")
        assert answer.status_code in (200, 204), answer.text
        assert ui.get(f"/api/sessions/{sid}").status_code == 404


@pytest.mark.anyio
async def test_legacy_sse_session_ends_with_its_stream(db_path: Path, ui: httpx.Client) -> None:
    with demo_http_server("sse", warm=True) as target, proxy_in_process(target, db_path) as (url, _proxy):
        await _use(sse_client(url))
        sessions = _ended_sessions(db_path)  # while the proxy still runs
    assert len(sessions) == 1
    assert sessions[0].end_reason == "the client closed the event stream"
    _assert_deletable(ui, [s.id for s in sessions])


@pytest.mark.anyio
async def test_stateless_session_ends_with_its_connection(db_path: Path, ui: httpx.Client) -> None:
    with (
        demo_http_server("streamable-http", "--stateless", warm=True) as target,
        proxy_in_process(target, db_path, "--peer-gap", "0.5") as (url, _proxy),
    ):
        await _use(url)
        sessions = _ended_sessions(db_path)
    # One client run over its connections, over once none has been open for --peer-gap.
    assert [s.end_reason for s in sessions] == ["no client connection open for 0.5 s"]
    _assert_deletable(ui, [s.id for s in sessions])


@pytest.mark.anyio
async def test_idle_session_ends_after_idle_end(db_path: Path, ui: httpx.Client) -> None:
    with (
        demo_http_server("streamable-http", "--stateless", warm=True) as target,
        proxy_in_process(target, db_path, "--idle-end", "0.5") as (url, _proxy),
        httpx.Client() as http,  # kept open: the connection stays, the client just goes quiet
    ):
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}
        assert http.post(url, json=ping, headers=headers).status_code == 200
        sessions = _ended_sessions(db_path)
    assert [s.end_reason for s in sessions] == ["no traffic for 0.5 s"]
    _assert_deletable(ui, [s.id for s in sessions])
