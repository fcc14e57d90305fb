"""JSON-RPC classification: every body gets a kind and a parse status, nothing raises."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.protocol.jsonrpc import Classified, Kind, ParseStatus, classify, classify_value, id_key


def c(obj: object) -> Classified:
    """Classify the JSON text of `obj` (through the bytes path)."""
    return classify(json.dumps(obj).encode())


# --- the good kinds ---------------------------------------------------------------


def test_request() -> None:
    msg = classify(b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}')
    assert msg.parse_status is ParseStatus.OK
    assert msg.kind is Kind.REQUEST
    assert msg.method == "tools/list"
    assert msg.rpc_id == "1"
    assert msg.error_code is None
    assert msg.problem is None
    assert msg.params == {"cursor": "x"}
    assert msg.payload["params"] == {"cursor": "x"}


def test_request_with_string_id() -> None:
    msg = c({"jsonrpc": "2.0", "id": "abc", "method": "ping"})
    assert msg.kind is Kind.REQUEST
    assert msg.rpc_id == '"abc"'


def test_request_without_params_has_empty_params() -> None:
    msg = c({"jsonrpc": "2.0", "id": 7, "method": "ping"})
    assert msg.kind is Kind.REQUEST
    assert msg.params == {}
    assert msg.result == {}


def test_params_that_are_not_an_object_read_as_empty() -> None:
    msg = c({"jsonrpc": "2.0", "id": 7, "method": "x", "params": [1, 2]})
    assert msg.kind is Kind.REQUEST
    assert msg.params == {}


def test_notification() -> None:
    msg = c({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert msg.parse_status is ParseStatus.OK
    assert msg.kind is Kind.NOTIFICATION
    assert msg.method == "notifications/initialized"
    assert msg.rpc_id is None


def test_response() -> None:
    msg = c({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
    assert msg.parse_status is ParseStatus.OK
    assert msg.kind is Kind.RESPONSE
    assert msg.rpc_id == "1"
    assert msg.method is None
    assert msg.result == {"tools": []}


def test_response_with_non_object_result() -> None:
    msg = c({"jsonrpc": "2.0", "id": 1, "result": 5})
    assert msg.kind is Kind.RESPONSE
    assert msg.result == {}


def test_error_response_has_code() -> None:
    msg = c({"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "Method not found"}})
    assert msg.parse_status is ParseStatus.OK
    assert msg.kind is Kind.ERROR
    assert msg.error_code == -32601
    assert msg.rpc_id == "3"
    assert msg.problem is None


def test_error_response_with_null_id() -> None:
    msg = c({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
    assert msg.parse_status is ParseStatus.OK
    assert msg.kind is Kind.ERROR
    assert msg.rpc_id == "null"
    assert msg.error_code == -32700


def test_error_response_without_id_is_flagged() -> None:
    msg = c({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}})
    assert msg.parse_status is ParseStatus.NOT_JSONRPC
    assert msg.problem


@pytest.mark.parametrize("error", [{"message": "no code"}, {"code": "x"}, {"code": True}, "boom", None])
def test_error_without_integer_code_is_flagged(error: object) -> None:
    msg = c({"jsonrpc": "2.0", "id": 3, "error": error})
    assert msg.kind is Kind.ERROR
    assert msg.parse_status is ParseStatus.NOT_JSONRPC
    assert msg.error_code is None
    assert msg.rpc_id == "3"
    assert msg.problem


def test_surrounding_whitespace_is_allowed() -> None:
    msg = classify(b'  \t{"jsonrpc":"2.0","method":"x"}  ')
    assert msg.kind is Kind.NOTIFICATION


def test_classify_keeps_the_parsed_payload() -> None:
    obj = {"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"a": [1, {"b": None}]}}
    assert c(obj).payload == obj


# --- batches ----------------------------------------------------------------------


def test_batch_items_classified_individually() -> None:
    msg = c(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/x"},
            {"jsonrpc": "2.0", "id": 2, "result": {}},
            {"jsonrpc": "2.0", "id": 3, "error": {"code": -1, "message": "m"}},
            {"foo": 1},
            5,
        ]
    )
    assert msg.parse_status is ParseStatus.OK
    assert msg.kind is Kind.BATCH
    kinds = [item.kind for item in msg.items]
    assert kinds == [Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.ERROR, Kind.INVALID, Kind.INVALID]
    assert [item.rpc_id for item in msg.items] == ["1", None, "2", "3", None, None]
    assert msg.items[3].error_code == -1
    assert msg.items[4].parse_status is ParseStatus.NOT_JSONRPC
    assert msg.items[5].parse_status is ParseStatus.NOT_JSONRPC
    assert msg.method is None
    assert msg.rpc_id is None


def test_empty_batch_is_invalid() -> None:
    msg = classify(b"[]")
    assert msg.kind is Kind.INVALID
    assert msg.parse_status is ParseStatus.NOT_JSONRPC
    assert msg.problem == "empty batch"
    assert msg.items == []


def test_nested_batch_item_is_invalid() -> None:
    msg = c([[{"jsonrpc": "2.0", "method": "x"}]])
    assert msg.kind is Kind.BATCH
    assert msg.items[0].kind is Kind.INVALID


def test_array_of_numbers_is_a_batch_of_invalid_items() -> None:
    msg = classify(b"[1,2,3]")
    assert msg.kind is Kind.BATCH
    assert len(msg.items) == 3
    assert all(item.kind is Kind.INVALID for item in msg.items)
    assert all(item.parse_status is ParseStatus.NOT_JSONRPC for item in msg.items)


# --- bad bytes --------------------------------------------------------------------


@pytest.mark.parametrize("body", [b"{", b'{"jsonrpc":"2.0",}', b"nope", b"NaN", b'{"a":1}{"b":2}', b"\x00"])
def test_invalid_json(body: bytes) -> None:
    msg = classify(body)
    assert msg.parse_status is ParseStatus.INVALID_JSON
    assert msg.kind is Kind.INVALID
    assert msg.problem and msg.problem.startswith("not valid JSON")
    assert msg.method is None and msg.rpc_id is None


@pytest.mark.parametrize(
    ("body", "offset"),
    [(b"\xff", 0), (b'{"a":"\xff"}', 6), (b'{"jsonrpc":"2.0","method":"\xc3"}', 27), (b"\xed\xa0\x80", 0)],
)
def test_invalid_utf8(body: bytes, offset: int) -> None:
    msg = classify(body)
    assert msg.parse_status is ParseStatus.INVALID_UTF8
    assert msg.kind is Kind.INVALID
    assert msg.problem == f"not valid UTF-8 at byte {offset}"


def test_valid_multibyte_utf8_is_fine() -> None:
    msg = classify('{"jsonrpc":"2.0","id":"é","method":"ünï/😀"}'.encode())
    assert msg.kind is Kind.REQUEST
    assert msg.method == "ünï/😀"
    assert msg.rpc_id == '"é"'


@pytest.mark.parametrize("body", [b"", b" ", b"\t", b"   \t  ", b"\r", b"\n", b" \r\n "])
def test_empty_or_whitespace_line(body: bytes) -> None:
    msg = classify(body)
    assert msg.parse_status is ParseStatus.EMPTY
    assert msg.kind is Kind.INVALID
    assert msg.problem == "empty line"


# --- JSON that is not JSON-RPC ----------------------------------------------------

NOT_JSONRPC = {
    "number": 42,
    "string": "hello",
    "null": None,
    "true": True,
    "missing jsonrpc": {"id": 1, "method": "ping"},
    "wrong version": {"jsonrpc": "1.0", "id": 1, "method": "ping"},
    "version as number": {"jsonrpc": 2.0, "id": 1, "method": "ping"},
    "bool id": {"jsonrpc": "2.0", "id": True, "method": "ping"},
    "false id": {"jsonrpc": "2.0", "id": False, "result": {}},
    "object id": {"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"},
    "array id": {"jsonrpc": "2.0", "id": [1], "method": "ping"},
    "method not a string": {"jsonrpc": "2.0", "id": 1, "method": 5},
    "method is object": {"jsonrpc": "2.0", "method": {"x": 1}},
    "method and result": {"jsonrpc": "2.0", "id": 1, "method": "ping", "result": {}},
    "method and error": {"jsonrpc": "2.0", "id": 1, "method": "ping", "error": {"code": 1, "message": ""}},
    "result and error": {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": ""}},
    "response without id": {"jsonrpc": "2.0", "result": {}},
    "nothing": {"jsonrpc": "2.0", "id": 1},
    "empty object": {},
}


@pytest.mark.parametrize("value", NOT_JSONRPC.values(), ids=NOT_JSONRPC.keys())
def test_json_that_is_not_jsonrpc(value: object) -> None:
    for msg in (classify(json.dumps(value).encode()), classify_value(value)):
        assert msg.parse_status is ParseStatus.NOT_JSONRPC
        assert msg.kind is Kind.INVALID
        assert msg.problem
        assert msg.rpc_id is None
        assert msg.method is None
        assert msg.payload == value


def test_problem_texts_name_the_fault() -> None:
    assert "jsonrpc" in (c({"id": 1, "method": "x"}).problem or "")
    assert "id" in (c({"jsonrpc": "2.0", "id": True, "method": "x"}).problem or "")
    assert "method" in (c({"jsonrpc": "2.0", "id": 1, "method": 1}).problem or "")
    assert "both" in (c({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {}}).problem or "")
    assert "id" in (c({"jsonrpc": "2.0", "result": {}}).problem or "")
    assert "not a JSON-RPC object" in (c(42).problem or "")


@pytest.mark.parametrize(
    ("value", "json_type"), [(42, "number"), ("s", "string"), (None, "null"), (True, "boolean")]
)
def test_problem_for_a_non_object_names_the_json_type(value: object, json_type: str) -> None:
    problem = c(value).problem or ""
    assert f"a JSON {json_type}," in problem


# --- ids --------------------------------------------------------------------------


def test_int_and_string_ids_with_same_text_differ() -> None:
    a = c({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    b = c({"jsonrpc": "2.0", "id": "1", "method": "ping"})
    assert a.rpc_id == "1"
    assert b.rpc_id == '"1"'
    assert a.rpc_id != b.rpc_id


def test_id_key_is_canonical_json() -> None:
    assert id_key(1) == "1"
    assert id_key("1") == '"1"'
    assert id_key(None) == "null"
    assert id_key(-5) == "-5"
    assert id_key('a"b') == '"a\\"b"'
    assert id_key("é") == '"é"'


def test_id_is_canonical_regardless_of_whitespace() -> None:
    a = classify(b'{"jsonrpc":"2.0","id":  "x" ,"method":"m"}')
    b = classify(b'{"jsonrpc":"2.0","id":"x","method":"m"}')
    assert a.rpc_id == b.rpc_id == '"x"'


def test_large_64bit_integer_ids_are_kept_exactly() -> None:
    assert c({"jsonrpc": "2.0", "id": 2**63 - 1, "method": "m"}).rpc_id == str(2**63 - 1)
    assert c({"jsonrpc": "2.0", "id": -(2**63), "method": "m"}).rpc_id == str(-(2**63))


def test_integer_id_beyond_64_bits_is_a_request() -> None:
    msg = classify(b'{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}')
    assert msg.kind is Kind.REQUEST
    assert msg.rpc_id == "18446744073709551616"


def test_fractional_number_id_is_still_an_id() -> None:
    # JSON-RPC 2.0: an id is a String, Number or Null; fractional parts are only discouraged.
    msg = c({"jsonrpc": "2.0", "id": 1.5, "method": "ping"})
    assert msg.kind is Kind.REQUEST and msg.rpc_id == "1.5"


def test_zero_and_negative_ids() -> None:
    assert c({"jsonrpc": "2.0", "id": 0, "method": "m"}).rpc_id == "0"
    assert c({"jsonrpc": "2.0", "id": -1, "result": {}}).rpc_id == "-1"
    assert c({"jsonrpc": "2.0", "id": "", "method": "m"}).rpc_id == '""'


def test_null_id_request_keeps_null_text() -> None:
    msg = c({"jsonrpc": "2.0", "id": None, "method": "m"})
    assert msg.kind is Kind.REQUEST
    assert msg.rpc_id == "null"


def test_classify_value_on_parsed_objects() -> None:
    assert classify_value({"jsonrpc": "2.0", "id": 1, "method": "m"}).kind is Kind.REQUEST
    assert classify_value([{"jsonrpc": "2.0", "method": "m"}]).kind is Kind.BATCH
    assert classify_value([]).kind is Kind.INVALID


def test_enum_values_are_the_stored_strings() -> None:
    assert [s.value for s in ParseStatus] == [
        "ok",
        "empty",
        "invalid-utf8",
        "invalid-json",
        "not-jsonrpc",
        "truncated",
    ]
    assert {k.value for k in Kind} == {
        "request",
        "notification",
        "response",
        "error",
        "batch",
        "invalid",
        "http",
        "log",
    }


# --- property: classify never raises ---------------------------------------------


@settings(max_examples=300, deadline=None)
@given(body=st.binary(max_size=64))
def test_classify_never_raises_on_bytes(body: bytes) -> None:
    msg = classify(body)
    assert isinstance(msg.parse_status, ParseStatus)
    assert isinstance(msg.kind, Kind)
    if msg.parse_status is not ParseStatus.OK:
        assert msg.problem


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)
_rpcish = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2]),
        "id": _json,
        "method": st.one_of(st.sampled_from(["ping", "tools/call"]), _json),
        "params": _json,
        "result": _json,
        "error": st.one_of(
            st.fixed_dictionaries({"code": st.integers(-33000, 0), "message": st.text()}), _json
        ),
    },
)


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(_rpcish, st.lists(_rpcish, max_size=3), _json))
def test_classify_value_invariants(value: object) -> None:
    msg = classify_value(value)
    assert msg == classify(json.dumps(value).encode())
    if msg.kind is Kind.REQUEST:
        assert msg.parse_status is ParseStatus.OK
        assert isinstance(msg.method, str) and msg.rpc_id is not None
    if msg.kind is Kind.NOTIFICATION:
        assert isinstance(msg.method, str) and msg.rpc_id is None
    if msg.kind is Kind.RESPONSE:
        assert msg.rpc_id is not None and msg.method is None
    if msg.kind is Kind.BATCH:
        assert isinstance(value, list) and len(msg.items) == len(value)
    if msg.parse_status is ParseStatus.OK and msg.kind is not Kind.BATCH:
        assert isinstance(value, dict) and value.get("jsonrpc") == "2.0"
        if msg.rpc_id is not None:
            assert msg.rpc_id == id_key(value["id"])
