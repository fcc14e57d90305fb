"""Issue 21 (diff24): while the replay mirrors the original (twin messages at one seq offset, every
open request paired with its twin), the streamed diff feeds only the original's builder and lets its
exchanges stand for their twins (`replay.diff.stream._Stream`'s lane); falling out of step makes the
twins, and the lane is entered again once the builders mirror each other. The report must be the
one the replay's own builder gave (`tests/diff_golden.py`: written by the reference path before the
diff kept one), JSON and text.

The sessions here are short, so the lane's constants are also run small (`_LATE`: messages a
request stays open after its answer; `_RETRY`: twin steps before entering again) to leave and
enter many times within a session (the golden reports were written with the same constants)."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.replay.diff import DEFAULT_IGNORE, PathSet
from inspector.replay.diff import stream as diff
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
        (rnd.choice(tools), rnd.randint(0, 2), coin(), coin(), coin(), coin())
        for _ in range(rnd.randint(1, 24))
    ]


_FALLOUTS = ("extra", "again", "missing", "error", "swap", "changed", "ids", "late")


def _error(rpc_id: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "error": {"code": -32000, "message": message}}


def _render(calls: list[Call], fx: dict[str, int | None]) -> Stdio:
    """A stdio session of these calls; `fx` names the call where the replay falls out of step:
    an extra log, one log line more (equal to the later ones), a missing answer, an error instead of a result, two answers swapped, a changed
    result, other JSON-RPC ids from there on (bodies otherwise equal), a progress notification
    sent after the answer."""
    s = Stdio().handshake(server={"tools": {}, "logging": {}})
    ids = fx.get("ids")

    def rid(k: int) -> int:
        return k + 1 + (1000 if ids is not None and k >= ids else 0)

    i = 0
    while i < len(calls):
        group = [i, i + 1] if calls[i][5] and i + 1 < len(calls) else [i]
        for k in group:
            tool, arg, progress, _, _, _ = calls[k]
            params: dict[str, Any] = {"name": tool, "arguments": {"a": arg}}
            if progress:
                params["_meta"] = {"progressToken": k + 1}
            s.send("c2s", request(rid(k), "tools/call", params))
            if k == fx.get("extra"):
                s.send("s2c", notification("notifications/message", {"level": "info", "data": "extra"}))
            if k == fx.get("again"):  # one log line more, like the others: pairs with the next one
                s.send("s2c", notification("notifications/message", {"level": "info", "data": "log 0"}))
        answers = list(reversed(group)) if len(group) == 2 and fx.get("swap") == group[0] else group
        for k in answers:
            tool, arg, progress, log, failed, _ = calls[k]
            late = progress and k == fx.get("late")
            if progress and not late:
                s.send("s2c", notification("notifications/progress", {"progressToken": k + 1, "progress": 1}))
            if k != fx.get("missing"):
                text = f"{tool} {arg}" + (" (changed)" if k == fx.get("changed") else "")
                answer = result(rid(k), {"content": [{"type": "text", "text": text}]})
                if failed:
                    answer = _error(rid(k), f"{tool} failed")
                if k == fx.get("error"):
                    answer = _error(rid(k), "boom")
                s.send("s2c", answer)
            if late:
                s.send("s2c", notification("notifications/progress", {"progressToken": k + 1, "progress": 2}))
            if log:
                s.send(
                    "s2c", notification("notifications/message", {"level": "info", "data": f"log {k % 2}"})
                )
        i += len(group)
    return s


@pytest.fixture(scope="module")
def db() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="diff-lane-") as tmp:
        yield Path(tmp) / "lane.db"


def _same_reports(db: Path, name: str, a: int, b: int, ignore: PathSet) -> dict[str, int]:
    """Both directions, every exchange listed and only what differs: the golden reports `name`."""
    engine = open_engine(db)
    try:
        return diff_golden.check(name, a, b, ignore, lambda sid: StoredMessages(engine, sid, page=5))
    finally:
        engine.dispose()


_SMALL = [(256, 64), (3, 1), (1, 1), (1, 2), (6, 3)]  # (_LATE, _RETRY)


_IGNORES = [DEFAULT_IGNORE, (*DEFAULT_IGNORE, "**.text"), ()]


@pytest.mark.parametrize("seed", range(16))
def test_the_lane_writes_the_golden_report(db: Path, seed: int) -> None:
    """Sessions drawn from `seed`: calls, where the replay falls out of step, the lane's windows
    and the ignore patterns."""
    rnd = random.Random(seed)
    calls = _calls(rnd)
    n = len(calls)
    fx = {k: rnd.choice([None, rnd.randrange(n)]) for k in _FALLOUTS}
    late, retry = rnd.choice(_SMALL)
    ignore = rnd.choice(_IGNORES)
    a = store(db, _render(calls, {}), name="a")
    b = store(db, _render(calls, fx), name="b")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(diff, "_LATE", late)
        mp.setattr(diff, "_RETRY", retry)
        _same_reports(db, f"lane-seed{seed}", a, b, PathSet(ignore))


def _steady() -> list[Call]:
    return [
        (("echo", "add", "clock")[k % 3], k % 4, k % 5 == 0, k % 7 == 0, k % 11 == 0, k % 6 == 0)
        for k in range(80)
    ]


@pytest.mark.parametrize("fallout", [*_FALLOUTS, "all"])
def test_each_way_out_of_step_leaves_and_enters_the_lane(
    db: Path, fallout: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each fall-out on its own (and all at once): the reports agree, the fall-out shows, and the
    lane was entered again after it (so the property above tests leaving and entering)."""
    monkeypatch.setattr(diff, "_LATE", 4)
    monkeypatch.setattr(diff, "_RETRY", 2)
    calls = _steady()
    fx: dict[str, int | None] = (
        {"extra": 3, "again": 14, "missing": 25, "error": 33, "swap": 48, "changed": 52, "late": 60}
        if fallout == "all"
        else {fallout: {"swap": 12, "late": 20, "ids": 70}.get(fallout, 30)}
    )
    a = store(db, _render(calls, {}), name="steady")
    b = store(db, _render(calls, fx), name=fallout)
    counts = _same_reports(db, f"lane-{fallout}", a, b, PathSet(DEFAULT_IGNORE))
    assert counts["equal"] > 60, counts
    if fallout in ("extra", "again", "all"):
        assert counts["extra"] >= 1, counts
    if fallout in ("missing", "error", "changed", "all"):
        assert counts["changed"] >= 1, counts
    if fallout in ("swap", "ids"):  # paired by the recorder, ids never matter: nothing differs
        assert counts["changed"] == counts["missing"] == counts["extra"] == 0, counts
    engine = open_engine(db)
    try:
        stream = diff._Stream(PathSet(DEFAULT_IGNORE), False)
        stream.run(StoredMessages(engine, a), StoredMessages(engine, b))
    finally:
        engine.dispose()
    if fallout in ("ids",):
        assert stream.entered == 1  # every body from call 70 on differs in its id: no twins there
    elif fallout in ("extra", "again", "missing", "all"):
        # A message more or less: another seq offset, and a missing answer leaves the replay's
        # request open to the end (the original's was answered): its builder never mirrors again.
        assert stream.entered >= 1
    else:
        assert stream.entered >= 2, stream.entered


def test_identical_sessions_stay_in_the_lane(db: Path) -> None:
    a = store(db, _render(_steady(), {}), name="one")
    b = store(db, _render(_steady(), {}), name="two")
    counts = _same_reports(db, "lane-identical", a, b, PathSet(DEFAULT_IGNORE))
    assert counts["changed"] == counts["missing"] == counts["extra"] == 0
    engine = open_engine(db)
    try:
        stream = diff._Stream(PathSet(DEFAULT_IGNORE), False)
        stream.run(StoredMessages(engine, a), StoredMessages(engine, b))
        assert stream.entered == 1
    finally:
        engine.dispose()
