"""A HAR written by mitmproxy imports event-stream bodies as the UTF-8 the server sent.

What was wrong: mitmproxy's HAR addon writes a text body with `get_text(strict=False)`, which
decodes a `text/event-stream` without a charset as latin-1; the importer encoded that text back as
UTF-8, so every non-ASCII character of an SSE answer arrived as mojibake (`Ã©` for `é`). Text that
is latin-1 only and whose latin-1 bytes are valid UTF-8 is now read as those bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from inspector.share.importer import import_har
from inspector.store import iter_messages, list_sessions, open_engine

ANSWER = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "café ☕ 東京"}]}}
EVENT = b"event: message\ndata: " + json.dumps(ANSWER, ensure_ascii=False).encode() + b"\n\n"


def _entry(method: str, body: dict, response_text: str, mime: str) -> dict:  # type: ignore[type-arg]
    return {
        "startedDateTime": "2026-05-01T10:00:00.000Z",
        "time": 3.0,
        "request": {
            "method": "POST", "url": "http://127.0.0.1:8000/mcp", "httpVersion": "HTTP/1.1",
            "headers": [{"name": "content-type", "value": "application/json"}],
            "postData": {"mimeType": "application/json", "text": json.dumps(body)},
            "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1,
        },
        "response": {
            "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
            "headers": [{"name": "content-type", "value": mime}],
            "content": {"size": len(response_text), "mimeType": mime, "text": response_text},
            "redirectURL": "", "cookies": [], "headersSize": -1, "bodySize": -1,
        },
        "cache": {}, "timings": {"send": 0, "wait": 3, "receive": 0},
    }  # fmt: skip


def test_mitmproxy_event_stream_text_is_read_as_utf8(tmp_path: Path) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet", "arguments": {}}}
    har = {
        "log": {
            "version": "1.2",
            "creator": {"name": "mitmproxy", "version": "11.0.2", "comment": ""},
            "pages": [],
            # As mitmproxy writes it: the event's UTF-8 bytes decoded as latin-1.
            "entries": [_entry("tools/call", call, EVENT.decode("latin-1"), "text/event-stream")],
        }
    }
    engine = open_engine(tmp_path / "rec.db")
    done = import_har(engine, json.dumps(har).encode(), source="mitm.har")
    (sid,) = done.session_ids
    (session,) = list_sessions(engine)
    rows = [m for m in iter_messages(engine, sid) if m.channel == "sse"]
    assert [m.raw for m in rows] == [EVENT]
    assert json.loads(rows[0].body)["result"]["content"][0]["text"] == "café ☕ 東京"
    engine.dispose()


def test_latin1_text_that_is_not_utf8_stays_as_written(tmp_path: Path) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    answer = '{"jsonrpc": "2.0", "id": 1, "result": {"note": "café"}}'  # é alone: not UTF-8 as latin-1
    har = {"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [
        _entry("ping", call, answer, "application/json")]}}  # fmt: skip
    engine = open_engine(tmp_path / "rec.db")
    (sid,) = import_har(engine, json.dumps(har).encode(), source="x.har").session_ids
    (row,) = [m for m in iter_messages(engine, sid) if m.direction == "s2c"]
    assert row.raw == answer.encode()
    engine.dispose()
