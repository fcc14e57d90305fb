"""Issue 21: the diff's input read in pages of plain records (`store.wire.wire`), and the
byte-identical fast path of the exchange comparison."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.replay.diff import diff_sessions
from inspector.store import iter_messages, open_engine
from inspector.store.wire import wire
from tests.lint_recordings import Stdio, notification, request, result, store


def _session(db: Path, name: str, answers: list[Any]) -> int:
    s = Stdio().handshake(server={"tools": {}})
    for i, value in enumerate(answers, 1):
        s.send(
            "c2s",
            request(i, "tools/call", {"name": "t", "arguments": {"i": i}, "_meta": {"progressToken": i}}),
        )
        s.send("s2c", notification("notifications/progress", {"progressToken": i, "progress": 1}))
        s.send(
            "s2c", result(i, {"content": [{"type": "text", "text": "x"}], "structuredContent": {"v": value}})
        )
    return store(db, s, name=name)


def test_paged_wire_diffs_as_the_orm_read(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    a = _session(db, "a", [1, 2, 3, 4, 5, 6])
    # True is not 1, 2.5 is not 2, "4" is not 4: each a change, byte-level identity is never loose.
    b = _session(db, "b", [True, 2.5, 3, "4", 5, 6])
    engine = open_engine(db)
    expected = diff_sessions(list(iter_messages(engine, a)), list(iter_messages(engine, b))).to_json()
    for page in (1, 2, 5000):
        assert diff_sessions(wire(engine, a, page=page), wire(engine, b, page=page)).to_json() == expected
    changed = [x for x in expected["exchanges"] if x["status"] == "changed"]
    assert [c["changes"][0]["after"] for c in changed] == [True, 2.5, "4"]
    assert expected["counts"]["equal"] == 5  # initialize, notifications/initialized, calls 3, 5, 6
