"""Rows the inspector intervened on (issue 17): pairing at record time, replay plan, diff, lint.

The rows come from the recorder's own builder (`MessageBuilder.message(..., meta=...)`, what
`Tap.submit_message` runs on the recording thread) fed with `tests.intervened.INTERVENED`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspector.capture import MessageBuilder
from inspector.lint.check import check_rows
from inspector.replay.diff import diff_sessions, render_text
from inspector.replay.plan import plan_replay
from inspector.store.interventions import describe, server_side
from inspector.store.models import Message
from tests.cli_in_process import run
from tests.intervened import INTERVENED, Line, _injected, _line, _mark


def _rows(lines: list[Line]) -> tuple[list[dict[str, Any]], MessageBuilder]:
    b = MessageBuilder(1)
    rows = []
    for i, (direction, raw, meta) in enumerate(lines):
        channel = "stdin" if direction == "c2s" else "stdout"
        extra = {"meta": meta} if meta else {}
        rows.append(b.message(1_000 + i * 1_000_000, direction, channel, raw, **extra))  # type: ignore[arg-type]
    return rows, b


def _messages(rows: list[dict[str, Any]]) -> list[Message]:
    return [Message(**r) for r in rows]


def _flags(row: dict[str, Any]) -> list[str]:
    return list((row["meta"] or {}).get("flags", []))


def test_the_copy_sent_instead_is_what_pairs() -> None:
    rows, b = _rows(INTERVENED)
    by = {r["seq"]: r for r in rows}
    # The edited copy (7) is what the server answered (8); it is no duplicate id, the original left.
    assert by[8]["answers_seq"] == 7
    assert "duplicate-id" not in _flags(by[7])
    # The injected error (11) answers the request the server's own answer (10) answered.
    assert by[10]["answers_seq"] == 9 and by[11]["answers_seq"] == 9
    assert "orphan-response" not in _flags(by[11]) and by[11]["method"] == "tools/call"
    assert by[11]["latency_ns"] == by[11]["ts_ns"] - by[9]["ts_ns"]
    # The inspector's own answer pairs with the request it answered; a dropped response still pairs.
    assert by[14]["answers_seq"] == 13 and by[16]["answers_seq"] == 15
    # Only the dropped request is left waiting (the server never saw it).
    assert [p.seq for p in b.correlator.unanswered()] == [12]


def test_without_marks_the_same_lines_pair_as_before() -> None:
    """The marks make the difference: stripped of them, the edit is a duplicate id and the
    replacement an orphan (so the test above can fail)."""
    rows, _ = _rows([(d, raw, None) for d, raw, _ in INTERVENED])
    by = {r["seq"]: r for r in rows}
    assert by[8]["answers_seq"] == 6 and "duplicate-id" in _flags(by[7])
    assert "orphan-response" in _flags(by[11])


def test_describe_names_the_action_and_who() -> None:
    assert describe(_mark(1, "delay", "rule:slow", True, delay_ms=200)) == "delayed 200 ms by rule slow"
    assert describe(_mark(4, "drop", "rule:b", False)) == "dropped by rule b (not delivered)"
    assert describe(_mark(5, "respond", "user", False)) == "answered by you (not delivered)"
    assert describe(_mark(7, "pause", "timeout", False)) == "held by timeout (not delivered)"
    assert describe(_injected(3, "replace", "rule:fail")) == "injected by rule fail (replace #3)"
    assert describe({"flags": ["x"]}) is None and describe(None) is None
    assert server_side("c2s", _injected(2, "edit", "user"))
    assert not server_side("c2s", _mark(2, "edit", "user", False))
    assert server_side("s2c", _mark(6, "drop", "rule:lose", False))
    assert not server_side("s2c", _injected(3, "replace", "rule:fail"))


def test_replay_plan_sends_what_the_server_received() -> None:
    rows, _ = _rows(INTERVENED)
    plan = plan_replay(_messages(rows))
    assert [s.seq for s in plan.steps] == [1, 3, 4, 7, 9, 15]
    assert json.loads(plan.steps[3].raw)["params"]["arguments"] == {"message": "edited"}
    # The server's own answers, not the injected error; the dropped response is still awaited.
    assert plan.responses["3"]["result"]["content"][0]["text"] == "Echo: x"
    assert sorted(plan.responses) == ["0", "1", "2", "3", "6"]
    assert plan.final_await == ["6"]


def _server_run() -> list[Message]:
    """What the server lived, recorded without interception: the replay of INTERVENED."""
    lines = [(d, raw, None) for d, raw, meta in INTERVENED if server_side(d, meta)]
    return _messages(_rows(lines)[0])


def test_diff_compares_the_servers_own_behaviour() -> None:
    rows, _ = _rows(INTERVENED)
    result = diff_sessions(_messages(rows), _server_run())
    assert not result.changed, render_text(result)
    marked = [(x.original_seq, x.interventions) for x in result.exchanges if x.interventions]
    assert marked == [
        (4, ["delayed 200 ms by rule slow"]),
        (7, ["injected by you (edit #2)"]),
        (9, ["replaced by rule fail (not delivered)"]),
        (15, ["dropped by rule lose (not delivered)"]),
    ]
    report = render_text(result)
    assert "intervened: replaced by rule fail (not delivered) (not the server)" in report
    assert "were intervened on when recorded" in report


def test_diff_still_sees_a_real_server_change() -> None:
    rows, _ = _rows(INTERVENED)
    changed = [
        (d, raw.replace(b"Echo: x", b"Echo: y"), None) for d, raw, meta in INTERVENED if server_side(d, meta)
    ]
    result = diff_sessions(_messages(rows), _messages(_rows(changed)[0]))
    changed_rows = [x for x in result.exchanges if x.status == "changed"]
    assert len(changed_rows) == 1 and changed_rows[0].interventions == [
        "replaced by rule fail (not delivered)"
    ]


def test_lint_does_not_blame_the_peers_for_interventions() -> None:
    lines = [
        *INTERVENED,
        ("c2s", _line({"jsonrpc": "2.0", "id": 7, "method": "ping"}), None),
        ("s2c", b'{"jsonrpc":"2.0","id":7,"resu\n', _injected(9, "truncate", "rule:cut")),
        ("s2c", _line({"jsonrpc": "2.0", "id": 99, "result": {}}), _injected(10, "duplicate", "rule:dup")),
    ]
    rows, _ = _rows(lines)
    for i, r in enumerate(rows):
        r["id"] = i + 1
    findings = check_rows(rows)  # type: ignore[arg-type]
    rules = {(f.seq, f.rule) for f in findings}
    assert not any(rule in ("duplicate-request-id", "unknown-response-id") for _, rule in rules), rules
    on_injected = [f for f in findings if f.seq == 18]
    assert on_injected and all(f.severity == "info" for f in on_injected)
    assert all(
        "injected by rule cut (truncate #9), not sent by the peer" in f.explanation for f in on_injected
    )
    # Unmarked, the same orphan answer is the server's fault.
    plain, _ = _rows([*[(d, raw, None) for d, raw, _ in lines]])
    for i, r in enumerate(plain):
        r["id"] = i + 1
    assert any(f.rule == "unknown-response-id" for f in check_rows(plain))  # type: ignore[arg-type]


def test_show_names_interventions_at_80_columns(tmp_path: Path) -> None:
    from tests.intervened import FACTS, record_lines

    db = tmp_path / "iv.db"
    sid = record_lines(db, INTERVENED)
    out = run("show", str(sid), "--db", str(db), env={"COLUMNS": "80"})
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert f"intercepted: seed {FACTS['seed']}, rules slow, fail, blackhole, lose" in out.stdout
    assert all(len(line) <= 80 for line in lines), lines
    dropped = next(line for line in lines if line.lstrip().startswith("12 "))
    assert "dropped by" in dropped  # cut at 80 columns, never wrapped
