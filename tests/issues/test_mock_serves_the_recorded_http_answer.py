"""An HTTP mock serves what the recorded server sent, not a tidied copy.

What was wrong: `mock-server --http` re-framed every recorded answer as an SSE event of a 200
response with the client's id: a recorded HTTP 500 whose JSON-RPC error has `"id": null` was
served as 200 with `"id": 1`, so a client test could not reproduce that server's quirk. Now an
answer recorded as one HTTP body is served with its recorded status, headers and body bytes; only
the id changes, and only where the recorded answer echoed the recorded request's id and the
client's id differs.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from inspector.store import list_sessions, open_engine
from tests.http_peers import inspector_proxy, scripted_http_server
from tests.listeners import mock_server_http

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _rpc(rpc_id: int, method: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": {}}).encode()


def _run(url: str, first_id: int) -> list[httpx.Response]:
    with httpx.Client(timeout=30) as http:
        return [
            http.post(url, content=_rpc(first_id, "initialize"), headers=HEADERS),
            http.post(url, content=_rpc(first_id + 1, "tools/call"), headers=HEADERS),
        ]


def test_recorded_500_with_null_id_is_served_as_recorded(db_path: Path) -> None:
    with (
        scripted_http_server() as base,
        inspector_proxy(f"{base}/quirky", db_path, warm=True) as (url, _proxy),
    ):
        recorded = _run(url, 1)
    assert [r.status_code for r in recorded] == [200, 500]
    engine = open_engine(db_path)
    (session,) = [s for s in list_sessions(engine) if s.message_count]
    engine.dispose()

    with mock_server_http(db_path, str(session.id), warm=True) as mock_url:
        same_ids = _run(mock_url, 1)
        other_ids = _run(mock_url, 7)
    for served in (same_ids, other_ids):
        assert [r.status_code for r in served] == [200, 500]
        assert served[1].content == recorded[1].content  # `"id": null` and its spacing, as recorded
        assert served[1].headers["content-type"] == "application/json"
        assert served[1].headers["x-quirk"] == "yes"
    assert same_ids[0].content == recorded[0].content  # byte for byte
    # The answer echoed the request's id: a client with another id gets its own, nothing else changed.
    assert other_ids[0].content == recorded[0].content.replace(b'"id": 1', b'"id": 7')
    assert json.loads(other_ids[0].content)["id"] == 7
