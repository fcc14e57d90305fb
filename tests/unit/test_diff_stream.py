"""Issue 21: the streamed diff (`diff_sessions` reading `store.wire.StoredMessages`) writes the report the
whole-list diff wrote, lists only what differs with `keep_equal=False`, and holds flat memory."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

from inspector.replay.diff import diff_sessions, render_text
from inspector.store import iter_messages, open_engine
from inspector.store.wire import StoredMessages, wire
from tests.lint_recordings import Stdio, notification, request, result, store


def _session(db: Path | str, name: str, answers: list[Any], *, skip: frozenset[int] = frozenset()) -> int:
    return store(db, _recorded(answers, skip=skip), name=name)


def _recorded(answers: list[Any], *, skip: frozenset[int] = frozenset()) -> Stdio:
    s = Stdio().handshake(server={"tools": {}})
    for i, value in enumerate(answers, 1):
        if i in skip:
            continue
        s.send("c2s", request(i, "tools/call", {"name": "t", "arguments": {"i": i % 7}}))
        s.send("s2c", notification("notifications/message", {"level": "info", "data": f"log {i % 5}"}))
        s.send(
            "s2c", result(i, {"content": [{"type": "text", "text": "x"}], "structuredContent": {"v": value}})
        )
    return s


def test_streamed_report_is_the_listed_one(any_store: Path | str) -> None:
    db = any_store
    n = 300
    a = _session(db, "a", list(range(n)), skip=frozenset({40}))
    # Changed answers, a call only in the replay (an extra) and one only in the original (missing).
    b = _session(db, "b", [v if v % 50 else -v for v in range(n)], skip=frozenset({7, 200}))
    engine = open_engine(db)
    # The ORM's records (another reader), whole lists: the report as it always was.
    listed = diff_sessions(list(iter_messages(engine, a)), list(iter_messages(engine, b)))
    assert diff_sessions(wire(engine, a), wire(engine, b)).to_json() == listed.to_json()
    streamed = diff_sessions(StoredMessages(engine, a, page=7), StoredMessages(engine, b, page=7))
    assert streamed.to_json() == listed.to_json()
    counts = listed.counts()
    assert counts["changed"] > 0 and counts["missing"] > 0 and counts["extra"] > 0
    short = diff_sessions(StoredMessages(engine, a), StoredMessages(engine, b), keep_equal=False)
    assert short.counts() == counts
    assert [x.to_json() for x in short.exchanges] == [
        x for x in listed.to_json()["exchanges"] if x["status"] != "equal"
    ]
    assert render_text(short) == render_text(listed)
    assert short.changed and short.exit_status == listed.exit_status


def _peak(engine: Any, a: int, b: int) -> int:
    tracemalloc.start()
    try:
        diff_sessions(StoredMessages(engine, a), StoredMessages(engine, b), keep_equal=False)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_is_flat_in_session_length(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    engine = open_engine(db)
    # Two equal sessions of each length, each built once and stored twice.
    small_rows, large_rows = _recorded(list(range(1000))), _recorded(list(range(6000)))
    small = [store(db, small_rows, name=f"s{k}") for k in "ab"]
    large = [store(db, large_rows, name=f"l{k}") for k in "ab"]
    _peak(engine, *small)  # warm the caches (compiled statements, path automaton)
    p_small, p_large = _peak(engine, *small), _peak(engine, *large)
    # Six times the exchanges: a few bytes each (the replay's partner index) and no more.
    assert p_large < p_small * 1.5, (p_small, p_large)
