"""Issue 21 (second round): the diff's fast reader (`store.wire.StoredMessages`: the driver's rows, the
common row read straight through) writes the same report as the ORM's records read whole (the
full path), on varied sessions: progress, logs, stderr, errors, reused ids, changed, missing and
extra exchanges, interventions; and a report that lists only what differs gives each exchange the
index it has in the whole report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.scale_lint import generate_session
from inspector.replay.diff import DEFAULT_IGNORE, PathSet, diff_sessions, render_text
from inspector.store import iter_messages, open_engine
from inspector.store.wire import StoredMessages
from tests.intervened import INTERVENED, record_lines
from tests.lint_recordings import Stdio, notification, request, result, store


def _logs_session(db: Path | str, name: str, n: int, flip: int) -> int:
    s = Stdio().handshake(server={"tools": {}})
    for i in range(1, n):
        s.send("c2s", request(i, "tools/call", {"name": "t", "arguments": {"i": i % 7}}))
        s.send("s2c", notification("notifications/message", {"level": "info", "data": f"log {i % 5}"}))
        s.send(
            "s2c",
            result(i, {"content": [{"type": "text", "text": "x"}], "structuredContent": {"v": i % flip}}),
        )
    return store(db, s, name=name)


def test_fast_and_full_paths_write_the_same_report(any_store: Path | str) -> None:
    db = any_store
    a = generate_session(db, 500, name="a")  # type: ignore[arg-type]
    b = generate_session(db, 500, name="b", changes=frozenset({12, 97, 150}))  # type: ignore[arg-type]
    c = generate_session(db, 400, name="c", changes=frozenset(range(5, 300, 41)))  # type: ignore[arg-type]
    d, e = _logs_session(db, "d", 120, 9), _logs_session(db, "e", 100, 7)
    iv = record_lines(db, INTERVENED)  # type: ignore[arg-type]
    plain = record_lines(db, [(w, raw, None) for w, raw, _ in INTERVENED], name="plain", intercept=None)  # type: ignore[arg-type]
    engine = open_engine(db)
    pairs = [(a, b), (b, a), (a, c), (c, a), (d, e), (e, d), (iv, plain), (plain, iv), (a, a)]
    seen: dict[str, int] = {"changed": 0, "missing": 0, "extra": 0}
    for x, y in pairs:
        for ignore in (PathSet(DEFAULT_IGNORE), PathSet([*DEFAULT_IGNORE, "**.text"]))[: 2 if x == a else 1]:
            full = diff_sessions(
                list(iter_messages(engine, x)), list(iter_messages(engine, y)), ignore=ignore
            ).to_json()
            fast = diff_sessions(
                StoredMessages(engine, x, page=97), StoredMessages(engine, y, page=97), ignore=ignore
            )
            assert fast.to_json() == full, (x, y)
            assert [x["index"] for x in full["exchanges"]] == list(range(len(full["exchanges"])))
            short = diff_sessions(
                StoredMessages(engine, x), StoredMessages(engine, y), ignore=ignore, keep_equal=False
            )
            listed: Any = short.to_json()
            assert listed["listed"] == "differing" and listed["counts"] == full["counts"]
            assert listed["exchanges"] == [
                ex for ex in full["exchanges"] if ex["status"] != "equal" or ex["interventions"]
            ]
            assert render_text(short) == render_text(fast)
            for status in seen:
                seen[status] += full["counts"][status]
    assert all(seen.values()), seen  # the pairs did exercise every kind of difference
