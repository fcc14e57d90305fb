"""Issue 21, issue 35: the lint's common rows (a client request, a server notification, the
server's result, a stderr line, once the handshake is over) are asked only what can be said about
them (`lint.check.Linter._run`), and give the findings written down for them.

Findings are compared with what the rules say (golden files, the spec cases of
`test_lint_rules`) and checked equal whichever way the rows are fed (`every_way`: dict rows, the
store's cursor tuples one by one and in pages); `Linter.general` counts the rows every check read."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp_types import methods
from pydantic import ValidationError

from bench.scale_lint import generate_session
from inspector.capture.sessions import create_session
from inspector.lint.check import Linter, check_rows
from inspector.lint.findings import Finding
from inspector.lint.scan import SessionScan
from inspector.lint.shapes import _PARAMS_ONLY, describe_errors, frame_hits
from inspector.lint.stored import _row_of, lint_rows
from inspector.protocol import Kind
from inspector.store import SessionWriter, open_engine
from inspector.store.models import StoredRow
from inspector.store.queries import iter_rows
from tests.lint_golden import load
from tests.lint_recordings import Stdio, notification, request, result
from tests.unit.test_lint_made_up import as_values, every_way
from tests.unit.test_lint_rules import CASES


def _same(rows: Sequence[Any]) -> tuple[list[Finding], int]:
    """The findings (equal every way the rows can be fed) and how many rows were read without
    every check (`Linter.general`: the others), fed as the store's cursor gives them, in pages."""
    found = every_way(rows)
    stored: list[StoredRow] = copy.deepcopy(list(rows))
    linter = Linter(SessionScan.of_rows(stored))
    values = [as_values(row) for row in stored]
    paged = linter.finish(
        [f for i in range(0, len(values), 5) for f in linter.feed_page(values[i : i + 5], _row_of)]
    )
    assert paged == found
    return found, len(rows) - linter.general


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_every_rule_case_gives_its_golden_findings_every_way(rule_id: str) -> None:
    rows, seq = CASES[rule_id]()
    found, _ = _same(rows)
    assert [f.to_json() for f in found] == load("rule_cases")[rule_id]["findings"]
    assert (rule_id, seq) in {(f.rule, f.seq) for f in found} or rule_id == "revision-unknown"


def test_the_benchmark_session_is_mostly_common_rows_with_its_golden_findings(tmp_path: Path) -> None:
    db = tmp_path / "b.db"
    sid = generate_session(db, 3_000, name="bench")
    engine = open_engine(db)
    try:
        rows = list(iter_rows(engine, sid))
        streamed = list(lint_rows(engine, sid, page=250))  # the cursor's tuples, several pages
    finally:
        engine.dispose()
    found, taken = _same(rows)
    assert streamed == found
    assert [f.to_json() for f in found] == load("bench")["bench-3000"]["findings"]
    rules = {f.rule for f in found}
    assert {"duplicate-request-id", "logging-not-declared"} <= rules
    assert taken > 0.95 * len(rows)  # nearly every row: asking only what can be said makes the lint fast


def test_a_session_long_after_its_handshake_is_mostly_common_rows() -> None:
    """After the handshake the common rows are not given to every check."""
    s = Stdio().handshake("2025-06-18", server={"tools": {}})
    for i in range(1, 200):
        s.send("c2s", request(i, "tools/call", {"name": "echo", "arguments": {"m": i}}))
        s.send("s2c", notification("notifications/progress", {"progressToken": i, "progress": 1}))
        s.send("s2c", result(i, {"content": [{"type": "text", "text": str(i)}]}))
    s.send("s2c", orjson.loads(b'{"jsonrpc":"2.0","id":999,"result":{"content":[]}}'))
    found, taken = _same(s.rows)
    assert [f.rule for f in found] == ["unknown-response-id"]
    assert taken >= len(s.rows) - 10


def test_an_answered_request_is_no_longer_the_one_a_null_id_error_could_answer() -> None:
    """A common result row drops the request it answers from the client's pending ones: an
    error with id null after it cannot name that request (only the revision's rule applies)."""
    s = Stdio().handshake("2025-06-18", server={"tools": {}})
    for i in range(1, 4):
        s.send("c2s", request(i, "tools/call", {"name": "echo", "arguments": {"m": i}}))
        s.send("s2c", result(i, {"content": [{"type": "text", "text": str(i)}]}))
    s.send("s2c", {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "bad"}})
    found, taken = _same(s.rows)
    assert [f.rule for f in found] == ["error-id-null-in-revision"]
    assert taken >= 5


def test_a_second_handshake_with_other_capabilities_is_checked_by_its_own() -> None:
    """What the checks remember per method (gate, params validator, capability hits) lasts only
    while the revision and the server's capabilities do: after a second handshake that declares
    logging, a log notification is no longer a finding, nor checked under the old revision."""
    s = Stdio().handshake("2025-06-18", server={"tools": {}})
    for i in range(1, 4):
        s.send("c2s", request(i, "tools/call", {"name": "echo", "arguments": {"m": i}}))
        s.send("s2c", notification("notifications/message", {"level": "info", "data": i}))
        s.send("s2c", result(i, {"content": [{"type": "text", "text": str(i)}]}))
    s.handshake("2025-03-26", server={"tools": {}, "logging": {}})
    for i in range(4, 7):
        s.send("c2s", request(i, "tools/call", {"name": "echo", "arguments": {"m": i}}))
        s.send("s2c", notification("notifications/message", {"level": "info", "data": i}))
        s.send("s2c", result(i, {"content": [{"type": "text", "text": str(i)}]}))
    found, taken = _same(s.rows)
    second = s.rows[14]["seq"]  # the second notifications/initialized
    assert [f.seq for f in found if f.rule == "logging-not-declared"] == [5, 8, 11]
    assert {f.revision for f in found if f.seq > second} <= {"2025-03-26"}
    assert taken >= 12


def test_stored_large_bodies_are_read_whole_by_the_tuple_path(any_store: Path | str) -> None:
    """`lint_rows` reads rows as cursor tuples and puts a large body (kept in `blob`, a head in
    `raw`) back into the tuple: a shape error at the end of a 5 KB result is found, as
    `check_rows` finds it over the whole rows, on either store."""
    s = Stdio().handshake("2025-06-18", server={"tools": {}})
    for i in range(1, 40):
        s.send("c2s", request(i, "tools/call", {"name": "echo", "arguments": {"m": i}}))
        text = ("y" * 5000) if i % 3 == 0 else str(i)
        broken: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": {"x": 1}}
        s.send("s2c", result(i, broken if i % 6 == 0 else {"content": [{"type": "text", "text": text}]}))
    engine = open_engine(any_store)
    try:
        sid = create_session(engine, kind="stdio-wrap", target=["server"], name="large")
        rows = copy.deepcopy(s.rows)
        for row in rows:
            row["session_id"] = sid
        SessionWriter(engine, sid).on_batch(rows, None)
        stored = list(iter_rows(engine, sid))
        assert sum(1 for r in stored if r.get("body_sha256")) >= 10  # kept in `blob`
        whole = check_rows(stored)
        for page in (7, 2000):
            assert list(lint_rows(engine, sid, page=page)) == whole
    finally:
        engine.dispose()
    broken_at = {f.seq for f in whole if f.rule == "invalid-shape"}
    assert len(broken_at) == 6


def _whole_frame(kind: Kind, method: str, payload: Any, revision: str, direction: str) -> tuple[Any, ...]:
    """What `frame_hits` found before it validated params alone: the whole frame, every time."""
    table = (
        (methods.CLIENT_REQUESTS if direction == "c2s" else methods.SERVER_REQUESTS)
        if kind is Kind.REQUEST
        else (methods.CLIENT_NOTIFICATIONS if direction == "c2s" else methods.SERVER_NOTIFICATIONS)
    )
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if kind is Kind.REQUEST:
        body["id"] = 0
    if isinstance(payload, dict) and "params" in payload:
        body["params"] = payload["params"]
    try:
        table[(method, revision)].model_validate(body, by_name=False)
    except ValidationError as exc:
        return (("invalid-shape", f"{method} ({revision}): {describe_errors(exc)}"),)
    return ()


_FRAME_PARAMS: list[Any] = [
    {},
    None,
    5,
    "x",
    [],
    {"name": "echo", "arguments": {"m": 1}, "_meta": {"progressToken": 3}},
    {"name": 5},
    {"uri": "file:///a"},
    {"uri": 3},
    {"level": "info", "data": "x"},
    {"level": "loud"},
    {"progressToken": 1, "progress": 1, "total": 2},
    {"progressToken": None, "progress": "x"},
    {"requestId": 1},
    {"cursor": "c"},
    {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "v"}},
    {"messages": [], "maxTokens": 5},
    {"_meta": {"progressToken": 1}},
]


def test_frames_validated_by_their_params_alone_find_what_the_whole_frame_finds() -> None:
    """`shapes.frame_hits` validates only the params once a frame of that method passed (and its
    model has nothing but fields): for every method and revision, valid and broken params, the
    same findings as validating the whole frame each time, in either order of arrival."""
    tables = [
        (Kind.REQUEST, "c2s", methods.CLIENT_REQUESTS),
        (Kind.REQUEST, "s2c", methods.SERVER_REQUESTS),
        (Kind.NOTIFICATION, "c2s", methods.CLIENT_NOTIFICATIONS),
        (Kind.NOTIFICATION, "s2c", methods.SERVER_NOTIFICATIONS),
    ]
    payloads = [{"params": p} for p in _FRAME_PARAMS] + [{}]
    shortcut = 0
    for kind, direction, table in tables:
        for method, revision in table:
            for ordered in (payloads, payloads[::-1]):
                _PARAMS_ONLY.clear()
                for payload in ordered:
                    want = _whole_frame(kind, method, payload, revision, direction)
                    assert frame_hits(kind, method, payload, revision, direction) == want, (method, payload)
                shortcut += _PARAMS_ONLY.get((kind, method, revision, direction)) is not None
    assert shortcut > 50  # most methods' frames take the shortcut once one has passed


def test_a_finding_as_json_is_every_field() -> None:
    """`Finding.to_json` writes its fields by hand (no `asdict` deep copy): the same dict."""
    import dataclasses

    f = Finding(7, 70, "error", "invalid-shape", "why", "Schema (https://x)", "2025-06-18")
    assert f.to_json() == dataclasses.asdict(f)
    assert list(f.to_json()) == [x.name for x in dataclasses.fields(Finding)]
