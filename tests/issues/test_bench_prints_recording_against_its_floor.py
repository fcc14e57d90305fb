"""The bench gave the recording rate alone, with nothing measured beside it in the same run.

What was wrong: `recording msg/s, all committed` (issue #35 item 3) was one absolute figure, and on
a shared machine it moved by 2x between runs. Now the flood and the in-process stages also insert
the very rows the recorder wrote with plain sqlite3 `executemany` into a fresh file of the same
schema, full-text index included (bench/sqlite_floor.py), and print the recorder's rate as a ratio
of that floor. No timing is asserted here: the floor must hold every row, and the ratio be printed.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from rich.console import Console

from bench.report import evaluate, print_report
from bench.sqlite_floor import insert_floor, stored_rows
from inspector.capture import Recorder
from inspector.capture.sessions import create_session
from inspector.store import StoreWriter
from inspector.store.engine import open_engine


def test_the_floor_inserts_the_recorded_rows_and_indexes_them(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "rec.db")
    try:
        sid = create_session(engine, kind="stdio-wrap", target=["floor"])
        writer = StoreWriter(engine)
        recorder = Recorder([writer]).start()
        tap = recorder.open(sid)
        tap.submit(
            "c2s", "stdin", b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i for i in range(300))
        )
        tap.submit(
            "s2c", "stdout", b"".join(b'{"jsonrpc":"2.0","id":%d,"result":{}}\n' % i for i in range(300))
        )
        tap.end(0, "done")
        recorder.stop()
        writer.close()
    finally:
        engine.dispose()
    columns, rows = stored_rows(tmp_path / "rec.db", sid)
    assert len(rows) == 600 and "id" not in columns and "raw" in columns
    floor = insert_floor(columns, rows, tmp_path)
    assert (floor["stored"], floor["indexed"]) == (600, 600)
    assert floor["seconds"] > 0
    assert not (tmp_path / "floor.db").exists()  # its file is gone after the measure
    with sqlite3.connect(tmp_path / "rec.db") as conn:  # the recording itself is untouched
        assert conn.execute("SELECT COUNT(*) FROM message").fetchone()[0] == 600


def test_the_report_prints_the_ratios_to_the_floor() -> None:
    db = {"ok": True, "bytes_ok": True, "status": "ended", "missing": 0, "rows": 2003, "expected": 2003}
    wrap = {
        "setup": "wrap",
        "requests": 1000,
        "messages": 2000,
        "msgs_per_s": 400_000.0,
        "msgs_per_s_to_exit": 15_000.0,
        "close_to_exit_s": 0.1,
        "response_digest": "x",
        "db": {**db, "bytes_c2s": 1, "bytes_s2c": 1},
        "sqlite_floor": {"rows": 2003, "msgs_per_s": 30_000.0, "seconds": 0.07},
    }
    stages = {"messages": 2000, "repeat": 1, "store": 20.0, "sqlite": 25.0, "recorder": 50.0}
    console = Console(record=True, width=300)
    env = {"cpus": 2, "python": "3.11", "node": "-", "loadavg_start": "0", "loadavg_end": "0"}
    results = {
        "errors": {},
        "env": env,
        "flood": {"wrap": wrap},
        "stages": stages,
        "json_path": "-",
        "seconds": 1.0,
    }
    print_report({**results, "targets": evaluate(results)}, console)
    text = console.export_text()
    assert "of the same 2,003 rows" in text and "30,000 msg/s" in text
    assert "wrap recording (to exit) / floor = 0.50x" in text
    assert "recorder / plain sqlite3 executemany of the same rows (same run): 2.00x" in text
