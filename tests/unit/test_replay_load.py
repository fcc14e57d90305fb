"""The sans-IO half of a load replay (`inspector.replay.load`): what is sent when, with which ids."""

from __future__ import annotations

import itertools

import orjson
import pytest

from inspector.errors import InspectorError
from inspector.replay.load import Load, load_mode, renumber, schedule, split_handshake
from inspector.replay.plan import Step


def _step(method: str | None, ts_s: float, rid: int | None = 1) -> Step:
    msg: dict[str, object] = {"jsonrpc": "2.0", "method": method}
    if rid is not None:
        msg["id"] = rid
    return Step(0, orjson.dumps(msg), [], [str(rid)] if rid is not None else [], method, int(ts_s * 1e9))


def _mode(**given: object) -> Load | None:
    options: dict[str, object] = dict(
        rate=None, as_recorded=False, max_pace=False, concurrency=None, speed=None, repeat=None, duration=None
    )
    return load_mode(**{**options, **given})  # type: ignore[arg-type]


def test_the_handshake_is_the_leading_initialize_and_initialized() -> None:
    steps = [_step("initialize", 0), _step("notifications/initialized", 0, None), _step("tools/list", 1)]
    handshake, rest = split_handshake(steps)
    assert [s.method for s in handshake] == ["initialize", "notifications/initialized"]
    assert [s.method for s in rest] == ["tools/list"]
    assert split_handshake(steps[2:]) == ([], steps[2:])  # a stateless recording: all load


def test_rate_sends_the_ith_at_i_over_n_seconds_for_each_pass() -> None:
    steps = [_step("a", 10), _step("b", 50)]
    load = _mode(rate=4.0, repeat=2)
    assert load is not None
    assert [(t, s.method) for t, s in schedule(load, steps)] == [
        (0, "a"),
        (0.25, "b"),
        (0.5, "a"),
        (0.75, "b"),
    ]


def test_as_recorded_keeps_the_gaps_divided_by_speed_and_the_mean_gap_between_passes() -> None:
    steps = [_step("a", 10), _step("b", 11), _step("c", 14)]
    load = _mode(as_recorded=True, speed=2.0, repeat=2)
    assert load is not None
    assert [t for t, _ in schedule(load, steps)] == [0, 0.5, 2.0, 3.0, 3.5, 5.0]


def test_max_has_no_times_and_a_duration_goes_round_and_round() -> None:
    load = _mode(max_pace=True, duration=1.0)
    assert load is not None and load.concurrency == 1  # --max alone: one in flight
    sent = list(itertools.islice(schedule(load, [_step("a", 0), _step("b", 1)]), 5))
    assert [(t, s.method) for t, s in sent] == [
        (None, "a"),
        (None, "b"),
        (None, "a"),
        (None, "b"),
        (None, "a"),
    ]
    assert _mode(rate=5.0).concurrency is None  # type: ignore[union-attr]  # open loop: no bound


def test_renumber_gives_each_request_a_fresh_id_and_leaves_the_rest() -> None:
    ids = itertools.count(7)
    raw, wanted = renumber(b'{"jsonrpc":"2.0","id":"x","method":"tools/list"}', ids)
    assert orjson.loads(raw)["id"] == 7 and wanted == ["7"]
    batch = b'[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"id":1,"result":{}}]'
    raw, wanted = renumber(batch, ids)
    assert [item.get("id") for item in orjson.loads(raw)] == [8, None, 1] and wanted == ["8"]
    note = b'{"jsonrpc":"2.0","method":"notifications/cancelled"}'
    assert renumber(note, ids) == (note, [])
    assert renumber(b"{not json", ids) == (b"{not json", [])


def test_describe_says_the_pace_in_the_options_words() -> None:
    assert _mode(rate=50.0, concurrency=4).describe() == "--rate 50 --concurrency 4, 1 pass"  # type: ignore[union-attr]
    assert _mode(as_recorded=True, speed=2.0, duration=3.0).describe() == "--as-recorded --speed 2, for 3 s"  # type: ignore[union-attr]
    assert _mode(max_pace=True, repeat=3).describe() == "--max --concurrency 1, 3 passes"  # type: ignore[union-attr]


def test_no_pace_is_a_plain_replay() -> None:
    assert _mode() is None
    with pytest.raises(InspectorError, match="--concurrency pace a load replay"):
        _mode(concurrency=2)
