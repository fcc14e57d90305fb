"""Issue 21 (diff23): the streamed diff parses a body once for both sessions when their stored bytes
are equal (`replay.diff._Parsed`) and knows shared views identical without serialising them. The
report must be exactly the one each session's own parse gives (`diff_sessions(share=False)`),
also when the sessions fall out of step and come back: an extra message in the replay, a missing
answer, an error instead of a result, answers in another order, a changed result; with progress
notifications linked to their request, logs, and pipelined requests."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.replay.diff import DEFAULT_IGNORE, PathSet, diff_sessions, render_text
from inspector.replay.report import StoredMessages
from inspector.store import open_engine
from tests.lint_recordings import Stdio, notification, request, result, store

# A call: tool, argument, with progress, with a log after it, answered with an error, pipelined
# with the next call (both requests, then both answers).
Call = tuple[str, int, bool, bool, bool, bool]

_calls = st.lists(
    st.tuples(
        st.sampled_from(["echo", "add", "clock"]),
        st.integers(0, 3),
        st.booleans(),
        st.booleans(),
        st.booleans(),
        st.booleans(),
    ),
    min_size=1,
    max_size=14,
)


def _error(rpc_id: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "error": {"code": -32000, "message": message}}


def _answer(i: int, call: Call, *, changed: bool = False) -> dict[str, Any]:
    tool, arg, _, _, failed, _ = call
    if failed:
        return _error(i, f"{tool} failed")
    text = f"{tool} {arg}" + (" (changed)" if changed else "")
    return result(i, {"content": [{"type": "text", "text": text}], "structuredContent": {"v": arg}})


def _render(calls: list[Call], fx: dict[str, int | None]) -> Stdio:
    """A stdio session of these calls; `fx` names where the replay falls out of step."""
    s = Stdio().handshake(server={"tools": {}, "logging": {}})
    i = 0
    while i < len(calls):
        group = [i, i + 1] if calls[i][5] and i + 1 < len(calls) else [i]
        for k in group:
            tool, arg, progress, _, _, _ = calls[k]
            params: dict[str, Any] = {"name": tool, "arguments": {"a": arg}}
            if progress:
                params["_meta"] = {"progressToken": k + 1}
            s.send("c2s", request(k + 1, "tools/call", params))
            if k == fx.get("extra"):
                s.send("s2c", notification("notifications/message", {"level": "info", "data": "extra"}))
        answers = list(reversed(group)) if len(group) == 2 and fx.get("swap") == group[0] else group
        for k in answers:
            if calls[k][2]:
                s.send("s2c", notification("notifications/progress", {"progressToken": k + 1, "progress": 1}))
            if k == fx.get("missing"):
                continue
            answer = _answer(k + 1, calls[k], changed=k == fx.get("changed"))
            if k == fx.get("error"):
                answer = _error(k + 1, "boom")
            s.send("s2c", answer)
            if calls[k][3]:
                s.send(
                    "s2c", notification("notifications/message", {"level": "info", "data": f"log {k % 2}"})
                )
        i += len(group)
    return s


@pytest.fixture(scope="module")
def db() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="diff-shared-") as tmp:
        yield Path(tmp) / "shared.db"


def _same_reports(db: Path, a: int, b: int, ignore: PathSet) -> dict[str, int]:
    """Both directions, every exchange listed and only what differs: shared and own parses agree."""
    engine = open_engine(db)
    try:
        counts: dict[str, int] = {}
        for x, y in ((a, b), (b, a)):
            for keep in (True, False):
                fast = diff_sessions(
                    StoredMessages(engine, x, page=7),
                    StoredMessages(engine, y),
                    ignore=ignore,
                    keep_equal=keep,
                )
                own = diff_sessions(
                    StoredMessages(engine, x),
                    StoredMessages(engine, y),
                    ignore=ignore,
                    keep_equal=keep,
                    share=False,
                )
                assert fast.to_json() == own.to_json()
                assert render_text(fast, show_equal=keep) == render_text(own, show_equal=keep)
                if x == a:
                    counts = fast.counts()  # a -> b
        return counts
    finally:
        engine.dispose()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=_calls, data=st.data())
def test_shared_parse_writes_the_same_report(db: Path, calls: list[Call], data: st.DataObject) -> None:
    n = len(calls)
    where = st.one_of(st.none(), st.integers(0, n - 1))
    fx = {k: data.draw(where, label=k) for k in ("extra", "missing", "error", "swap", "changed")}
    a = store(db, _render(calls, {}), name="a")
    b = store(db, _render(calls, fx), name="b")
    ignore = data.draw(st.sampled_from([DEFAULT_IGNORE, (*DEFAULT_IGNORE, "**.text")]), label="ignore")
    _same_reports(db, a, b, PathSet(ignore))


def test_each_way_out_of_step_is_seen(db: Path) -> None:
    """The named fall-outs, each on its own and all at once, in a longer session: the reports agree
    and each fall-out does show (so the property above tests sessions that really differ)."""
    calls: list[Call] = [
        (("echo", "add", "clock")[k % 3], k % 4, k % 5 == 0, k % 7 == 0, k % 11 == 0, k % 6 == 0)
        for k in range(60)
    ]
    a = store(db, _render(calls, {}), name="steady")
    cases: dict[str, dict[str, int | None]] = {
        "extra": {"extra": 8},
        "missing": {"missing": 20},
        "error": {"error": 31},
        "swap": {"swap": 12},
        "changed": {"changed": 40},
        "all": {"extra": 3, "missing": 25, "error": 33, "swap": 48, "changed": 50},
    }
    for name, fx in cases.items():
        b = store(db, _render(calls, fx), name=name)
        counts = _same_reports(db, a, b, PathSet(DEFAULT_IGNORE))
        assert counts["equal"] > 50, (name, counts)
        if name in ("extra", "all"):
            assert counts["extra"] == 1, (name, counts)
        if name in ("missing", "error", "changed", "all"):
            assert counts["changed"] >= 1, (name, counts)
        if name == "swap":  # answers in another order: paired by the recorder, so nothing differs
            assert counts["changed"] == counts["missing"] == counts["extra"] == 0, counts
    same = _same_reports(db, a, a, PathSet(DEFAULT_IGNORE))
    assert same["changed"] == same["missing"] == same["extra"] == 0
