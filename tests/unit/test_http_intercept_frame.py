"""The proxy's re-framing of altered SSE event data (`transports/http_intervene.py`): what a client's SSE
parser reads back is the new data under the original event's id and name."""

from __future__ import annotations

from inspector.protocol.sse import SSEFramer
from inspector.transports.http_intervene import frame as _frame
from inspector.transports.http_intervene import with_length as _with_length


def _one(raw: bytes):  # type: ignore[no-untyped-def]
    framer = SSEFramer()
    (event,) = framer.feed(raw) + framer.close()
    return event


def test_altered_data_keeps_the_events_id_and_name() -> None:
    original = _one(b'event: message\nid: 42\ndata: {"a":1}\n\n')
    framed = _frame(original, b'{"b":2}')
    assert framed == b'event: message\nid: 42\ndata: {"b":2}\n\n'
    again = _one(framed)
    assert (again.id, again.event, again.data_bytes) == ("42", "message", b'{"b":2}')


def test_an_unnamed_event_stays_unnamed_and_line_breaks_become_data_lines() -> None:
    original = _one(b"id: 7\ndata: x\n\n")
    framed = _frame(original, b"line one\r\nline two\rthree")
    assert framed == b"id: 7\ndata: line one\ndata: line two\ndata: three\n\n"
    assert _one(framed).data_bytes == b"line one\nline two\nthree"


def test_the_inspectors_own_event_has_no_id() -> None:
    assert (
        _frame(None, b'{"jsonrpc":"2.0","id":1,"result":{}}')
        == b'data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'
    )


def test_an_altered_body_gets_its_own_content_length() -> None:
    headers = [
        (b"Content-Type", b"application/json"),
        (b"Content-Length", b"99"),
        (b"transfer-encoding", b"x"),
    ]
    assert _with_length(headers, b"{}") == [(b"Content-Type", b"application/json"), (b"content-length", b"2")]
