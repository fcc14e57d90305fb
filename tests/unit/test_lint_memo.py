"""Issue 21 (lint under 1 s): a large result is validated once per identical body, but every
message that carries it still gets its own findings, stored or from a list, whatever the page."""

from __future__ import annotations

from pathlib import Path

from inspector.lint import check_rows
from inspector.lint.shapes import MEMO_FROM_BYTES, MEMO_SIZE
from inspector.lint.stored import lint_rows
from inspector.store import open_engine
from inspector.store.queries import iter_rows
from tests.lint_recordings import Stdio, request, result
from tests.unit.test_lint_streamed import _stored

_DESCRIPTION = "x" * MEMO_FROM_BYTES  # makes each tools/list answer long enough to be remembered
_GOOD = {"tools": [{"name": "echo", "description": _DESCRIPTION, "inputSchema": {"type": "object"}}]}
_BAD = {"tools": [{"name": "echo", "description": _DESCRIPTION}]}  # inputSchema is required


def test_a_repeated_bad_result_is_a_finding_on_every_message(tmp_path: Path) -> None:
    s = Stdio().handshake(server={"tools": {}})
    bad: list[int] = []
    for i in range(1, 31):
        s.send("c2s", request(i, "tools/list"))
        seq = s.send("s2c", result(i, _BAD if i % 3 == 0 else _GOOD))
        if i % 3 == 0:
            bad.append(seq)
    assert all(row["size"] >= MEMO_FROM_BYTES for row in s.rows if row["seq"] in bad)
    whole = check_rows(s.rows)
    shape = [f for f in whole if f.rule == "invalid-shape"]
    assert [f.seq for f in shape] == bad
    assert len({f.explanation for f in shape}) == 1 and "inputSchema" in shape[0].explanation
    sid = _stored(tmp_path / "m.db", s.rows, "memo")
    engine = open_engine(tmp_path / "m.db")
    stored = check_rows(list(iter_rows(engine, sid)))
    assert [(f.seq, f.rule, f.explanation) for f in stored] == [(f.seq, f.rule, f.explanation) for f in whole]
    for page in (1, 4):
        assert list(lint_rows(engine, sid, page=page)) == stored


def test_more_distinct_results_than_the_memo_holds(tmp_path: Path) -> None:
    """Past MEMO_SIZE distinct bodies the oldest are forgotten; a body seen again is checked again."""
    s = Stdio().handshake(server={"tools": {}})
    bad: list[int] = []
    n = MEMO_SIZE + 20
    for i in range(1, 2 * n + 1):
        body = _BAD if i % 2 == 0 else {"tools": [{**_GOOD["tools"][0], "name": f"t{i % n}"}]}
        s.send("c2s", request(i, "tools/list"))
        seq = s.send("s2c", result(i, body))
        if i % 2 == 0:
            bad.append(seq)
    assert [f.seq for f in check_rows(s.rows) if f.rule == "invalid-shape"] == bad
