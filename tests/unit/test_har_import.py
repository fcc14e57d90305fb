"""HAR import of a browser's capture (Chrome DevTools' shape): grouping, bodies, and no secret at rest.

The HAR is built here in the shape DevTools writes (HTTP/2 pseudo-headers, `_resourceType`,
a base64 response body, an entry that is not MCP); it is imported into a real SQLite store.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from inspector.errors import HarFormatError
from inspector.share.har_import import group_sessions, read_har
from inspector.share.importer import import_har
from inspector.store import open_engine
from inspector.store.queries import iter_rows, list_sessions

SECRET = "sk-live-0123456789abcdef"


def _entry(
    t: str, method: str, url: str, body: str | None, status: int, answer: str, **kw: Any
) -> dict[str, Any]:
    request_headers = [
        {"name": ":authority", "value": "example.test"},
        {"name": "authorization", "value": f"Bearer {SECRET}"},
        {"name": "content-type", "value": "application/json"},
        *kw.get("request_headers", []),
    ]
    content: dict[str, Any] = {
        "size": len(answer),
        "mimeType": kw.get("mime", "application/json"),
        "text": answer,
    }
    if kw.get("base64"):
        content.update(text=base64.b64encode(answer.encode()).decode(), encoding="base64")
    entry: dict[str, Any] = {
        "_resourceType": "fetch",
        "startedDateTime": t,
        "time": 12.5,
        "request": {"method": method, "url": url, "httpVersion": "http/2.0", "headers": request_headers,
                    "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": status, "statusText": "", "httpVersion": "http/2.0",
                     "headers": [{"name": "content-type", "value": kw.get("mime", "application/json")},
                                 *kw.get("response_headers", [])],
                     "cookies": [], "content": content, "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {},
        "timings": {"blocked": 1, "dns": -1, "connect": -1, "send": 0.5, "wait": 10, "receive": 1, "ssl": -1},
    }  # fmt: skip
    if body is not None:
        entry["request"]["postData"] = {"mimeType": "application/json", "text": body}
    return entry


def _devtools_har() -> dict[str, Any]:
    init = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"web","version":"1"}}}'
    init_answer = '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"remote","version":"2"}}}'
    call = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup","arguments":{"api_key":"x"}}}'
    stream = (
        'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n'
        'event: message\ndata: {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"found"}]}}\n\n'
    )
    sid = [{"name": "mcp-session-id", "value": "s-1"}]
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "WebInspector", "version": "537.36"},
            "pages": [],
            "entries": [
                _entry("2026-01-02T03:04:05.000Z", "GET", "https://example.test/app.js", None, 200, "x", mime="text/javascript"),
                _entry("2026-01-02T03:04:06.000Z", "POST", "https://example.test/mcp", init, 200, init_answer,
                       response_headers=sid, base64=True),
                _entry("2026-01-02T03:04:07.000Z", "POST", "https://example.test/mcp", call, 200, stream,
                       request_headers=sid, mime="text/event-stream"),
                _entry("2026-01-02T03:04:08.000Z", "POST", "https://example.test/mcp", init.replace('"id":1', '"id":9'),
                       200, init_answer.replace('"id":1', '"id":9'), response_headers=[{"name": "mcp-session-id", "value": "s-2"}]),
            ],
        }
    }  # fmt: skip


def test_devtools_har_is_grouped_by_session_and_decoded() -> None:
    entries, creator = read_har(json.dumps(_devtools_har()).encode(), "devtools.har")
    assert creator == "WebInspector 537.36"
    assert [e.url for e in entries] == ["https://example.test/mcp"] * 3  # app.js is not MCP
    groups = group_sessions(entries)
    assert [len(g) for g in groups] == [2, 1]
    assert groups[0][0].response_body.startswith(b'{"jsonrpc"')  # base64 decoded
    assert all(h[0] != ":authority" for h in groups[0][0].request_headers)


def test_import_pairs_and_redacts(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "imported.db")
    done = import_har(engine, json.dumps(_devtools_har()).encode(), source="devtools.har")
    assert len(done.session_ids) == 2
    first = next(s for s in list_sessions(engine) if s.id == done.session_ids[0])
    assert (
        first.kind == "import"
        and first.name == "devtools.har 1/2"
        and first.target == "https://example.test/mcp"
    )
    assert first.protocol_version == "2025-06-18" and first.server_info == {"name": "remote", "version": "2"}
    rows = list(iter_rows(engine, first.id or 0))
    kinds = [(r["direction"], r["channel"], r["kind"], r["method"]) for r in rows]
    assert kinds == [
        ("c2s", "http-request", "request", "initialize"),
        ("s2c", "http-response", "response", "initialize"),
        ("c2s", "http-request", "request", "tools/call"),
        ("s2c", "http-response", "http", None),
        ("s2c", "sse", "notification", "notifications/progress"),
        ("s2c", "sse", "response", "tools/call"),
    ]
    call = rows[2]
    assert rows[5]["answers_seq"] == call["seq"] and rows[5]["latency_ns"] == 12_500_000
    assert rows[4]["meta"]["exchange"] == rows[5]["meta"]["exchange"] == call["meta"]["exchange"]
    stored = Path(tmp_path / "imported.db").read_bytes()
    assert SECRET.encode() not in stored  # the recorder's redaction step ran on every row
    assert ["authorization", "Bearer [secret:authorization]"] in call["http_headers"]
    engine.dispose()


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (b"[1, 2", "not JSON"),
        (b'{"entries": []}', 'no "log" with "entries"'),
        (
            b'{"log": {"entries": [{"request": {}, "startedDateTime": "soon"}]}}',
            "entry 1: startedDateTime 'soon'",
        ),
    ],
)
def test_bad_har_is_refused_with_where(doc: bytes, message: str) -> None:
    with pytest.raises(HarFormatError, match=message):
        read_har(doc, "bad.har")
