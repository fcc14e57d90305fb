"""`/api/live/status` on SQLite: the feed polls (there is nothing to listen to), behind the token."""

from __future__ import annotations

import json
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from tests.api.conftest import Api, serve


def test_sqlite_feed_polls_and_its_status_needs_the_token(tmp_path: Path) -> None:
    with contextmanager(serve)(tmp_path / "fresh.db") as fresh_api:
        _polls_and_needs_the_token(fresh_api)


def _polls_and_needs_the_token(fresh_api: Api) -> None:
    status: Any = fresh_api.json("/api/live/status")
    assert status["backend"] == "sqlite" and status["mode"] == "poll"
    assert status["notifications"] == 0 and status["last_notification_delay_ms"] is None
    ws_url = fresh_api.server.base_url.replace("http://", "ws://") + f"/api/live?token={fresh_api.token}"
    with connect(ws_url, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "subscribe", "session_id": 1}))
        deadline = time.monotonic() + 30
        while True:  # the interval (0.15 s) drives the looks at the tables, never a notification
            status = fresh_api.json("/api/live/status")
            if status["polls_on_timer"] >= 2:
                break
            assert time.monotonic() < deadline, status
            time.sleep(0.05)
    assert status["polls_on_notification"] == 0 and status["polls_on_new_listener"] >= 1
    assert httpx.get(f"{fresh_api.server.base_url}/api/live/status").status_code == 401
