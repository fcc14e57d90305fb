"""Issue 21 (diff23): the streamed diff parses a body once for both sessions when their stored bytes
are equal (`replay.diff.records._Parsed`) and knows shared views identical without serialising them. The
report must be exactly the one each session's own parse gave (`tests/diff_golden.py`: written by the
reference path, each session parsing its own bodies, before the diff kept one path),
also when the sessions fall out of step and come back: an extra message in the replay, a missing
answer, an error instead of a result, answers in another order, a changed result; with progress
notifications linked to their request, logs, and pipelined requests."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.replay.diff import DEFAULT_IGNORE, PathSet
from inspector.store import open_engine
from inspector.store.wire import StoredMessages
from tests import diff_golden
from tests.lint_recordings import Stdio, notification, request, result, store

# A call: tool, argument, with progress, with a log after it, answered with an error, pipelined
# with the next call (both requests, then both answers).
Call = tuple[str, int, bool, bool, bool, bool]


def _calls(rnd: random.Random) -> list[Call]:
    coin = lambda: rnd.random() < 0.5  # noqa: E731
    tools = ["echo", "add", "clock"]
    return [
        (rnd.choice(tools), rnd.randint(0, 3), coin(), coin(), coin(), coin())
        for _ in range(rnd.randint(1, 14))
    ]


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


def _same_reports(db: Path, name: str, a: int, b: int, ignore: PathSet) -> dict[str, int]:
    """Both directions, every exchange listed and only what differs: the golden reports `name`."""
    engine = open_engine(db)
    try:
        return diff_golden.check(
            f"shared-{name}", a, b, ignore, lambda sid: StoredMessages(engine, sid, page=7)
        )
    finally:
        engine.dispose()


@pytest.mark.parametrize("seed", range(12))
def test_shared_parse_writes_the_golden_report(db: Path, seed: int) -> None:
    rnd = random.Random(seed)
    calls = _calls(rnd)
    n = len(calls)
    fx = {k: rnd.choice([None, rnd.randrange(n)]) for k in ("extra", "missing", "error", "swap", "changed")}
    a = store(db, _render(calls, {}), name="a")
    b = store(db, _render(calls, fx), name="b")
    ignore = rnd.choice([DEFAULT_IGNORE, (*DEFAULT_IGNORE, "**.text")])
    _same_reports(db, f"seed{seed}", a, b, PathSet(ignore))


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
        counts = _same_reports(db, name, a, b, PathSet(DEFAULT_IGNORE))
        assert counts["equal"] > 50, (name, counts)
        if name in ("extra", "all"):
            assert counts["extra"] == 1, (name, counts)
        if name in ("missing", "error", "changed", "all"):
            assert counts["changed"] >= 1, (name, counts)
        if name == "swap":  # answers in another order: paired by the recorder, so nothing differs
            assert counts["changed"] == counts["missing"] == counts["extra"] == 0, counts
    same = _same_reports(db, "identical", a, a, PathSet(DEFAULT_IGNORE))
    assert same["changed"] == same["missing"] == same["extra"] == 0
