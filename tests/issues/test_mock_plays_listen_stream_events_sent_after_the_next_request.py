"""A recorded `subscriptions/listen` stream (2026-07-28) is never answered: the events on it are its
reaction, also those the server sent after the client's next request (the change a `tools/call`
triggered). They used to be cut at that request, so a mock server of the recording never sent
`notifications/tools/list_changed` on the listen stream (the conformance suite's server-stateless
list-changed checks, through `mock-server`)."""

from __future__ import annotations

from typing import Any

import orjson

from inspector.mock.script import RecordedScript
from inspector.store import Message
from tests.lint_recordings import Http

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
LISTEN = {"_meta": ENVELOPE, "notifications": {"toolsListChanged": True}}
TRIGGER = {"name": "test_trigger_tool_change", "arguments": {}, "_meta": ENVELOPE}


def _event(h: Http, exchange: int, message: dict[str, Any]) -> None:
    h.t += 1_000_000
    data = orjson.dumps(message)
    h.rows.append(
        h.builder.message(
            h.t,
            "s2c",
            "sse",
            b"event: message\ndata: " + data + b"\n\n",
            body=data,
            meta={"exchange": exchange},
        )
    )


def test_the_listen_streams_later_events_are_played_on_it() -> None:
    h = Http()
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    h.post(
        {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": LISTEN}, headers, status=200
    )
    h.rows.pop()  # its response is an event stream, not a body: only the head would be here
    listen = h.exchange
    _event(h, listen, {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {}})
    h.post(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": TRIGGER},
        headers,
        answer={"jsonrpc": "2.0", "id": 2, "result": {"content": []}},
    )
    _event(h, listen, {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}})
    rows = [Message(session_id=1, **{k: v for k, v in r.items() if k != "session_id"}) for r in h.rows]

    script = RecordedScript.from_rows(rows)
    reaction, _ = script.react(
        {"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": LISTEN}
    )
    assert reaction is not None
    assert [a.payload.get("method") for a in reaction.actions] == [
        "notifications/subscriptions/acknowledged",
        "notifications/tools/list_changed",
    ]
    trigger, _ = script.react({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": TRIGGER})
    assert trigger is not None and [a.kind for a in trigger.actions] == ["respond"]
