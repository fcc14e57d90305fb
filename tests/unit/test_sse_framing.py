"""SSE framing (`protocol.sse`): any split of a byte stream into chunks frames the same events.

Properties over random streams (field lines, CR/LF/CRLF line ends, bytes that
are not UTF-8, blank lines) and random chunkings: the events' raw bytes put
together give back the stream, every chunking gives the events of the
one-chunk reading, and `stored_body` reads a recorded event's data back.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.protocol.sse import SSEEvent, SSEFramer, stored_body

_line_ends = st.sampled_from([b"\n", b"\r\n", b"\r"])
_field = st.sampled_from([b"data:", b"data: ", b"event: ", b"id: ", b"retry: ", b": ", b"data"])
_value = st.one_of(
    st.sampled_from(
        [b"{}", b'{"jsonrpc":"2.0","id":1,"result":{}}', b"\xff", b"caf\xc3\xa9", b"\xe9", b"12"]
    ),
    st.binary(max_size=8).filter(lambda b: b"\r" not in b and b"\n" not in b),
)
_line = st.tuples(_field, _value, _line_ends).map(b"".join)
_stream = st.lists(st.one_of(_line, _line_ends), max_size=25).map(b"".join)


def _frame(chunks: list[bytes]) -> list[SSEEvent]:
    framer = SSEFramer()
    events = [e for chunk in chunks for e in framer.feed(chunk)]
    return events + framer.close()


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in zip(edges, edges[1:], strict=False)]


@settings(max_examples=300, deadline=None)
@given(data=_stream, cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=25))
def test_any_chunking_frames_the_same_events(data: bytes, cuts: list[int]) -> None:
    whole = _frame([data])
    events = _frame(_split(data, cuts))
    assert b"".join(e.raw for e in events) == data
    assert events == whole


@settings(max_examples=200, deadline=None)
@given(data=_stream)
def test_stored_body_is_the_data_exactly(data: bytes) -> None:
    for event in _frame([data]):
        if event.data_bytes and event.raw.lstrip()[:1] not in (b"{", b"["):
            assert stored_body("sse", event.raw) == event.data_bytes
        assert event.data == event.data_bytes.decode("utf-8", "replace")


def test_crlf_and_non_utf8_kept_exactly() -> None:
    raw = b'event: message\r\nid: \xfe1\r\ndata: {"a":"\xff"}\r\ndata: x\r\n\r\n'
    (event,) = _frame([raw[:17], raw[17:18], raw[18:]])
    assert event.raw == raw
    assert event.data_bytes == b'{"a":"\xff"}\nx'
    assert event.id == "\ufffd1"
    assert stored_body("sse", raw) == event.data_bytes
    assert stored_body("sse", b'{"old":"row"}') == b'{"old":"row"}'  # rows that hold the data alone
    assert stored_body("http-response", raw) == raw
