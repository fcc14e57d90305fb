"""Issue 21 (diff28): stored sessions read back through `store.wire.StoredMessages` (keyset pages,
small here so that the lane's offset changes inside a page and at page ends) give the golden
reports (`tests/diff_golden.py`) that the same records give as lists, on SQLite and PostgreSQL.

The sessions are `test_diff_record_lane`'s hand-made records (progress linked after the answer,
intervention marks, orphan answers, batches, ...), written as rows of the store."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import Engine

from inspector.capture.sessions import create_session
from inspector.replay.diff import DEFAULT_IGNORE, PathSet, diff_sessions
from inspector.replay.diff import stream as diff
from inspector.store import open_engine, schema
from inspector.store.wire import StoredMessages, WireRecord
from tests import diff_golden
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
        conn.execute(schema.message.insert(), rows)
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


_LISTED: set[str] = set()  # the golden reports `_same_stored` checked the lists against


def _same_stored(
    engine: Engine, name: str, a: list[WireRecord], b: list[WireRecord], ignore: PathSet, page: int
) -> int:
    """Both directions, `keep_equal` both ways: the lists and the stored sessions read back give the
    golden reports `name` (the lists once a process: the same on either backend). Returns the pairs
    the record lane took."""
    ids = {id(a): _stored(engine, a), id(b): _stored(engine, b)}
    if name not in _LISTED:
        diff_golden.check(name, a, b, ignore)
        _LISTED.add(name)
    diff_golden.check(name, a, b, ignore, lambda r: StoredMessages(engine, ids[id(r)], page=page))
    taken = 0
    for x, y in ((a, b), (b, a)):
        stream = diff._Stream(ignore, False)
        stream.run(*(StoredMessages(engine, ids[id(r)], page=page) for r in (x, y)))
        taken += stream.taken
    return taken


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    engine = open_engine(tmp_path_factory.mktemp("twins") / "rec.db")
    yield engine
    engine.dispose()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def shared_store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    """One store of each backend for the module: every test writes sessions of its own and reads
    back only those (a fresh, migrated database a test was most of this file's time)."""
    if request.param == "postgresql":
        store: Path | str = request.getfixturevalue("pg_cluster").new_database()
    else:
        store = tmp_path_factory.mktemp("stored") / "rec.db"
    engine = open_engine(store)
    yield engine
    engine.dispose()


@pytest.fixture
def store_engine(shared_store: Engine, monkeypatch: pytest.MonkeyPatch) -> Engine:
    """An engine on a store of each backend (SQLite and PostgreSQL), the lane's windows small
    (late 6, retry 2: fall-outs within a few dozen rows)."""
    monkeypatch.setattr(diff, "_LATE", 6)
    monkeypatch.setattr(diff, "_RETRY", 2)
    return shared_store


@pytest.mark.parametrize("seed", range(12))
def test_stored_sessions_give_the_golden_report(engine: Engine, seed: int) -> None:
    rnd = random.Random(seed)
    calls: list[Call] = [_call(rnd) for _ in range(rnd.randint(1, 30))]
    n = len(calls)
    fx = {k: rnd.choice([None, None, rnd.randrange(n)]) for k in _FALLOUTS}
    late, retry = rnd.choice(_SMALL)
    ignore = PathSet(rnd.choice(_IGNORES))
    page = rnd.choice([2, 5, 13, 2000])
    by = rnd.choice([0, 0, 1, 3])  # the replay recorded later by
    b = _records(calls, fx)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(diff, "_LATE", late)
        mp.setattr(diff, "_RETRY", retry)
        _same_stored(engine, f"stored-seed{seed}", _records(calls, {}), _later(b, by), ignore, page)


@pytest.mark.parametrize("fallout", [*_FALLOUTS, "all", "shifted", "none"])
def test_stored_fallouts_give_the_golden_report(store_engine: Engine, fallout: str) -> None:
    """On both dialects: each fall-out of the record lane's, a replay recorded later, several in a
    row; the record lane takes most pairs."""
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
    taken = _same_stored(store_engine, f"stored-{fallout}", a, b, PathSet(DEFAULT_IGNORE), page=37)
    assert taken > 2 * 100, taken  # two diffs: the record lane takes most pairs


def test_an_answer_to_the_other_request_is_not_its_twin(store_engine: Engine) -> None:
    """Two requests with the same id and bytes, one answer with the same bytes: the recorder paired
    it with the first in the original and with the second in the replay (`answers_seq`). The rows
    of the answer are not twins (`answers_seq` at the offset differs): the replay's second request is
    answered, the original's is not."""
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
    _same_stored(store_engine, "stored-other-answer", a, b, PathSet(DEFAULT_IGNORE), page=n - 5)
    assert diff_sessions(a, b).counts()["changed"] >= 1


def _note(seq: int, text: str) -> WireRecord:
    body = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"%s"}}\n' % text.encode()
    return WireRecord(seq, "s2c", "stdout", body, "notification", "notifications/message", None, None, None)


def test_a_batch_moving_the_offset_shows_the_difference(store_engine: Engine) -> None:
    """The lane's offset changes: two notifications are one batch in the replay, so from there the
    replay's rows come one seq earlier. At the old offset the replay's ticks, and its second "X",
    would be twins of the original's rows; at the new one the second "X" stands where the original
    has a tick: it is compared (not taken as a twin), and the difference shows."""
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
    _same_stored(store_engine, "stored-old-offset", a, b, PathSet(DEFAULT_IGNORE), page=n - 5)
    counts = diff_sessions(a, b).counts()
    assert counts["extra"] == counts["missing"] == 1, counts  # the second "X", the tick
