"""A websocket that reads slower than a live session writes is sent a `behind` marker instead of rows.

The feed used to queue up to 2000 events of up to 1000 rows for each websocket (hundreds of MB
for one slow reader while a session streamed), then drop the connection. Now a listener's queue
is bounded by bytes: rows that do not fit are dropped from it and one `behind` marker per session
says how many messages the session has; the client fetches what it shows through the REST API.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest
from websockets.sync.client import ClientConnection, connect

from bench.scale_live import feed_process
from inspector.api import live
from inspector.api.live import Listener
from inspector.capture.sessions import create_session
from inspector.store import open_engine
from tests.api.conftest import Api, serve


def _rows_event(session_id: int, first: int, last: int) -> bytes:
    items = [{"seq": s, "preview": "x" * 100} for s in range(first, last + 1)]
    return orjson.dumps({"type": "messages", "session_id": session_id, "items": items, "truncated": False})


def test_a_full_queue_coalesces_rows_into_one_marker_and_then_rows_flow_again() -> None:
    async def scenario() -> list[dict[str, Any]]:
        listener = Listener(max_bytes=4000)
        listener.push(b'{"type":"session_updated"}')
        listener.push_rows(1, _rows_event(1, 1, 10), 10)  # fits
        listener.push_rows(2, _rows_event(2, 1, 10), 10)  # another session's rows
        for k in range(1, 20):  # session 1 floods: its rows become one marker
            listener.push_rows(1, _rows_event(1, 10 * k + 1, 10 * k + 10), 10 * k + 10)
        assert listener.queued_bytes <= 4000 and listener.markers == 1
        out = [json.loads(await listener.next()) for _ in range(3)]
        assert not listener.pending and listener.queued_bytes == 0
        listener.push_rows(1, _rows_event(1, 201, 205), 205)  # read up: rows again
        out.append(json.loads(await listener.next()))
        return out

    events = asyncio.run(scenario())
    assert [e["type"] for e in events] == ["session_updated", "messages", "behind", "messages"]
    assert events[1]["session_id"] == 2  # the other session's rows stay
    assert events[2] == {"type": "behind", "session_id": 1, "message_count": 200}
    assert [r["seq"] for r in events[3]["items"]] == [201, 202, 203, 204, 205]


@pytest.fixture
def fresh_api(any_store: Path | str) -> Iterator[Api]:
    """A UI server on an empty store of each backend (PostgreSQL: the feed is woken by NOTIFY)."""
    open_engine(any_store).dispose()  # the schema made before the recorder process opens it
    yield from serve(any_store)  # type: ignore[arg-type]


def _slow_ws(api: Api) -> ClientConnection:
    """A websocket that stops reading once a frame waits (and a small receive buffer)."""
    parts = urlsplit(api.server.base_url)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((parts.hostname or "127.0.0.1", parts.port or 80))
    url = api.server.base_url.replace("http://", "ws://") + f"/api/live?token={api.token}"
    return connect(url, sock=sock, open_timeout=10, max_queue=1, max_size=None)


def test_a_slow_websocket_gets_a_marker_the_server_stays_bounded_and_it_catches_up(
    fresh_api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A small budget: one poll's rows can overflow it however the store paces the feed (at 64 KiB
    # a slow PostgreSQL under load sent the flood in pieces the socket buffers held: no marker).
    monkeypatch.setattr(live, "MAX_QUEUED_BYTES", 16 * 1024)
    engine = open_engine(fresh_api.db)
    sid = create_session(engine, kind="stdio-wrap", target=["flooding-server"], name="flood")
    engine.dispose()
    with _slow_ws(fresh_api) as ws:
        ws.send(json.dumps({"type": "subscribe", "session_id": sid, "after_seq": 0}))
        time.sleep(0.5)
        feeder = feed_process(fresh_api.db, sid, 4000, 3.0)
        peak = 0
        while feeder.poll() is None:  # not reading meanwhile
            peak = max(peak, fresh_api.get("/api/live/status").json()["queued_bytes"])
            time.sleep(0.2)
        assert feeder.returncode == 0
        status = fresh_api.get("/api/live/status").json()
        assert status["behind_markers"] >= 1, status
        assert peak <= 16 * 1024 + 1_000_000, peak  # the budget, plus one event that came alone
        seen: dict[int, dict[str, Any]] = {}
        markers: list[int] = []
        skipped: list[int] = []  # rows up to these were left out by a `truncated` event
        deadline = time.monotonic() + 60
        final = None

        def done() -> bool:  # a poll sends the session's end before its last rows
            return final is not None and max([*seen, *markers], default=0) >= final

        while not done():
            assert time.monotonic() < deadline, f"no session_ended and last rows in time ({final})"
            event = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if event["type"] == "messages" and event["session_id"] == sid:
                seen.update({r["seq"]: r for r in event["items"]})
                if event["truncated"] and event["items"]:  # the feed sent a span's newest rows only
                    skipped.append(event["items"][0]["seq"] - 1)
            elif event["type"] == "behind" and event["session_id"] == sid:
                markers.append(event["message_count"])
            elif event["type"] == "session_ended" and event["session"]["id"] == sid:
                final = event["session"]["message_count"]
    assert markers, "the slow websocket got no behind marker"
    assert final == 12_000
    # Every row the feed left out is at or before a marker's count, or before the first row of a
    # `truncated` event (a look that found more rows than it sends sends the newest): the client
    # fetches those.
    missing = sorted(set(range(1, final + 1)) - set(seen))
    assert not missing or missing[-1] <= max(markers + skipped), (missing[-5:], markers, skipped)
    # Catching up through the REST API: the missing rows are there, as the feed would have sent them.
    fetched: dict[int, dict[str, Any]] = {}
    after = 0
    while after < final:
        page = fresh_api.get(f"/api/sessions/{sid}/messages", after_seq=after, limit=1000).json()
        fetched.update({r["seq"]: r for r in page["items"]})
        after = page["items"][-1]["seq"]
    assert sorted(fetched) == list(range(1, final + 1))
    for seq, row in seen.items():
        assert fetched[seq] == row
