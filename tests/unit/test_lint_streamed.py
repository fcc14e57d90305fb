"""Issue 21: a stored session is linted as a stream (`lint.stored.lint_rows`: the look-ahead facts
from a few queries, then the rows page by page through `check.Linter`); it finds exactly what
`check_rows` finds over the whole list, whatever the page size."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from inspector.capture.sessions import create_session
from inspector.lint import check_rows, lint_session
from inspector.lint.stored import lint_rows
from inspector.store import SessionWriter, open_engine
from inspector.store.queries import iter_rows
from tests.lint_recordings import Stdio, notification, request, result
from tests.unit.test_lint_rules import CASES


def _stored(db: Path, rows: list[dict[str, Any]], name: str) -> int:
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["server"], name=name)
    rows = copy.deepcopy(rows)
    for row in rows:
        row["session_id"] = sid
    SessionWriter(engine, sid).on_batch(rows, None)
    engine.dispose()
    return sid


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_every_rule_case_streamed_as_in_a_list(tmp_path: Path, rule_id: str) -> None:
    rows, seq = CASES[rule_id]()
    sid = _stored(tmp_path / "c.db", rows, rule_id)
    engine = open_engine(tmp_path / "c.db")
    whole = check_rows(list(iter_rows(engine, sid)))
    assert (rule_id, seq) in {(f.rule, f.seq) for f in whole} or rule_id == "revision-unknown"
    for page in (1, 2, 7):
        assert list(lint_rows(engine, sid, page=page)) == whole


def test_findings_across_page_boundaries(tmp_path: Path) -> None:
    """A request in one page, its answer in the next: the pairing rules see both (pages of one row),
    and the flagged messages and the counts are written once each."""
    s = Stdio().handshake(server={"tools": {}})
    for i in range(1, 40):
        s.send("c2s", request(i, "tools/list"))
        s.send("s2c", result(i, {"tools": []}))
    dup = s.send("c2s", request(5, "tools/list"))  # id 5 again: duplicate-request-id
    s.send("s2c", result(5, {"tools": []}))
    orphan = s.send("s2c", result(99, {"tools": []}))  # answers nothing: unknown-response-id
    undeclared = s.send("c2s", request(100, "prompts/list"))  # server-capability-not-declared
    changed = s.send("s2c", notification("notifications/tools/list_changed"))  # not declared
    db = tmp_path / "p.db"
    sid = _stored(db, s.rows, "pages")
    engine = open_engine(db)
    expected = {
        ("duplicate-request-id", dup),
        ("unknown-response-id", orphan),
        ("server-capability-not-declared", undeclared),
        ("list-changed-not-declared", changed),
    }
    for page in (1, 2, 3, 2000):
        found = list(lint_rows(engine, sid, page=page))
        assert {(f.rule, f.seq) for f in found} == expected
    stored = lint_session(engine, sid)
    assert {(f.rule, f.seq) for f in stored} == expected
    flagged = {r["seq"]: r["lint"] for r in iter_rows(engine, sid) if r["lint"]}
    assert sorted(flagged) == sorted(seq for _, seq in expected)
    assert flagged[dup] == [{"rule": "duplicate-request-id", "severity": "error"}]


def test_streamed_lint_on_postgresql(pg_url: str) -> None:
    """The look-ahead queries (JSON columns read as text, the method index) on PostgreSQL: every
    rule case stored there and linted as a stream finds what `check_rows` finds."""
    engine = open_engine(pg_url)
    try:
        for rule_id, build in sorted(CASES.items()):
            rows, _seq = build()
            sid = create_session(engine, kind="stdio-wrap", target=["server"], name=rule_id)
            rows = copy.deepcopy(rows)
            for row in rows:
                row["session_id"] = sid
            SessionWriter(engine, sid).on_batch(rows, None)
            whole = check_rows(list(iter_rows(engine, sid)))
            assert list(lint_rows(engine, sid, page=2)) == whole, rule_id
            assert lint_session(engine, sid) == whole, rule_id
    finally:
        engine.dispose()


def test_a_late_endpoint_event_is_seen_ahead(tmp_path: Path) -> None:
    """The legacy HTTP+SSE `endpoint` event changes how every earlier HTTP row is judged: the
    stored look-ahead (meta read as text) finds it even as the session's last row."""
    rows, _seq = CASES["routing-header-mismatch"]()
    last = copy.deepcopy(rows[-1])
    last.update(
        seq=max(r["seq"] for r in rows) + 1,
        direction="s2c",
        channel="sse",
        kind="http",
        method=None,
        rpc_id=None,
        answers_seq=None,
        raw=b"event: endpoint\ndata: /messages?session=1\n\n",
        meta={"event": "endpoint"},
    )
    db = tmp_path / "sse.db"
    sid = _stored(db, [*rows, last], "legacy")
    engine = open_engine(db)
    whole = check_rows(list(iter_rows(engine, sid)))
    assert "feature-deprecated" in {f.rule for f in whole}  # told once: the HTTP+SSE transport
    assert list(lint_rows(engine, sid, page=1)) == whole
