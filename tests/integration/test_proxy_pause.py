"""The HTTP proxy: pause by signal (per process: every session, and the ones opened while paused
start paused) and --metadata-only (#20, pause20). A real `mcp-inspect proxy` in front of the demo
server over Streamable HTTP, driven by the official SDK client (`drive_demo`)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import anyio
import pytest

from inspector.demo.driver import drive_demo
from inspector.store import iter_messages, list_sessions, open_engine
from tests.http_peers import demo_http_server, inspector_proxy, proxy_in_process

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGUSR1 is POSIX")


def _ended(db: Path, count: int, timeout: float = 30.0) -> list:
    engine = open_engine(db)
    try:
        deadline = time.monotonic() + timeout
        while True:
            sessions = sorted(list_sessions(engine), key=lambda s: s.id)
            if len(sessions) >= count and all(s.status == "ended" for s in sessions):
                return [(s, list(iter_messages(engine, s.id))) for s in sessions]
            assert time.monotonic() < deadline, [(s.id, s.status) for s in sessions]
            time.sleep(0.1)
    finally:
        engine.dispose()


def test_proxy_pauses_every_session_by_signal(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    with (
        demo_http_server(warm=True) as target,
        inspector_proxy(target, db, "--idle-end", "0.5", warm=True) as (url, proxy),  # the signals forwarded
    ):
        os.kill(proxy.proc.pid, signal.SIGUSR1)
        time.sleep(0.3)  # the handler runs on the proxy's main thread
        report = anyio.run(lambda: drive_demo(url, mode="legacy"))
        assert report.tools  # the client saw every answer
        os.kill(proxy.proc.pid, signal.SIGUSR2)
        time.sleep(0.3)
        anyio.run(lambda: drive_demo(url, mode="legacy"))
        (paused, paused_rows), (recorded, rows) = _ended(db, 2)
    (pause,) = paused.facts["recording_pauses"]
    assert pause["after_seq"] == 0 and pause["messages_not_recorded"] > 10
    assert not paused_rows
    assert "recording_pauses" not in (recorded.facts or {})
    assert len(rows) > 10 and [m.seq for m in rows] == list(range(1, len(rows) + 1))


def test_proxy_metadata_only(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    with (
        demo_http_server(warm=True) as target,
        proxy_in_process(target, db, "--metadata-only", "--idle-end", "0.5") as (url, _),
    ):
        anyio.run(lambda: drive_demo(url, mode="legacy"))
        ((session, rows),) = _ended(db, 1)
    assert session.facts["record"] == "metadata"
    assert rows and all(m.raw == b"" for m in rows)
    assert any(m.method == "tools/call" and m.size > 0 for m in rows)
    assert any(m.http_status == 200 for m in rows)
    names = {name.lower() for m in rows for name, _ in (m.http_headers or [])}
    assert "content-type" in names
    assert all(value == "" for m in rows for _, value in (m.http_headers or []))
    data = b"".join(p.read_bytes() for p in tmp_path.glob("rec.db*"))
    assert b'"jsonrpc"' not in data
