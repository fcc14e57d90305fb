"""The intercept match language: table tests over real JSON-RPC lines."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from inspector.intercept import Match, Seen, Tracker, compile_where


def line(obj: Any) -> bytes:
    return json.dumps(obj).encode() + b"\n"


CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "echo", "arguments": {"message": "hi", "n": 5}},
}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
READ = {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "test://static/resource/1"}}
NOTE = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}
RESULT = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {"content": [{"type": "text", "text": "Echo: hi"}], "isError": False},
}
ERROR = {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "no"}}


def seen_all() -> dict[str, Seen]:
    t = Tracker()
    return {
        "call": Seen.of("c2s", line(CALL), t),
        "list": Seen.of("c2s", line(LIST), t),
        "read": Seen.of("c2s", line(READ), t),
        "note": Seen.of("s2c", line(NOTE), t),
        "result": Seen.of("s2c", line(RESULT), t),
        "error": Seen.of("s2c", line(ERROR), t),
        "junk": Seen.of("s2c", b"not json\n", t),
    }


CASES: list[tuple[dict[str, Any], set[str]]] = [
    ({}, {"call", "list", "read", "note", "result", "error"}),
    ({"direction": "c2s"}, {"call", "list", "read"}),
    ({"direction": "s2c"}, {"note", "result", "error"}),
    ({"kind": "request"}, {"call", "list", "read"}),
    ({"kind": ["response", "error"]}, {"result", "error"}),
    ({"kind": "notification"}, {"note"}),
    ({"method": "tools/call"}, {"call", "result"}),
    ({"method": "tools/*"}, {"call", "list", "result", "error"}),
    ({"method": ["resources/read", "notifications/*"]}, {"read", "note"}),
    ({"name": "echo"}, {"call", "result"}),
    ({"name": "test://static/*"}, {"read"}),
    ({"name": "add"}, set()),
    ({"where": 'params.arguments.message == "hi"'}, {"call"}),
    ({"where": 'params.arguments.message != "hi"'}, {"list", "read", "note", "result", "error"}),
    ({"where": "params.arguments.n > 3"}, {"call"}),
    ({"where": "params.arguments.n >= 5"}, {"call"}),
    ({"where": "params.arguments.n < 5"}, set()),
    ({"where": "params.arguments.n <= 5"}, {"call"}),
    ({"where": "result.isError == false"}, {"result"}),
    ({"where": "result.isError == 0"}, set()),  # false is not 0 in JSON
    ({"where": "error.code exists"}, {"error"}),
    ({"where": "error.code == -32601"}, {"error"}),
    ({"where": "params not exists"}, {"list", "result", "error"}),
    ({"where": 'params.name ~ "^ec"'}, {"call"}),
    ({"where": 'result.content[0].text ~ "Echo"'}, {"result"}),
    ({"where": ["params.arguments.n > 3", 'params.arguments.message == "no"']}, set()),
    ({"direction": "s2c", "kind": "response", "method": "tools/call", "name": "echo"}, {"result"}),
    ({"text": "ECHO: HI"}, {"result"}),
]


@pytest.mark.parametrize(("spec", "expected"), CASES, ids=[json.dumps(c[0]) for c in CASES])
def test_match_table(spec: dict[str, Any], expected: set[str]) -> None:
    m = Match.model_validate(spec)
    got = {k for k, s in seen_all().items() if m.matches(s)}
    assert got == expected


def test_seen_of_classifies_and_tracks_the_request() -> None:
    t = Tracker()
    call = Seen.of("c2s", line(CALL), t)
    assert (call.kind, call.method, call.name, call.rpc_id) == ("request", "tools/call", "echo", "1")
    assert call.terminator == b"\n" and call.body == line(CALL)[:-1]
    res = Seen.of("s2c", line(RESULT), t)
    assert (res.kind, res.method, res.name, res.rpc_id) == ("response", "tools/call", "echo", "1")
    # A response to a request the other direction never sent carries no method.
    stray = Seen.of("c2s", line(RESULT), t)
    assert stray.method is None
    # The same id in the other direction (a server request) is tracked apart.
    srv = Seen.of("s2c", line({"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage"}), t)
    ans = Seen.of("c2s", line({"jsonrpc": "2.0", "id": 1, "result": {}}), t)
    assert srv.method == ans.method == "sampling/createMessage"


def test_string_and_number_ids_differ() -> None:
    t = Tracker()
    Seen.of("c2s", line({"jsonrpc": "2.0", "id": "1", "method": "ping"}), t)
    assert Seen.of("s2c", line({"jsonrpc": "2.0", "id": 1, "result": {}}), t).method is None
    assert Seen.of("s2c", line({"jsonrpc": "2.0", "id": "1", "result": {}}), t).method == "ping"


def test_tracker_is_bounded() -> None:
    t = Tracker(limit=2)
    for i in range(3):
        Seen.of("c2s", line({"jsonrpc": "2.0", "id": i, "method": f"m{i}"}), t)
    assert Seen.of("s2c", line({"jsonrpc": "2.0", "id": 0, "result": {}}), t).method is None
    assert Seen.of("s2c", line({"jsonrpc": "2.0", "id": 2, "result": {}}), t).method == "m2"


def test_non_jsonrpc_bytes_match_nothing_but_batches_match_the_empty_filter() -> None:
    assert not Match().matches(Seen.of("s2c", b"{}\n"))
    assert not Match().matches(Seen.of("s2c", b"\n"))
    batch = Seen.of("c2s", line([LIST]))
    assert batch.kind == "batch" and Match().matches(batch)
    assert not Match(method=["tools/list"]).matches(batch)


@pytest.mark.parametrize(
    ("expr", "says"),
    [
        ("params.name = 'x'", "PATH OP VALUE"),
        ("params.name == echo", "not JSON"),
        ("params.name ~ 3", "regular expression in a JSON string"),
        ('params.name ~ "("', "not valid"),
        ("params.n > true", "compares numbers or strings"),
        ("== 3", "PATH OP VALUE"),
    ],
)
def test_bad_where_is_an_error_at_load(expr: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        compile_where(expr)
    with pytest.raises(ValidationError, match=says):
        Match(where=[expr])


def test_match_forbids_unknown_fields_and_kinds() -> None:
    with pytest.raises(ValidationError, match="methods"):
        Match.model_validate({"methods": ["x"]})
    with pytest.raises(ValidationError, match="kind"):
        Match.model_validate({"kind": "answer"})
    with pytest.raises(ValidationError, match="direction"):
        Match.model_validate({"direction": "up"})


def test_string_comparison_and_missing_paths() -> None:
    s = Seen.of("c2s", line(CALL))
    assert compile_where('params.name > "a"')(s.obj)
    assert not compile_where("params.name > 3")(s.obj)  # a string is not ordered against a number
    assert not compile_where("params.nope.deeper == null")(s.obj)
    assert compile_where("params.arguments[0] not exists")(s.obj)
