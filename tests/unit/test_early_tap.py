"""`EarlyTap`: copies read before the recorder exists are held in order, bounded, and recorded once it does."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from inspector.capture import Recorder
from inspector.capture.sessions import create_session
from inspector.store import StoreWriter, iter_messages, open_engine
from inspector.wrap import EarlyTap


def test_held_copies_are_recorded_in_order_with_their_read_times(db_path: Path) -> None:
    early = EarlyTap(limit=2)
    before = time.time_ns()
    early.submit("c2s", "stdin", b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    early.submit("s2c", "stdout", b'{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc"')
    third = threading.Thread(target=early.submit, args=("s2c", "stdout", b':"2.0","method":"x"}\n'))
    third.start()
    third.join(0.2)
    assert third.is_alive(), "the hold is bounded: a third chunk waits for the recorder"
    engine = open_engine(db_path)
    sid = create_session(engine, kind="stdio-wrap", target=["test"])
    recorder = Recorder([StoreWriter(engine)]).start()
    attached_at = time.time_ns()
    early.attach(recorder.open(sid))
    third.join(10)
    assert not third.is_alive()
    early.submit("c2s", "stdin", b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
    early.end_stream("c2s", "stdin")
    assert early.submit.__self__ is not early  # type: ignore[attr-defined]
    recorder.stop()
    rows = list(iter_messages(engine, sid))
    assert [(m.direction, m.method, m.rpc_id) for m in rows] == [
        ("c2s", "ping", "1"),
        ("s2c", "ping", "1"),
        ("s2c", "x", None),
        ("c2s", "ping", "2"),
    ]
    assert before <= rows[0].ts_ns <= rows[1].ts_ns < attached_at
    assert rows[1].answers_seq == 1


def test_dropped_tap_never_blocks_forwarding() -> None:
    early = EarlyTap(limit=1)
    early.submit("c2s", "stdin", b"a\n")
    waiting = threading.Thread(target=early.submit, args=("c2s", "stdin", b"b\n"))
    waiting.start()
    early.drop()
    waiting.join(10)
    assert not waiting.is_alive()
    early.submit("c2s", "stdin", b"c\n")  # returns at once: nothing is held any more
