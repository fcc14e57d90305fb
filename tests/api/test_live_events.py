"""Every event the live feed sends during a real recorded session is one of its declared models.

A real `wrap` subprocess records a scripted server; the test subscribes, sends a
bad message, renames and deletes the session through the API, and checks each
event received against `schemas.AnyLiveEvent` (the discriminated union in the
OpenAPI schema the web UI's types come from): it validates, and its keys are
exactly its model's fields (no ad-hoc extras).
"""

from __future__ import annotations

import json
import time
from typing import Any

from pydantic import TypeAdapter
from websockets.sync.client import ClientConnection, connect

from inspector.api.schemas import AnyLiveEvent, NewMessages, PageRow
from tests.api.conftest import Api
from tests.conftest import SCRIPTED, wrap_argv
from tests.shim_process import ShimProcess

EVENT = TypeAdapter(AnyLiveEvent)
ROW = TypeAdapter(PageRow)


def _ws(api: Api) -> ClientConnection:
    url = api.server.base_url.replace("http://", "ws://") + f"/api/live?token={api.token}"
    return connect(url, open_timeout=10)


class Events:
    """Receives events, checking each against its model, until one of a wanted type arrives."""

    def __init__(self, ws: ClientConnection, deadline: float) -> None:
        self.ws, self.deadline = ws, deadline
        self.types: list[str] = []

    def until(self, wanted: str, **match: Any) -> dict[str, Any]:
        while True:
            remaining = self.deadline - time.monotonic()
            assert remaining > 0, f"no {wanted} event {match} in time"
            event = json.loads(self.ws.recv(timeout=remaining))
            model = EVENT.validate_python(event, strict=False)
            assert set(event) == set(type(model).model_fields), event
            if isinstance(model, NewMessages):
                for row in event["items"]:
                    ROW.validate_python(row)
                    assert set(row) == set(PageRow.model_fields), row
            self.types.append(event["type"])
            if event["type"] == wanted and all(event.get(k) == v for k, v in match.items()):
                return event


def test_every_live_event_of_a_recorded_session_is_a_declared_model(served_api: Api) -> None:
    with _ws(served_api) as ws:
        events = Events(ws, time.monotonic() + 60)
        shim = ShimProcess(wrap_argv(served_api.db, *SCRIPTED, extra=("--name", "typed")))
        sid = events.until("session_created")["session"]["id"]
        ws.send(json.dumps({"type": "subscribe", "session_id": sid, "after_seq": 0}))
        shim.request(1, "ping")
        shim.read_line()
        shim.request(2, "tools/list")
        shim.read_line()
        seen: set[int] = set()
        while len(seen) < 4:
            seen |= {r["seq"] for r in events.until("messages", session_id=sid)["items"]}
        ws.send("not a subscribe message")
        assert "not a subscribe message" in events.until("error")["message"]
        shim.close_stdin()
        assert shim.wait() == 0
        events.until("session_ended")
        assert served_api.http.patch(f"/api/sessions/{sid}", json={"name": "renamed"}).status_code == 200
        assert events.until("session_updated")["session"]["name"] == "renamed"
        assert served_api.http.delete(f"/api/sessions/{sid}").status_code == 204
        events.until("session_deleted", session_id=sid)
    assert {
        "session_created",
        "messages",
        "error",
        "session_ended",
        "session_updated",
        "session_deleted",
    } <= set(events.types)
