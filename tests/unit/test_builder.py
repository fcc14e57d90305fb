"""MessageBuilder: captured chunks in, Message-shaped rows out."""

from __future__ import annotations

import json
from typing import Any, get_args, get_type_hints

import pytest

from inspector.capture.builder import ROW_COLUMNS, MessageBuilder
from inspector.protocol.jsonrpc import Kind, ParseStatus
from inspector.store import schema
from inspector.store.models import KindName, Message, MessageRow, ParseStatusName, Session

INIT = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n'
INIT_RESULT = b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"2"}}}\n'


def line(obj: Any, terminator: bytes = b"\n") -> bytes:
    return json.dumps(obj).encode() + terminator


def only(rows: list[dict[str, Any]]) -> dict[str, Any]:
    assert len(rows) == 1, rows
    return rows[0]


# --- shape ------------------------------------------------------------------------


def test_row_columns_are_the_message_table_minus_id() -> None:
    """...and minus `body_sha256`, which only the writer fills (store/bodies.py)."""
    table_columns = [c.name for c in schema.message.columns]
    assert "id" in table_columns
    assert len(ROW_COLUMNS) == len(set(ROW_COLUMNS))
    assert set(ROW_COLUMNS) == set(table_columns) - {"id", "body_sha256"}


def test_the_typed_row_declares_exactly_the_row_columns() -> None:
    """`MessageRow` (the static type of a recorder row) lists the table's columns, in order."""
    assert tuple(get_type_hints(MessageRow)) == ROW_COLUMNS


def test_the_row_vocabularies_are_the_classifiers() -> None:
    assert set(get_args(KindName)) == {k.value for k in Kind}
    assert set(get_args(ParseStatusName)) == {s.value for s in ParseStatus}


@pytest.mark.parametrize(
    ("channel", "data"),
    [("stdin", INIT), ("stdout", b"garbage\r\n"), ("stderr", b"log line\n"), ("stdin", b"[]\n")],
)
def test_every_row_has_exactly_the_row_columns(channel: str, data: bytes) -> None:
    b = MessageBuilder(session_id=9)
    row = only(b.feed(5, "c2s" if channel == "stdin" else "s2c", channel, data))
    assert tuple(row) == ROW_COLUMNS
    assert row["session_id"] == 9
    assert row["ts_ns"] == 5


def test_rows_build_message_instances() -> None:
    b = MessageBuilder(session_id=1)
    row = only(b.feed(123, "c2s", "stdin", INIT))
    m = Message(**row)
    assert m.raw == INIT
    assert m.seq == 1
    assert m.method == "initialize"
    assert m.to_json()["raw"] == INIT.decode()


def test_request_row() -> None:
    b = MessageBuilder(session_id=3)
    row = only(b.feed(1_000, "c2s", "stdin", INIT))
    assert row == {
        "session_id": 3,
        "seq": 1,
        "ts_ns": 1_000,
        "direction": "c2s",
        "channel": "stdin",
        "raw": INIT,
        "size": len(INIT),
        "parse_status": "ok",
        "kind": "request",
        "method": "initialize",
        "rpc_id": "0",
        "error_code": None,
        "answers_seq": None,
        "latency_ns": None,
        "http_method": None,
        "http_path": None,
        "http_status": None,
        "http_headers": None,
        "sse_event_id": None,
        "meta": None,
        "lint": None,
    }


# --- seq --------------------------------------------------------------------------


def test_seq_is_gap_free_across_directions_and_channels() -> None:
    b = MessageBuilder(session_id=1)
    rows: list[dict[str, Any]] = []
    rows += b.feed(1, "c2s", "stdin", INIT[:10])  # nothing yet
    rows += b.feed(2, "s2c", "stderr", b"starting\nready\n")
    rows += b.feed(3, "c2s", "stdin", INIT[10:])
    rows += b.feed(4, "s2c", "stdout", b"not json\n" + INIT_RESULT)
    rows += b.feed(5, "c2s", "stdin", b"\n")
    rows += b.feed(6, "s2c", "stderr", b"partial")
    rows += b.close_all(7)
    assert [r["seq"] for r in rows] == list(range(1, 8))
    assert [(r["direction"], r["channel"], r["kind"]) for r in rows] == [
        ("s2c", "stderr", "log"),
        ("s2c", "stderr", "log"),
        ("c2s", "stdin", "request"),
        ("s2c", "stdout", "invalid"),
        ("s2c", "stdout", "response"),
        ("c2s", "stdin", "invalid"),
        ("s2c", "stderr", "log"),
    ]
    assert b.seq == 7


def test_framers_are_per_direction_and_channel() -> None:
    b = MessageBuilder(session_id=1)
    assert b.feed(1, "s2c", "stdout", b'{"jsonrpc":"2.0",') == []
    assert b.feed(2, "s2c", "stderr", b"oops\n")[0]["raw"] == b"oops\n"
    row = only(b.feed(3, "s2c", "stdout", b'"method":"notifications/x"}\n'))
    assert row["kind"] == "notification"
    assert row["raw"] == b'{"jsonrpc":"2.0","method":"notifications/x"}\n'
    assert row["ts_ns"] == 3  # the ts of the chunk that completed the line


def test_many_lines_in_one_chunk() -> None:
    b = MessageBuilder(session_id=1)
    data = b"".join(line({"jsonrpc": "2.0", "method": f"n{i}"}) for i in range(5))
    rows = b.feed(1, "c2s", "stdin", data)
    assert [r["method"] for r in rows] == [f"n{i}" for i in range(5)]
    assert b"".join(r["raw"] for r in rows) == data


# --- stderr ------------------------------------------------------------------------


def test_stderr_lines_are_logs_even_when_they_look_like_json() -> None:
    b = MessageBuilder(session_id=1)
    rows = b.feed(1, "s2c", "stderr", b"Traceback\r\n" + INIT)
    assert [r["kind"] for r in rows] == ["log", "log"]
    assert all(r["parse_status"] == "ok" for r in rows)
    assert all(r["method"] is None and r["rpc_id"] is None for r in rows)
    assert rows[0]["raw"] == b"Traceback\r\n"
    assert rows[0]["meta"] is None  # CRLF is only flagged on the protocol streams
    assert b.correlator.unanswered() == []
    assert b.facts.era is None


# --- pairing ----------------------------------------------------------------------


def test_response_row_carries_request_method_answers_seq_and_latency() -> None:
    b = MessageBuilder(session_id=1)
    b.feed(1_000, "c2s", "stdin", line({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}))
    b.feed(1_100, "s2c", "stderr", b"working\n")
    row = only(b.feed(4_000, "s2c", "stdout", line({"jsonrpc": "2.0", "id": 7, "result": {"tools": []}})))
    assert row["kind"] == "response"
    assert row["method"] == "tools/list"
    assert row["rpc_id"] == "7"
    assert row["answers_seq"] == 1
    assert row["latency_ns"] == 3_000
    assert row["meta"] is None


def test_error_row_has_code_and_method() -> None:
    b = MessageBuilder(session_id=1)
    b.feed(0, "c2s", "stdin", line({"jsonrpc": "2.0", "id": "d", "method": "server/discover"}))
    row = only(
        b.feed(
            9,
            "s2c",
            "stdout",
            line({"jsonrpc": "2.0", "id": "d", "error": {"code": -32601, "message": "nf"}}),
        )
    )
    assert row["kind"] == "error"
    assert row["error_code"] == -32601
    assert row["method"] == "server/discover"
    assert row["rpc_id"] == '"d"'
    assert row["answers_seq"] == 1
    assert row["latency_ns"] == 9


def test_server_to_client_request_answered_on_stdin() -> None:
    b = MessageBuilder(session_id=1)
    b.feed(10, "s2c", "stdout", line({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}))
    row = only(b.feed(15, "c2s", "stdin", line({"jsonrpc": "2.0", "id": 0, "result": {"roots": []}})))
    assert (row["answers_seq"], row["method"], row["latency_ns"]) == (1, "roots/list", 5)


def test_orphan_response_is_flagged_in_meta() -> None:
    b = MessageBuilder(session_id=1)
    row = only(b.feed(1, "s2c", "stdout", line({"jsonrpc": "2.0", "id": 1, "result": {}})))
    assert row["meta"] == {"flags": ["orphan-response"]}
    assert row["answers_seq"] is None
    assert row["method"] is None


def test_cancel_row_keeps_its_own_method_and_links_the_request() -> None:
    b = MessageBuilder(session_id=1)
    b.feed(1, "c2s", "stdin", line({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}))
    row = only(
        b.feed(
            2,
            "c2s",
            "stdin",
            line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
        )
    )
    assert row["method"] == "notifications/cancelled"
    assert row["meta"] == {"related_seq": 1}
    late = only(b.feed(3, "s2c", "stdout", line({"jsonrpc": "2.0", "id": 1, "result": {}})))
    assert late["meta"] == {"flags": ["late-after-cancel"]}


def test_batch_row() -> None:
    b = MessageBuilder(session_id=1)
    b.feed(
        0,
        "c2s",
        "stdin",
        line([{"jsonrpc": "2.0", "id": 1, "method": "a"}, {"jsonrpc": "2.0", "id": 2, "method": "b"}]),
    )
    row = only(
        b.feed(
            50,
            "s2c",
            "stdout",
            line([{"jsonrpc": "2.0", "id": 2, "result": {}}, {"jsonrpc": "2.0", "id": 1, "result": {}}]),
        )
    )
    assert row["kind"] == "batch"
    assert row["parse_status"] == "ok"
    assert row["answers_seq"] == 1
    assert row["method"] == "b"
    assert row["meta"] == {
        "items": [
            {"answers_seq": 1, "request_method": "b", "latency_ns": 50},
            {"answers_seq": 1, "request_method": "a", "latency_ns": 50},
        ]
    }


# --- odd bytes --------------------------------------------------------------------


def test_crlf_is_flagged_and_still_classified() -> None:
    b = MessageBuilder(session_id=1)
    data = INIT.replace(b"\n", b"\r\n")
    row = only(b.feed(1, "c2s", "stdin", data))
    assert row["raw"] == data
    assert row["size"] == len(data)
    assert row["kind"] == "request"
    assert row["parse_status"] == "ok"
    assert row["meta"] == {"crlf": True}


def test_crlf_flag_is_added_to_pairing_meta() -> None:
    b = MessageBuilder(session_id=1)
    row = only(b.feed(1, "s2c", "stdout", line({"jsonrpc": "2.0", "id": 1, "result": {}}, b"\r\n")))
    assert row["meta"] == {"flags": ["orphan-response"], "crlf": True}


def test_invalid_json_row_has_status_and_problem() -> None:
    b = MessageBuilder(session_id=1)
    row = only(b.feed(1, "s2c", "stdout", b'{"jsonrpc": oops}\n'))
    assert row["parse_status"] == "invalid-json"
    assert row["kind"] == "invalid"
    assert row["method"] is None and row["rpc_id"] is None
    assert row["meta"]["problem"].startswith("not valid JSON")
    assert row["raw"] == b'{"jsonrpc": oops}\n'


def test_invalid_utf8_row_keeps_bytes() -> None:
    b = MessageBuilder(session_id=1)
    row = only(b.feed(1, "s2c", "stdout", b"\xff\xfe\r\n"))
    assert row["parse_status"] == "invalid-utf8"
    assert row["raw"] == b"\xff\xfe\r\n"
    assert row["meta"] == {"crlf": True, "problem": "not valid UTF-8 at byte 0"}


def test_not_jsonrpc_row() -> None:
    b = MessageBuilder(session_id=1)
    row = only(b.feed(1, "c2s", "stdin", b'{"id":1,"method":"x"}\n'))
    assert row["parse_status"] == "not-jsonrpc"
    assert row["kind"] == "invalid"
    assert "problem" in row["meta"]
    assert b.correlator.unanswered() == []


def test_error_with_bad_code_is_paired_and_has_a_problem() -> None:
    b = MessageBuilder(session_id=1)
    b.feed(1, "c2s", "stdin", line({"jsonrpc": "2.0", "id": 1, "method": "m"}))
    row = only(b.feed(2, "s2c", "stdout", line({"jsonrpc": "2.0", "id": 1, "error": {"message": "x"}})))
    assert row["parse_status"] == "not-jsonrpc"
    assert row["kind"] == "error"
    assert row["answers_seq"] == 1
    assert row["method"] == "m"
    assert row["meta"] == {"problem": "error.code must be an integer"}


def test_empty_line_row() -> None:
    b = MessageBuilder(session_id=1)
    row = only(b.feed(1, "c2s", "stdin", b"\n"))
    assert row["parse_status"] == "empty"
    assert row["kind"] == "invalid"
    assert row["size"] == 1
    assert row["meta"] == {"problem": "empty line"}


# --- close ------------------------------------------------------------------------


def test_close_all_turns_partial_lines_into_no_newline_rows() -> None:
    b = MessageBuilder(session_id=1)
    b.feed(1, "c2s", "stdin", INIT.rstrip(b"\n"))
    b.feed(2, "s2c", "stderr", b"bye")
    b.feed(3, "s2c", "stdout", b"\n")  # complete, nothing pending
    rows = b.close_all(99)
    assert len(rows) == 2
    by_channel = {r["channel"]: r for r in rows}
    stdin = by_channel["stdin"]
    assert stdin["raw"] == INIT.rstrip(b"\n")
    assert stdin["kind"] == "request"
    assert stdin["method"] == "initialize"
    assert stdin["ts_ns"] == 99
    assert stdin["meta"] == {"flags": ["no-newline"]}
    assert by_channel["stderr"]["kind"] == "log"
    assert by_channel["stderr"]["meta"] == {"flags": ["no-newline"]}
    assert sorted(r["seq"] for r in rows) == [2, 3]  # seq 1 was the empty stdout line
    assert b.close_all(100) == []


def test_no_newline_flag_joins_existing_flags() -> None:
    b = MessageBuilder(session_id=1)
    b.feed(1, "s2c", "stdout", b'{"jsonrpc":"2.0","id":5,"result":{}}')
    row = only(b.close_stream(2, "s2c", "stdout"))
    assert row["meta"] == {"flags": ["orphan-response", "no-newline"]}


def test_no_newline_invalid_partial_keeps_problem() -> None:
    b = MessageBuilder(session_id=1)
    b.feed(1, "s2c", "stdout", b"{half")
    row = only(b.close_all(2))
    assert row["parse_status"] == "invalid-json"
    assert row["meta"]["flags"] == ["no-newline"]
    assert row["meta"]["problem"].startswith("not valid JSON")


def test_close_stream_of_unknown_stream() -> None:
    b = MessageBuilder(session_id=1)
    assert b.close_stream(1, "c2s", "stdin") == []
    assert b.seq == 0


def test_stream_can_reopen_after_close() -> None:
    b = MessageBuilder(session_id=1)
    b.feed(1, "c2s", "stdin", b"abc")
    b.close_stream(2, "c2s", "stdin")
    row = only(b.feed(3, "c2s", "stdin", b"def\n"))
    assert row["raw"] == b"def\n"
    assert row["seq"] == 2


# --- facts ------------------------------------------------------------------------


def test_facts_changed_by_initialize_exchange() -> None:
    b = MessageBuilder(session_id=1)
    assert b.facts_changed is False
    b.feed(1, "s2c", "stderr", b"log\n")
    b.feed(1, "c2s", "stdin", line({"jsonrpc": "2.0", "method": "notifications/x"}))
    assert b.facts_changed is False
    b.feed(2, "c2s", "stdin", INIT)
    assert b.facts_changed is True
    assert b.facts.offered_version == "2025-11-25"
    b.facts_changed = False
    b.feed(3, "s2c", "stdout", INIT_RESULT)
    assert b.facts_changed is True
    assert b.facts.protocol_version == "2025-11-25"
    assert b.facts.server_info == {"name": "s", "version": "2"}
    b.facts_changed = False
    b.feed(4, "c2s", "stdin", line({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
    assert b.facts_changed is False


def test_invalid_lines_do_not_touch_facts() -> None:
    b = MessageBuilder(session_id=1)
    b.feed(1, "c2s", "stdin", b"{bad\n")
    assert b.facts_changed is False


# --- already-framed messages ------------------------------------------------------


def test_message_with_http_metadata() -> None:
    b = MessageBuilder(session_id=1)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    row = b.message(
        5, "c2s", "http-request", body, http_method="POST", http_path="/mcp", http_headers={"a": "b"}
    )
    assert tuple(row) == ROW_COLUMNS
    assert row["seq"] == 1
    assert row["raw"] == body
    assert row["kind"] == "request"
    assert (row["http_method"], row["http_path"], row["http_headers"]) == ("POST", "/mcp", {"a": "b"})
    assert row["meta"] is None  # crlf only on stdio lines
    resp = b.message(
        8, "s2c", "sse", json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}}).encode(), sse_event_id="e1"
    )
    assert resp["answers_seq"] == 1
    assert resp["latency_ns"] == 3
    assert resp["sse_event_id"] == "e1"
    assert resp["seq"] == 2


def test_the_json_columns_the_reader_decodes_are_those_whose_types_are_checked() -> None:
    # `store.db` decodes `JSON_COLUMNS` as it reads; an import and the API check `JSON_COLUMN_TYPES`
    # (kept apart so that reading loads no validation metadata): one list of columns, in one order.
    from inspector.store.column_types import JSON_COLUMN_SHAPES, JSON_COLUMN_TYPES
    from inspector.store.models import JSON_COLUMNS, STORED_COLUMNS, column_names

    assert tuple(JSON_COLUMN_TYPES) == tuple(JSON_COLUMN_SHAPES) == JSON_COLUMNS
    assert set(JSON_COLUMNS) <= set(STORED_COLUMNS) | set(column_names(Session))
