"""SSE events are stored as the exact bytes sent, framing included.

What was wrong: the proxy stored each SSE event as its `data` decoded with
`errors="replace"`, without its framing: bytes that were not UTF-8 were lost,
CRLF line ends and the `event:`/`id:` lines were gone. Now a row's `raw` is the
event exactly as sent (field lines and blank-line terminator), while its data
is still classified (a JSON-RPC answer stays a paired `response`) and the UI's
detail gives the JSON part as `body`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
from playwright.sync_api import Browser, expect

from inspector.api.server import UiServer
from inspector.store import list_sessions, open_engine
from tests.e2e.conftest import new_context
from tests.http_peers import inspector_proxy, scripted_http_server
from tests.peers.scripted_http_server import RAW_SSE_TAIL
from tests.shim_process import messages


def _rows(db: Path, count: int):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 20
    while True:
        engine = open_engine(db)
        sessions = [s for s in list_sessions(engine) if s.message_count]
        rows = messages(engine, sessions[0].id) if sessions else []
        engine.dispose()
        if len([m for m in rows if m.channel == "sse"]) >= count:
            return sessions[0], rows
        assert time.monotonic() < deadline, rows
        time.sleep(0.05)


def test_sse_rows_hold_the_exact_event_bytes(db_path: Path, browser: Browser) -> None:
    with (
        scripted_http_server() as base,
        inspector_proxy(f"{base}/raw-sse", db_path, warm=True) as (url, _proxy),
    ):
        request = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
        with httpx.Client() as http:
            answer = http.post(url, json=request, headers={"accept": "text/event-stream"})
        assert answer.status_code == 200
        sent = answer.content  # what the server sent, as the client got it through the proxy
        assert sent.endswith(RAW_SSE_TAIL) and b"\xfe1\r\n" in sent
        session, rows = _rows(db_path, 2)
    events = [m for m in rows if m.channel == "sse"]
    assert b"".join(m.raw for m in events) == sent
    answer_row, note_row = events
    assert answer_row.raw.startswith(b"event: message\r\nid: \xfe1\r\ndata: {")
    assert answer_row.kind == "response" and answer_row.rpc_id == "7"
    request_row = next(m for m in rows if m.kind == "request")
    assert answer_row.answers_seq == request_row.seq
    assert answer_row.sse_event_id == "\ufffd1"
    assert note_row.raw == RAW_SSE_TAIL and note_row.kind == "http"
    assert note_row.size == len(RAW_SSE_TAIL)

    server = UiServer(open_engine(db_path), port=0).start()
    try:
        with httpx.Client(
            base_url=server.base_url, headers={"authorization": f"Bearer {server.token}"}
        ) as ui:
            detail = ui.get(f"/api/sessions/{session.id}/messages/{answer_row.seq}").json()["message"]
            raw = ui.get(f"/api/sessions/{session.id}/messages/{note_row.seq}/raw").content
        context = new_context(browser)
        page = context.new_page()
        page.goto(server.url(f"/sessions/{session.id}/messages/{answer_row.seq}"))
        # The detail's pretty view shows the event's JSON (the whole event is not JSON, nor UTF-8).
        expect(page.get_by_test_id("detail")).to_contain_text('echo:"tools/list"')
        context.close()
    finally:
        server.stop()
    assert json.loads(detail["body"]) == {"jsonrpc": "2.0", "id": 7, "result": {"echo": "tools/list"}}
    assert detail["raw"] is None and detail["raw_base64"]  # not UTF-8: the exact bytes as base64
    assert raw == RAW_SSE_TAIL
