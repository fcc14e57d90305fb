"""The proxy forwards while another process holds the database's write lock.

What was wrong: the proxy created each session row on its event loop
(`BEGIN IMMEDIATE`, 30 s busy timeout), so while any other connection held the
write lock every exchange of a new session stalled. Now session rows are
created on the recorder thread and the transport records through a handle it
gets at once: the exchanges complete while the lock is held, and everything is
recorded once it is released.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import anyio
import mcp
import pytest

from inspector.store import list_sessions, open_engine
from tests.http_peers import demo_http_server, inspector_proxy
from tests.shim_process import messages


@pytest.mark.anyio
async def test_exchanges_complete_while_the_database_is_locked(db_path: Path) -> None:
    with (
        demo_http_server("streamable-http", warm=True) as target,
        inspector_proxy(target, db_path, warm=True) as (url, _proxy),
    ):
        lock = sqlite3.connect(db_path, timeout=0)
        lock.execute("BEGIN IMMEDIATE")  # the write lock, held by another connection
        try:
            with anyio.fail_after(10):  # far below the 30 s busy timeout the proxy used to wait
                async with mcp.Client(url, mode="legacy") as client:
                    tools = (await client.list_tools()).tools
                    result = await client.call_tool("echo", {"text": "while locked"})
            assert tools and "while locked" in str(result.content)
            # Nothing could be written meanwhile: the lock really was held throughout.
            assert lock.execute("SELECT COUNT(*) FROM message").fetchone()[0] == 0
        finally:
            lock.rollback()
            lock.close()
        deadline = time.monotonic() + 30
        while True:
            engine = open_engine(db_path)
            sessions = [s for s in list_sessions(engine) if s.message_count]
            rows = [m for s in sessions for m in messages(engine, s.id)]
            engine.dispose()
            methods = {m.method for m in rows if m.direction == "c2s" and m.kind == "request"}
            if {"initialize", "tools/list", "tools/call"} <= methods and any(
                m.kind == "response" and m.method == "tools/call" for m in rows
            ):
                break
            assert time.monotonic() < deadline, (methods, [(s.id, s.status) for s in sessions])
            time.sleep(0.05)
    assert all(s.kind == "http-proxy" for s in sessions)
