"""Issue 21 (diff28): the replay read beside its original (`report.TwinRows`): while the record lane
has an offset, a page of the replay is joined to the original's rows at that offset in SQL and a
row whose twin is there comes as its seq alone; the lane then reads only the original's record, and
a marker handed back (or read outside the lane) becomes the replay's record again. The report must
be the one the replay's own builder gives from whole records (`diff_sessions(lane=False)` over
lists), byte for byte, JSON and text, on SQLite and PostgreSQL.

The sessions are `test_diff_record_lane`'s hand-made records (progress linked after the answer,
intervention marks, orphan answers, batches, ...), written as rows of the store; small pages so that
a lane's offset changes inside a page (markers joined at another offset) and at page ends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from inspector.capture.sessions import create_session
from inspector.replay.diff import DEFAULT_IGNORE, PathSet, diff_sessions, render_text
from inspector.replay.diff import stream as diff
from inspector.replay.report import StoredMessages, TwinRows, WireRecord
from inspector.store import open_engine
from inspector.store.models import Message
from tests.unit.test_diff_record_lane import (
    _FALLOUTS,
    _IGNORES,
    _SMALL,
    Call,
    _call,
    _records,
    _steady,
)


def _stored(engine: Engine, records: list[WireRecord]) -> int:
    """`records` as a stored session's rows (what the diff reads back as those records)."""
    sid = create_session(engine, kind="stdio-wrap", target=["server"], name="hand-made")
    rows = [
        {
            "session_id": sid,
            "seq": r.seq,
            "ts_ns": r.seq,
            "direction": r.direction,
            "channel": r.channel,
            "raw": r.raw,
            "size": len(r.raw),
            "parse_status": "ok",
            "kind": r.kind,
            "method": r.method,
            "rpc_id": r.rpc_id,
            "answers_seq": r.answers_seq,
            "meta": r.meta,
        }
        for r in records
    ]
    with engine.begin() as conn:
        conn.execute(Message.__table__.insert(), rows)  # type: ignore[attr-defined]
    return sid


def _later(records: list[WireRecord], by: int) -> list[WireRecord]:
    """The same session recorded `by` messages later: every seq and link shifted (the lane's
    offset; seqs of stored sessions start at 1, but a batch read item by item against single
    messages moves the records of two sessions apart)."""

    def shift(meta: Any) -> Any:
        if isinstance(meta, list):
            return [shift(item) for item in meta]
        if not isinstance(meta, dict):
            return meta
        return {k: v + by if k in ("related_seq", "answers_seq") else shift(v) for k, v in meta.items()}

    def later(seq: int | None) -> int | None:
        return None if seq is None else seq + by

    return [r._replace(seq=r.seq + by, answers_seq=later(r.answers_seq), meta=shift(r.meta)) for r in records]


def _extra_first(records: list[WireRecord], by: int) -> list[WireRecord]:
    """`by` stderr lines before the session (`_later`)."""
    lines = [
        WireRecord(k + 1, "s2c", "stderr", b"starting\n", "log", None, None, None, None) for k in range(by)
    ]
    return lines + _later(records, by)


def _same_stored(
    engine: Engine, a: list[WireRecord], b: list[WireRecord], ignore: PathSet, page: int
) -> tuple[int, int]:
    """Both directions, `keep_equal` both ways: the stored sessions read beside each other give the
    report of the whole lists without the lane. Returns (pairs the record lane took, markers)."""
    ids = {id(a): _stored(engine, a), id(b): _stored(engine, b)}
    taken = marked = 0
    for x, y in ((a, b), (b, a)):
        for keep in (False, True):
            slow = diff_sessions(x, y, ignore=ignore, keep_equal=keep, lane=False)
            sx, sy = (StoredMessages(engine, ids[id(r)], page=page) for r in (x, y))
            fast = diff_sessions(sx, sy, ignore=ignore, keep_equal=keep)
            assert fast.to_json() == slow.to_json()
            assert render_text(fast, show_equal=keep, verbose=True) == render_text(
                slow, show_equal=keep, verbose=True
            )
            stream = diff._Stream(ignore, keep)
            stream.run(sx, sy)
            taken += stream.taken
            marked += stream.marked
    return taken, marked


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    engine = open_engine(tmp_path_factory.mktemp("twins") / "rec.db")
    yield engine
    engine.dispose()


@pytest.fixture
def store_engine(any_store: Path | str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """An engine on `any_store` (SQLite and PostgreSQL), the lane's windows small (late 6, retry
    2: fall-outs within a few dozen rows)."""
    monkeypatch.setattr(diff, "_LATE", 6)
    monkeypatch.setattr(diff, "_RETRY", 2)
    engine = open_engine(any_store)
    yield engine
    engine.dispose()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=st.lists(_call, min_size=1, max_size=30), data=st.data())
def test_twin_rows_write_the_same_report(engine: Engine, calls: list[Call], data: st.DataObject) -> None:
    n = len(calls)
    where = st.one_of(st.none(), st.none(), st.integers(0, n - 1))
    fx = {k: data.draw(where, label=k) for k in _FALLOUTS}
    late, retry = data.draw(st.sampled_from(_SMALL), label="late, retry")
    ignore = PathSet(data.draw(st.sampled_from(_IGNORES), label="ignore"))
    page = data.draw(st.sampled_from([2, 5, 13, 2000]), label="page")
    by = data.draw(st.sampled_from([0, 0, 1, 3]), label="replay recorded later by")
    b = _records(calls, fx)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(diff, "_LATE", late)
        mp.setattr(diff, "_RETRY", retry)
        _same_stored(engine, _records(calls, {}), _later(b, by), ignore, page)


@pytest.mark.parametrize("fallout", [*_FALLOUTS, "all", "shifted", "none"])
def test_twin_rows_are_read_as_seqs_and_the_report_is_the_same(store_engine: Engine, fallout: str) -> None:
    """On both dialects: the lane takes most rows as markers, and a fall-out (each of the record
    lane's, a replay recorded later, two in a row) hands the marker back whole."""
    fx: dict[str, int | None] = (
        {
            "changed": 10,
            "marked": 25,
            "batch": 40,
            "unlinked": 57,
            "late": 71,
            "missing": 105,
            "orphan": 110,
        }
        if fallout == "all"
        else {fallout: 42}
    )
    a = _records(_steady(), {})
    b = _later(a, 3) if fallout == "shifted" else _records(_steady(), fx)
    taken, marked = _same_stored(store_engine, a, b, PathSet(DEFAULT_IGNORE), page=37)
    # Four diffs: the record lane takes most pairs, most of those as markers (a page read
    # before the lane has an offset, and rows with meta, are read whole).
    assert taken > 4 * 100 and marked > taken // 3, (taken, marked)


def test_a_marker_read_outside_the_lane_is_the_replay_record(tmp_path: Path) -> None:
    """`TwinRows` read on its own, with a page joined at an offset that is not the replay's (a
    marker found where `known` has no record): every record is the stored one."""
    engine = open_engine(tmp_path / "rec.db")
    try:
        a = _records(_steady(60), {})
        b = _extra_first(a, 2)
        sa, sb = _stored(engine, a), _stored(engine, b)
        for k in (0, 2, 5):
            rows = TwinRows(StoredMessages(engine, sb, page=9), sa, lambda k=k: k, lambda seq: None)
            assert list(rows) == list(StoredMessages(engine, sb))
        by_seq = {r.seq: r for r in StoredMessages(engine, sa)}
        rows = TwinRows(StoredMessages(engine, sb, page=9), sa, lambda: 2, by_seq.get)
        assert list(rows) == list(StoredMessages(engine, sb))
        rows, taken = TwinRows(StoredMessages(engine, sb, page=9), sa, lambda: 2, by_seq.get), []
        assert [next(rows).seq for _ in range(2)] == [1, 2]  # the replay's own first rows
        for r in by_seq.values():
            if rows.same(r.seq + 2, 2):
                taken.append(r.seq)
            else:
                assert next(rows).seq == r.seq + 2
        assert next(rows, None) is None
        assert len(taken) > len(a) // 2
        assert all(by_seq[seq].meta is None for seq in taken)
    finally:
        engine.dispose()


def test_an_answer_to_the_other_request_is_not_a_twin(store_engine: Engine) -> None:
    """Two requests with the same id and bytes, one answer with the same bytes: the recorder paired
    it with the first in the original and with the second in the replay (`answers_seq`). The rows
    of the answer are not twins (the SQL compares `answers_seq` at the offset): the replay's second
    request is answered, the original's is not."""
    head = _records(_steady(30), {})
    n = len(head)
    call = b'{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"echo"}}\n'
    answer = b'{"jsonrpc":"2.0","id":77,"result":{"content":[]}}\n'

    def twice(answers: int) -> list[WireRecord]:
        return [
            WireRecord(n + 1, "c2s", "stdin", call, "request", "tools/call", "77", None, None),
            WireRecord(n + 2, "c2s", "stdin", call, "request", "tools/call", "77", None, None),
            WireRecord(n + 3, "s2c", "stdout", answer, "response", "tools/call", "77", n + answers, None),
        ]

    tail = _later(_records(_steady(30), {}), n + 3)
    a, b = head + twice(1) + tail, head + twice(2) + tail
    _same_stored(store_engine, a, b, PathSet(DEFAULT_IGNORE), page=n - 5)
    assert diff_sessions(a, b, lane=False).counts()["changed"] >= 1


def _note(seq: int, text: str) -> WireRecord:
    body = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"%s"}}\n' % text.encode()
    return WireRecord(seq, "s2c", "stdout", body, "notification", "notifications/message", None, None, None)


def test_a_marker_joined_at_the_old_offset_is_read_whole(store_engine: Engine) -> None:
    """The lane's offset changes inside a page joined at the old one: two notifications are one
    batch in the replay, so from there the replay's rows come one seq earlier. The page read after
    the drift was joined at the old offset, where the replay's ticks, and its second "X", are twins
    of the original's rows. At the new offset the second "X" stands where the original has a tick:
    it is read whole and compared (not taken as a twin), and the difference shows."""
    head = _records(_steady(30), {})
    n = len(head)
    one, two = _note(n + 1, "one"), _note(n + 2, "two")
    items = orjson.dumps([orjson.loads(one.raw), orjson.loads(two.raw)]) + b"\n"
    batch = WireRecord(n + 1, "s2c", "stdout", items, "batch", None, None, None, {"items": [{}, {}]})
    # Distinct rows first (the lane enters at the new offset through whole records), then ticks.
    texts = [f"d{k}" for k in range(6)] + ["tick"] * 15 + ["X"] + ["tick"] * 15
    again = [*texts[:22], "X", *texts[23:]]
    a = [*head, one, two, *(_note(n + 3 + k, t) for k, t in enumerate(texts))]
    b = [*head, batch, *(_note(n + 2 + k, t) for k, t in enumerate(again))]
    _same_stored(store_engine, a, b, PathSet(DEFAULT_IGNORE), page=n - 5)
    counts = diff_sessions(a, b, lane=False).counts()
    assert counts["extra"] == counts["missing"] == 1, counts  # the second "X", the tick
