"""Made-up sessions for the lint: every mix of the pieces a rule reads.

`sessions()` draws stdio sessions from handshakes of every revision or none, repeated and orphan
ids, valid and broken shapes, per-request versions, undeclared capabilities, batches, stderr lines
and bad bytes. `tests/lint_golden.py` keeps a fixed draw of them with their findings (the golden
file `lint_golden/made_up.json`); here any draw is linted through every way the store feeds the
linter (dict rows, the cursor's tuples one by one and in pages): the same findings, no exception."""

from __future__ import annotations

import copy
import typing
from collections.abc import Sequence
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.lint.check import Linter, check_rows
from inspector.lint.findings import Finding
from inspector.lint.scan import SessionScan
from inspector.lint.stored import _JSON_NAMES, _READ_NAMES, _row_of
from inspector.store.models import StoredRow
from tests.lint_recordings import Stdio, initialize, initialized_result, notification, request, result


def _big_text() -> str:
    return "x" * 600  # a result above shapes.MEMO_FROM_BYTES


_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01"]
_CAPS = st.fixed_dictionaries(
    {},
    optional={
        "tools": st.sampled_from([{}, {"listChanged": True}]),
        "logging": st.just({}),
        "resources": st.sampled_from([{}, {"subscribe": True}]),
        "prompts": st.just({}),
        "sampling": st.sampled_from([{}, {"tools": {}}]),
        "roots": st.sampled_from([{}, {"listChanged": True}]),
    },
)
_ID = st.integers(min_value=0, max_value=6)
_REQUEST_METHODS = [
    "tools/call",
    "tools/list",
    "prompts/list",
    "resources/read",
    "resources/subscribe",
    "ping",
    "logging/setLevel",
    "initialize",
    "tasks/get",
    "acme/frobnicate",
    "completion/complete",
    "notifications/progress",
]
_PARAMS = st.sampled_from(
    [
        None,
        {},
        {"name": "echo", "arguments": {"message": "hi"}, "_meta": {"progressToken": 3}},
        {"name": 5},
        {"uri": "file:///a"},
        {"level": "info"},
        {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
        {"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-06-18"}},
        {"cursor": "c"},
    ]
)
_RESULTS = st.sampled_from(
    [
        {},
        {"tools": []},
        {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]},
        {"content": [{"type": "text", "text": "hello"}], "isError": False},
        {"content": [{"type": "text", "text": _big_text()}]},
        {"content": "wrong"},
        {"prompts": []},
        {"contents": []},
        {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}},
    ]
)
_S2C_NOTES = [
    "notifications/progress",
    "notifications/message",
    "notifications/tools/list_changed",
    "notifications/resources/updated",
    "notifications/acme",
    "notifications/initialized",
]
_NOTE_PARAMS = st.sampled_from(
    [None, {}, {"progressToken": 1, "progress": 1, "total": 2}, {"level": "info", "data": "x"}, {"uri": 3}]
)
_RAW = st.sampled_from(
    [
        b"not json",
        b"[]",
        b"7",
        b'{"jsonrpc":"2.0","id":1.5,"result":{}}',
        b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":"s1","method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":2,"result":{},"error":{"code":1,"message":"m"}}',
        b'{"jsonrpc":"2.0","method":null,"id":3,"result":{}}',
        b'{"jsonrpc":"1.0","id":1,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":3,"method":"tools/list","result":{}}',
        b'[{"jsonrpc":"2.0","id":4,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/x"}]',
        b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}',
    ]
)

_OPS = st.one_of(
    st.tuples(st.just("req"), _ID, st.sampled_from(_REQUEST_METHODS), _PARAMS),
    st.tuples(st.just("res"), _ID, _RESULTS),
    st.tuples(st.just("err"), st.one_of(_ID, st.none()), st.sampled_from([-32602, -32601, -32002, -32001])),
    st.tuples(st.just("s2c-note"), st.sampled_from(_S2C_NOTES), _NOTE_PARAMS),
    st.tuples(st.just("c2s-note"), st.sampled_from(["notifications/initialized", "notifications/cancelled"])),
    st.tuples(st.just("s2c-req"), _ID, st.sampled_from(["sampling/createMessage", "roots/list", "ping"])),
    st.tuples(st.just("c2s-res"), _ID),
    st.tuples(st.just("stderr"), st.just(b"a log line")),
    st.tuples(st.just("raw"), st.sampled_from(["c2s", "s2c"]), _RAW),
)


@st.composite
def sessions(draw: st.DrawFn) -> list[dict[str, Any]]:
    s = Stdio()
    version = draw(st.sampled_from(_VERSIONS))
    start = draw(st.sampled_from(["full", "full", "full", "none", "no-initialized", "request-only"]))
    if start != "none":
        s.send("c2s", initialize(version, draw(_CAPS)))
    if start in ("full", "no-initialized"):
        answered = draw(st.sampled_from([version, version, "2025-03-26", "2030-01-01"]))
        s.send("s2c", initialized_result(answered, draw(_CAPS)))
    if start == "full":
        s.send("c2s", notification("notifications/initialized"))
    for op in draw(st.lists(_OPS, max_size=40)):
        name = op[0]
        if name == "req":
            s.send("c2s", request(op[1], op[2], op[3]))
        elif name == "res":
            s.send("s2c", result(op[1], op[2]))
        elif name == "err":
            s.send(
                "s2c",
                {"jsonrpc": "2.0", "id": op[1], "error": {"code": op[2], "message": "unsupported header"}},
            )
        elif name == "s2c-note":
            s.send("s2c", notification(op[1], op[2]))
        elif name == "c2s-note":
            s.send("c2s", notification(op[1], {"requestId": 1}))
        elif name == "s2c-req":
            s.send("s2c", request(op[1], op[2], {"messages": [], "maxTokens": 5}))
        elif name == "c2s-res":
            s.send("c2s", result(op[1], {"roots": []}))
        elif name == "stderr":
            s.t += 1_000
            s.rows.extend(typing.cast(Any, s.builder.feed(s.t, "s2c", "stderr", op[1] + b"\n")))
        else:
            s.send(op[1], op[2])
    return s.rows


def as_values(row: Any) -> tuple[Any, ...]:
    """A row as the store's cursor gives it to `lint_rows` (`stored._value_pages`): a tuple of
    `_READ_NAMES`, the JSON columns as text."""
    return tuple(
        None if row.get(n) is None else orjson.dumps(row[n]).decode() if n in _JSON_NAMES else row[n]
        for n in _READ_NAMES
    )


def every_way(rows: Sequence[Any]) -> list[Finding]:
    """The findings of `rows` fed as dict rows (`check_rows`), as cursor tuples one at a time and in
    pages of 5 (`Linter.feed_page`, as `lint_rows` runs it): asserted equal."""
    found = check_rows(typing.cast(list[StoredRow], copy.deepcopy(list(rows))))
    stored: list[StoredRow] = copy.deepcopy(list(rows))
    values = [as_values(row) for row in stored]
    one = Linter(SessionScan.of_rows(stored))
    assert one.finish([f for v in values for f in one.feed_page([v], _row_of)]) == found
    paged = Linter(SessionScan.of_rows(stored))
    pages = [values[i : i + 5] for i in range(0, len(values), 5)]
    assert paged.finish([f for page in pages for f in paged.feed_page(page, _row_of)]) == found
    return found


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions())
def test_made_up_sessions_find_the_same_whichever_way_they_are_fed(rows: list[dict[str, Any]]) -> None:
    every_way(rows)
