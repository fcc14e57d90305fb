"""The websocket live feed against recordings made by another process (a real `wrap` subprocess), on a
real `UiServer`'s socket."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Api, serve
from tests.conftest import SCRIPTED, wrap_argv
from tests.shim_process import ShimProcess


def _ws(api: Api) -> Any:
    """The live feed's websocket of `api` (a real socket on a `UiServer`, the portal in-process)."""
    return api.live()


@pytest.fixture(scope="module")
def mixed_served(mixed_db: Path) -> Iterator[Api]:
    yield from serve(mixed_db)


def _next(ws: Any, wanted: str, deadline: float, **match: Any) -> dict[str, Any]:
    """The next event of type `wanted` (whose fields include `match`), skipping others, within the deadline."""
    while True:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"no {wanted} event {match} in time"
        event = json.loads(ws.recv(timeout=remaining))
        if event["type"] == wanted and all(event.get(k) == v for k, v in match.items()):
            return event


def test_a_wrap_in_another_process_appears_live(served_api: Api) -> None:
    deadline = time.monotonic() + 60
    with _ws(served_api) as ws, _ws(served_api) as watcher:
        ws.send(json.dumps({"type": "subscribe", "session_id": 0}))  # ignored: no such session
        shim = ShimProcess(wrap_argv(served_api.db, *SCRIPTED, extra=("--name", "live")))
        created = _next(ws, "session_created", deadline)
        session = created["session"]
        assert session["name"] == "live" and session["state"] == "recording"
        assert _next(watcher, "session_created", deadline)["session"]["id"] == session["id"]
        shim.request(1, "ping")
        shim.read_line()
        # after_seq: rows written before the subscription took effect are sent too (maybe twice).
        ws.send(json.dumps({"type": "subscribe", "session_id": session["id"], "after_seq": 0}))
        seen: dict[int, dict[str, Any]] = {}
        while len(seen) < 2:
            event = _next(ws, "messages", deadline, session_id=session["id"])
            seen.update({r["seq"]: r for r in event["items"]})
        assert sorted(seen) == [1, 2] and seen[2]["answers_seq"] == 1
        shim.request(2, "tools/list")
        shim.read_line()
        while len(seen) < 4:
            event = _next(ws, "messages", deadline, session_id=session["id"])
            seen.update({r["seq"]: r for r in event["items"]})
        assert sorted(seen) == [1, 2, 3, 4]
        assert seen[4]["answers_seq"] == 3 and seen[4]["method"] == "tools/list"
        shim.close_stdin()
        assert shim.wait() == 0
        ended = _next(ws, "session_ended", deadline)["session"]
        assert ended["id"] == session["id"] and ended["state"] == "ended" and ended["message_count"] == 4
        # The watcher never subscribed: it got the session events but no messages.
        assert _next(watcher, "session_ended", deadline)["session"]["id"] == session["id"]


def test_renames_and_deletes_through_the_api_are_pushed(served_api: Api) -> None:
    from inspector.store import open_engine
    from tests.api.recordings import generate_session

    sid = generate_session(served_api.db, 4, name="old")
    open_engine(served_api.db).dispose()
    deadline = time.monotonic() + 30
    with _ws(served_api) as ws:
        assert served_api.http.patch(f"/api/sessions/{sid}", json={"name": "new"}).status_code == 200
        assert _next(ws, "session_updated", deadline)["session"]["name"] == "new"
        assert served_api.http.delete(f"/api/sessions/{sid}").status_code == 204
        assert _next(ws, "session_deleted", deadline) == {"type": "session_deleted", "session_id": sid}


def test_text_that_is_not_json_is_ignored_and_the_backlog_still_comes(mixed_served: Api) -> None:
    with _ws(mixed_served) as ws:
        ws.send("this is not json")
        ws.send(json.dumps({"type": "subscribe", "session_id": 2, "after_seq": 5}))
        event = _next(ws, "messages", time.monotonic() + 20, session_id=2)
        assert [r["seq"] for r in event["items"]] == [6, 7] and event["truncated"] is False
