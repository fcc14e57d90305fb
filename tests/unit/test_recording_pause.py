"""Pause/resume and metadata-only recording in the recorder (#20, pause20).

Real Recorder, real StoreWriter, real SQLite: bytes go in through a tap as a
transport hands them over; what the store holds is read back with sqlite3.

- a line split over the pause boundary is recorded only if it completes while recording;
- a request recorded before the pause whose response comes while paused keeps its row;
  the response is not recorded;
- a request sent while paused and answered after the resume: the answer is recorded and
  paired (method, latency), pointing at the unrecorded request's seq;
- the pause is a session fact with after_seq, times and the count not recorded;
- a session that starts paused (`record="paused"`) and one that ends paused;
- metadata only: no body bytes at rest, sizes, methods, ids, header names kept.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

from inspector.capture import Recorder
from inspector.capture.redact import Redaction
from inspector.capture.sessions import create_session
from inspector.store import StoreWriter, open_engine


def _call(i: int, secret: str = "") -> bytes:
    args = {"text": secret} if secret else {}
    return (
        orjson.dumps(
            {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "echo", "arguments": args}}
        )
        + b"\n"
    )


def _answer(i: int, secret: str = "") -> bytes:
    return (
        orjson.dumps(
            {"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": secret or f"r{i}"}]}}
        )
        + b"\n"
    )


def _run(db: Path, record: str, steps: list[tuple[str, Any]]) -> int:
    engine = open_engine(db, create=True)
    recorder = Recorder([StoreWriter(engine)], redaction=Redaction()).start()
    sid = create_session(engine, kind="stdio-wrap", target=["server"])
    tap = recorder.open(sid, record=record)
    for op, arg in steps:
        if op == "c2s":
            tap.submit("c2s", "stdin", arg)
        elif op == "s2c":
            tap.submit("s2c", "stdout", arg)
        elif op == "pause":
            tap.pause(arg)
    tap.end(0, "done")
    recorder.stop()
    engine.dispose()
    return sid


def _rows(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT seq, direction, kind, method, rpc_id, answers_seq, latency_ns, raw, size, meta FROM message ORDER BY seq"
        ).fetchall()


def _facts(db: Path, sid: int) -> dict[str, Any]:
    with sqlite3.connect(db) as conn:
        (facts,) = conn.execute("SELECT facts FROM session WHERE id = ?", (sid,)).fetchone()
    return orjson.loads(facts) if facts else {}


def test_pause_and_resume_keep_framing_and_pairing(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    split = _call(4)
    sid = _run(
        db,
        "full",
        [
            ("c2s", _call(1)),
            ("s2c", _answer(1)),
            ("c2s", _call(2)),  # recorded; answered while paused
            ("c2s", split[:10]),  # a line split over the pause boundary: completes while paused
            ("pause", True),
            ("c2s", split[10:]),
            ("s2c", _answer(2)),
            ("c2s", _call(3)),  # sent while paused, answered after the resume
            ("s2c", _answer(4)),
            ("c2s", _call(5)[:7]),  # starts while paused, completes after the resume: recorded
            ("pause", True),  # a second pause while paused changes nothing
            ("pause", False),
            ("c2s", _call(5)[7:]),
            ("s2c", _answer(3)),
            ("s2c", _answer(5)),
        ],
    )
    rows = _rows(db)
    seen = [(r[1], r[2], r[4]) for r in rows]
    assert seen == [
        ("c2s", "request", "1"),
        ("s2c", "response", "1"),
        ("c2s", "request", "2"),
        ("c2s", "request", "5"),
        ("s2c", "response", "3"),
        ("s2c", "response", "5"),
    ], seen
    by_id = {(r[1], r[4]): r for r in rows}
    # The answer to the request sent while paused is paired (method, latency); that request is
    # not in the store: no answers_seq, a flag that says why.
    late = by_id[("s2c", "3")]
    assert late[3] == "tools/call" and late[5] is None and late[6] is not None
    assert orjson.loads(late[9])["flags"] == ["request-not-recorded"]
    assert by_id[("s2c", "5")][5] == by_id[("c2s", "5")][0] == 4  # renumbered, still paired
    assert not any("orphan" in (r[9] or "") for r in rows)
    (pause,) = _facts(db, sid)["recording_pauses"]
    assert pause["after_seq"] == 3
    assert pause["messages_not_recorded"] == 4  # request 4, answer 2, request 3, answer 4
    assert pause["to_ns"] > pause["from_ns"] > 0
    assert "until_end" not in pause
    # the stored seq stays gap-free (the timeline's row i is seq i + 1)
    assert [r[0] for r in rows] == [1, 2, 3, 4, 5, 6]


def test_a_session_can_start_paused_and_end_paused(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    sid = _run(
        db,
        "paused",
        [
            ("c2s", _call(1)),
            ("s2c", _answer(1)),
            ("pause", False),
            ("c2s", _call(2)),
            ("pause", True),
            ("s2c", _answer(2)),
            ("c2s", b'{"partial"'),
        ],
    )
    rows = _rows(db)
    assert [(r[1], r[4]) for r in rows] == [("c2s", "2")]
    first, second = _facts(db, sid)["recording_pauses"]
    assert first["after_seq"] == 0 and first["messages_not_recorded"] == 2
    assert second["after_seq"] == 1 and second["until_end"] is True
    assert second["messages_not_recorded"] == 2  # the answer and the partial line flushed at the end


def test_metadata_only_keeps_no_body_bytes(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    secret = "sk-very-secret-payload-0123456789"
    sid = _run(
        db,
        "metadata",
        [
            ("c2s", _call(1, secret)),
            ("s2c", _answer(1, secret)),
            ("c2s", b"not json " + secret.encode() + b"\n"),
        ],
    )
    rows = _rows(db)
    assert [(r[1], r[2], r[3], r[4]) for r in rows] == [
        ("c2s", "request", "tools/call", "1"),
        ("s2c", "response", "tools/call", "1"),
        ("c2s", "invalid", None, None),
    ]
    assert all(r[7] == b"" for r in rows)
    assert [r[8] for r in rows] == [len(_call(1, secret)), len(_answer(1, secret)), len(secret) + 10]
    assert all(orjson.loads(r[9])["body"] == "not recorded (metadata only)" for r in rows)
    assert rows[1][5] == rows[0][0] and rows[1][6] is not None
    assert _facts(db, sid)["record"] == "metadata"
    assert secret.encode() not in db.read_bytes()
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or secret.encode() not in wal.read_bytes()


def test_pause_and_metadata_on_both_backends(any_store: Path | str) -> None:
    """The facts and renumbered rows go through the one writer: the same on PostgreSQL."""
    from inspector.store import get_session, iter_messages

    secret = "pg-secret-body-77e1"
    engine = open_engine(any_store, create=True)
    recorder = Recorder([StoreWriter(engine)], redaction=Redaction()).start()
    paused = recorder.open(create_session(engine, kind="stdio-wrap", target=["a"]))
    metadata = recorder.open(create_session(engine, kind="stdio-wrap", target=["b"]), record="metadata")
    paused.submit("c2s", "stdin", _call(1))
    paused.pause(True)
    paused.submit("c2s", "stdin", _call(2))
    paused.pause(False)
    paused.submit("s2c", "stdout", _answer(2) + _answer(1))
    metadata.submit("c2s", "stdin", _call(1, secret))
    for tap in (paused, metadata):
        tap.end(0, "done")
    recorder.stop()
    try:
        rows = list(iter_messages(engine, paused.session_id))
        assert [(m.seq, m.rpc_id, m.answers_seq) for m in rows] == [
            (1, "1", None),
            (2, "2", None),
            (3, "1", 1),
        ]
        assert rows[1].meta["flags"] == ["request-not-recorded"]
        (pause,) = get_session(engine, paused.session_id).facts["recording_pauses"]
        assert pause["after_seq"] == 1 and pause["messages_not_recorded"] == 1
        (row,) = iter_messages(engine, metadata.session_id)
        assert row.raw == b"" and row.size == len(_call(1, secret)) and row.method == "tools/call"
        assert get_session(engine, metadata.session_id).facts["record"] == "metadata"
    finally:
        engine.dispose()
