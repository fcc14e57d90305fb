"""The JSONL session file format (inspector/share/jsonl.py): lines round-trip, bad lines are named."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.errors import FileFormatError
from inspector.share.jsonl import (
    MessageLine,
    Reader,
    SessionLine,
    encode_header,
    encode_message,
    encode_session,
)

SESSION = {
    "kind": "stdio-wrap",
    "started_ns": 1,
    "status": "ended",
    "name": "s",
    "target": ["srv"],
    "message_count": 1,
}


def _row(raw: bytes, seq: int = 1) -> dict:
    return {
        "session_id": 9,
        "seq": seq,
        "ts_ns": 1_795_000_000_000_000_000,
        "direction": "c2s",
        "channel": "stdin",
        "raw": raw,
        "size": len(raw),
        "parse_status": "ok",
        "kind": "request",
        "method": "ping",
        "rpc_id": "1",
        "error_code": None,
        "answers_seq": None,
        "latency_ns": None,
        "http_method": None,
        "http_path": None,
        "http_status": None,
        "http_headers": None,
        "sse_event_id": None,
        "meta": {"b": 1, "a": [1, 2]},
        "lint": None,
    }


def _read(lines: list[bytes]) -> list:
    reader = Reader("f.jsonl")
    out = [reader.feed(line) for line in lines]
    reader.finish()
    return [item for item in out if item is not None]


@given(st.binary(max_size=200))
def test_any_bytes_round_trip(raw: bytes) -> None:
    items = _read([encode_header(), encode_session(SESSION, 1, None), encode_message(_row(raw), 1)])
    assert isinstance(items[1], MessageLine)
    row = items[1].row(5)
    assert row == {**_row(raw), "session_id": 5}


def test_lines_are_sorted_and_one_per_line() -> None:
    line = encode_message(_row(b'{"a":1}\n'), 1)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    keys = list(orjson.loads(line))
    assert keys == sorted(keys)
    session = orjson.loads(encode_session(SESSION, 2, 1))
    assert session["ref"] == 2 and session["parent_ref"] == 1 and "id" not in session


def test_session_columns_come_back() -> None:
    (item,) = _read([encode_header(), encode_session(SESSION, 1, None)])
    assert isinstance(item, SessionLine)
    assert item.columns()["target"] == ["srv"] and item.columns()["kind"] == "stdio-wrap"


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([b'{"format": "other", "version": 1}'], "f.jsonl:1: not an mcp-inspector-session file"),
        ([b'{"format": "mcp-inspector-session", "version": 99}'], "f.jsonl:1: format version 99 is newer"),
        ([encode_header(), b"{not json"], "f.jsonl:2: not JSON"),
        ([encode_header(), b"[1]"], "f.jsonl:2: not a JSON object"),
        ([encode_header(), b'{"type": "thing"}'], "f.jsonl:2: unknown line type 'thing'"),
        ([encode_header(), encode_message(_row(b"x"), 1)], "f.jsonl:2: a message of session 1 outside"),
        (
            [encode_header(), encode_session(SESSION, 1, 2)],
            "f.jsonl:2: parent_ref 2 is not an earlier session",
        ),
        (
            [encode_header(), encode_session(SESSION, 1, None), encode_session(SESSION, 1, None)],
            "f.jsonl:3: session ref 1 appears twice",
        ),
        (
            [
                encode_header(),
                encode_session(SESSION, 1, None),
                encode_message(_row(b"x", 2), 1),
                encode_message(_row(b"y", 2), 1),
            ],
            "f.jsonl:4: seq 2 after 2",
        ),
        (
            [
                encode_header(),
                encode_session(SESSION, 1, None),
                encode_message(_row(b"\xff"), 1).replace(b'"raw_base64":"/w=="', b'"raw_base64":"%%"'),
            ],
            "f.jsonl:3: raw_base64 is not base64",
        ),
        (
            [
                encode_header(),
                encode_session(SESSION, 1, None),
                encode_message(_row(b"x"), 1).replace(b'"direction":"c2s"', b'"direction":"up"'),
            ],
            "f.jsonl:3: direction:",
        ),
        ([], "f.jsonl:1: empty file"),
    ],
)
def test_bad_lines_are_named(lines: list[bytes], message: str) -> None:
    with pytest.raises(FileFormatError) as caught:
        _read(lines)
    assert str(caught.value).startswith(message), str(caught.value)
