"""Retention (store/retention.py): the plan on both backends, applying it, and the space it gives back."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.settings import Retention, from_doc
from inspector.store import SessionWriter, open_engine
from inspector.store.queries import update_session
from inspector.store.retention import SessionInfo, apply, choose, plan
from inspector.store.usage import session_bytes, store_usage

DAY = 86_400 * 10**9
NOW = 1_800_000_000 * 10**9


def _policy(**keys: Any) -> Retention:
    """A retention policy from its config keys (`"30d"`, `"5MB"`), read as the config file's are."""
    return from_doc(Retention, keys)


def _noise(size: int) -> bytes:
    """Bytes that do not compress (the store's zstd and PostgreSQL's TOAST would shrink a repeated
    byte, or base64 text, and the sizes here are about retention): random, without a newline."""
    return os.urandom(size).replace(b"\n", b" ")


def _record(
    engine: Engine, name: str, days_ago: float, body: int, messages: int = 4, *, end: bool = True
) -> int:
    sid = create_session(engine, kind="stdio-wrap", target=["server"], name=name)
    builder = MessageBuilder(sid)
    rows = []
    for i in range(1, messages + 1):
        payload = (b'{"jsonrpc":"2.0","id":%d,"result":{"text":"' % i) + _noise(body) + b'"}}\n'
        rows += builder.feed(i, "s2c", "stdout", payload)
    writer = SessionWriter(engine, sid)
    writer.on_batch(rows)
    if end:
        writer.on_end(0, "test")
    started = NOW - int(days_ago * DAY)
    with engine.begin() as conn:
        conn.execute(text("UPDATE session SET started_ns = :t WHERE id = :s"), {"t": started, "s": sid})
        conn.execute(text("UPDATE message SET ts_ns = :t WHERE session_id = :s"), {"t": started, "s": sid})
    return sid


def _ids(engine: Engine) -> set[int]:
    with engine.connect() as conn:
        return {int(r[0]) for r in conn.execute(text("SELECT id FROM session"))}


def _info(sid: int, days_ago: float, size: int, **kw: Any) -> SessionInfo:
    return SessionInfo(sid, f"s{sid}", NOW - int(days_ago * DAY), size, **kw)


def test_choose_applies_each_rule_and_keeps_pinned_labelled_and_live() -> None:
    sessions = [
        _info(1, 40, 100),
        _info(2, 35, 100, pinned=True),
        _info(3, 31, 100, labelled=True),
        _info(4, 20, 5000),
        _info(5, 10, 100),
        _info(6, 5, 100),
        _info(7, 1, 9000, state="recording"),
    ]
    policy = _policy(max_age="30d", max_session_size=1000)
    chosen = choose(sessions, policy, NOW, used_bytes=14_500)
    assert [(c.id, c.reason) for c in chosen.remove] == [(1, "age"), (4, "session size")]
    assert [s.id for s in chosen.live_over_size] == [7]
    assert {s.id for s in chosen.kept} == {2, 3}

    # Over the total: the oldest removable go first, until the store is within the limit.
    by_total = choose(sessions, _policy(max_total_size=9_500), NOW, used_bytes=14_500)
    assert [(c.id, c.reason) for c in by_total.remove] == [(1, "total size"), (4, "total size")]
    assert by_total.after_bytes <= 9_500

    unlabelled = choose(sessions, _policy(max_age="30d", keep_labelled=False), NOW, used_bytes=0)
    assert [c.id for c in unlabelled.remove] == [1, 3]
    assert choose(sessions, Retention(), NOW, used_bytes=14_500).remove == []


def test_a_sessions_share_of_the_store_counts_its_indexes() -> None:
    # The rows hold 1 000 bytes, the store uses 2 000: removing half of the rows frees ~1 000.
    sessions = [_info(1, 3, 500), _info(2, 2, 500)]
    chosen = choose(sessions, _policy(max_total_size=1_200), NOW, used_bytes=2_000)
    assert [c.id for c in chosen.remove] == [1]
    assert chosen.after_bytes == 1_000


def test_plan_on_a_store_reads_ages_sizes_pins_labels_and_live_sessions(any_store: Path | str) -> None:
    engine = open_engine(any_store)
    try:
        old = _record(engine, "old", 40, 2000)
        pinned = _record(engine, "pinned", 39, 2000)
        labelled = _record(engine, "labelled", 38, 2000)
        big = _record(engine, "big", 2, 60_000)
        live = _record(engine, "live", 45, 60_000, end=False)
        recent = _record(engine, "recent", 1, 100)
        update_session(engine, pinned, pinned=True)
        update_session(engine, labelled, labels=["keep"])
        sizes = session_bytes(engine)
        assert sizes[big] > 4 * 60_000 > sizes[old] > 4 * 2000
        assert session_bytes(engine, [old]) == {old: sizes[old]}

        before = _ids(engine)
        chosen = plan(engine, _policy(max_age="30d", max_session_size="100kB"), NOW)
        assert [(c.id, c.reason) for c in chosen.remove] == [(old, "age"), (big, "session size")]
        assert [s.id for s in chosen.live_over_size] == [live]
        assert {s.id for s in chosen.kept} == {pinned, labelled}
        assert _ids(engine) == before  # a plan changes nothing

        done = apply(engine, chosen)
        assert done.removed == [old, big]
        assert _ids(engine) == before - {old, big}
        assert recent in _ids(engine)
        with engine.connect() as conn:
            left = conn.execute(
                text("SELECT COUNT(*) FROM message WHERE session_id IN (:a, :b)"), {"a": old, "b": big}
            )
            assert left.scalar_one() == 0
    finally:
        engine.dispose()


def test_a_session_pinned_after_the_plan_is_not_removed(any_store: Path | str) -> None:
    engine = open_engine(any_store)
    try:
        first = _record(engine, "first", 40, 100)
        second = _record(engine, "second", 40, 100)
        chosen = plan(engine, _policy(max_age="30d"), NOW)
        assert {c.id for c in chosen.remove} == {first, second}
        update_session(engine, first, pinned=True)
        done = apply(engine, chosen)
        assert done.removed == [second] and done.skipped == [first]
        assert first in _ids(engine)
    finally:
        engine.dispose()


def test_a_new_sqlite_file_shrinks_after_pruning(tmp_path: Path) -> None:
    db = tmp_path / "shrink.db"
    engine = open_engine(db)
    try:
        assert store_usage(engine).auto_vacuum == "incremental"
        for day in range(10):
            _record(engine, f"day{day}", 30 - day, 10_000, messages=20)
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        before = db.stat().st_size
        assert before > 10 * 20 * 10_000
        done = apply(engine, plan(engine, _policy(max_total_size="1MB"), NOW))
        # The oldest first, at least six (4 sessions of ~200 kB are within 1 MB): the full-text index,
        # kept as rows arrive (issue 21), counts toward the store's size too, and random text is its
        # worst case (every token unique).
        assert len(done.removed) >= 6 and done.removed == sorted(done.removed)
        assert done.vacuum == "incremental vacuum"
        after = db.stat().st_size
        assert after < before * 0.5, (before, after)
        assert done.reclaimed_bytes > 0
        assert store_usage(engine).used_bytes <= 1_000_000
    finally:
        engine.dispose()


def test_an_old_file_without_auto_vacuum_is_converted_once_by_a_full_vacuum(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    plain = sqlite3.connect(db)
    plain.execute("PRAGMA auto_vacuum=NONE")
    plain.execute("CREATE TABLE placeholder (x)")  # tables exist before the inspector opens it
    plain.execute("DROP TABLE placeholder")
    plain.close()
    engine = open_engine(db)
    try:
        assert store_usage(engine).auto_vacuum == "none"
        for day in range(4):
            _record(engine, f"day{day}", 40 - day, 50_000, messages=10)
        chosen = plan(engine, _policy(max_age="30d"), NOW)
        kept = apply(engine, chosen)  # what recorders do: no full VACUUM
        assert "NONE" in kept.vacuum and store_usage(engine).free_bytes > 1_000_000
        converted = apply(engine, plan(engine, _policy(max_age="30d"), NOW), convert=True)
        assert converted.vacuum.startswith("full VACUUM")
        usage = store_usage(engine)
        assert usage.auto_vacuum == "incremental" and usage.free_bytes == 0
        assert usage.file_bytes < 1_000_000
    finally:
        engine.dispose()


def test_plan_is_fast_enough_for_a_recorder_to_run(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "many.db")
    try:
        for i in range(40):
            _record(engine, f"s{i}", i, 1000, messages=50)
        started = time.perf_counter()
        chosen = plan(engine, _policy(max_age="30d"), NOW)
        assert time.perf_counter() - started < 2
        assert len(chosen.remove) == 9
    finally:
        engine.dispose()


def test_pin_unpin_and_the_sessions_list_mark(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from inspector.cli import app

    db = tmp_path / "pins.db"
    engine = open_engine(db)
    try:
        sid = _record(engine, "keeper", 40, 100)
        runner = CliRunner()
        pinned = runner.invoke(app, ["pin", "keeper", "--db", str(db)])
        assert pinned.exit_code == 0 and f"session {sid} (keeper) pinned" in pinned.output
        listed = runner.invoke(app, ["sessions", "--db", str(db)], env={"COLUMNS": "80"})
        assert f"{sid}*" in listed.output and "* pinned: retention keeps it" in listed.output
        kept = runner.invoke(app, ["prune", "--db", str(db), "--max-age", "30d"])
        assert kept.exit_code == 0 and "Removed 0 sessions" in kept.output and sid in _ids(engine)
        assert runner.invoke(app, ["unpin", str(sid), "--db", str(db)]).exit_code == 0
        listed = runner.invoke(app, ["sessions", "--db", str(db)], env={"COLUMNS": "80"})
        assert f"{sid}*" not in listed.output
        missing = runner.invoke(app, ["pin", "nope", "--db", str(db)])
        assert missing.exit_code != 0
    finally:
        engine.dispose()
