"""Host runs (store/host_runs.py): the wraps one host process started, grouped by their recorded
parent (pid + start time on one machine), and their rows merged by time. Sessions are recorded
through the real recorder and store writer, with the facts a wrap records (`facts["parent"]`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest

from inspector.capture import Recorder
from inspector.capture.redact import Redaction
from inspector.capture.sessions import create_session
from inspector.errors import NotFoundError
from inspector.host_process import process_facts
from inspector.store import StoreWriter, open_engine
from inspector.store.host_runs import host_run, host_runs, run_timeline

T0 = 1_700_000_000_000_000_000
HOST_A = {"pid": 4242, "started_ns": 1_690_000_000_000_000_000, "exe": "claude"}
HOST_B = {"pid": 4343, "started_ns": 1_690_000_000_000_000_000, "exe": "cursor"}
# The same pid as HOST_A, started later: another process (the pid was reused), another run.
HOST_A_REUSED = {**HOST_A, "started_ns": HOST_A["started_ns"] + 10**9}


def _init(client: str) -> bytes:
    return (
        orjson.dumps(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": client, "version": "1"},
                },
            }
        )
        + b"\n"
    )


def _record(
    engine, recorder, name: str, facts: dict, lines: list[tuple[int, str, str, bytes]], *, end: bool = True
) -> int:
    sid = create_session(engine, kind="stdio-wrap", target=["server", name], name=name)
    tap = recorder.open(sid)
    tap.add_facts(facts)
    for ts, direction, channel, data in lines:
        tap.submit(direction, channel, data, T0 + ts)
    if end:
        tap.end(0, "server exited")
    return sid


@pytest.fixture
def recorded(db_path: Path):
    engine = open_engine(db_path)
    recorder = Recorder([StoreWriter(engine)], redaction=Redaction()).start()
    config = {
        "host": "claude-desktop",
        "file": "/home/u/.config/Claude/claude_desktop_config.json",
        "entry": "x",
    }
    a1 = _record(
        engine, recorder, "weather", {"parent": HOST_A, "host_config": config},
        [(10, "c2s", "stdin", _init("claude-ai")), (30, "s2c", "stderr", b"weather: starting\n"),
         (50, "s2c", "stdout", b'{"jsonrpc":"2.0","id":0,"result":{}}\n')],
    )  # fmt: skip
    a2 = _record(
        engine, recorder, "files", {"parent": HOST_A},
        [(20, "c2s", "stdin", _init("claude-ai")), (40, "s2c", "stderr", b"files: ready\n")],
        end=False,
    )  # fmt: skip
    b = _record(engine, recorder, "other", {"parent": HOST_B}, [(15, "c2s", "stdin", _init("cursor-vscode"))])
    reused = _record(
        engine, recorder, "later", {"parent": HOST_A_REUSED}, [(60, "c2s", "stdin", _init("claude-ai"))]
    )
    lone = _record(engine, recorder, "lone", {}, [(5, "c2s", "stdin", _init("inspector"))])
    recorder.stop()  # every row and fact is written (and every open session ended)
    # a2 as a wrap still running leaves it: `recording`, its recorder (this process) alive.
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE session SET status = 'recording', ended_ns = NULL WHERE id = ?", (a2,))
    yield engine, {"a1": a1, "a2": a2, "b": b, "reused": reused, "lone": lone}
    engine.dispose()


def test_sessions_of_one_host_process_form_one_run(recorded) -> None:
    engine, ids = recorded
    runs, total = host_runs(engine)
    assert total == 3  # A, B, A's pid reused; the session without a parent is in none
    by_id = {r.id: r for r in runs}
    run_a = by_id[ids["a1"]]
    assert [s.id for s in run_a.sessions] == [ids["a1"], ids["a2"]]
    assert run_a.name == "claude-ai"  # from clientInfo, not the executable
    assert run_a.config_files == ["/home/u/.config/Claude/claude_desktop_config.json"]
    assert run_a.live and run_a.ended_ns is None
    assert run_a.pid == 4242 and run_a.exe == "claude"
    assert [s.id for s in by_id[ids["b"]].sessions] == [ids["b"]]
    assert not by_id[ids["b"]].live and by_id[ids["b"]].ended_ns is not None
    assert [s.id for s in by_id[ids["reused"]].sessions] == [ids["reused"]]
    assert ids["lone"] not in {s.id for r in runs for s in r.sessions}
    # Paged, newest first.
    first, total = host_runs(engine, limit=1)
    assert total == 3 and len(first) == 1
    assert [r.id for r in host_runs(engine, limit=5, offset=1)[0]] == [r.id for r in runs[1:]]


def test_any_session_names_its_run(recorded) -> None:
    engine, ids = recorded
    assert host_run(engine, ids["a2"]).id == ids["a1"]
    assert [s.id for s in host_run(engine, ids["a1"]).sessions] == [ids["a1"], ids["a2"]]
    with pytest.raises(NotFoundError, match="no host process"):
        host_run(engine, ids["lone"])
    with pytest.raises(NotFoundError, match="no host run with id 999"):
        host_run(engine, 999)
    with pytest.raises(NotFoundError):
        host_run(engine, 2**70)


def test_the_timeline_merges_the_runs_sessions_by_time_with_stderr(recorded) -> None:
    engine, ids = recorded
    run = host_run(engine, ids["a1"])
    rows = run_timeline(engine, [s.id for s in run.sessions])
    got = [(r["session_id"], r["channel"], r["ts_ns"] - T0) for r in rows]
    assert got == [
        (ids["a1"], "stdin", 10),
        (ids["a2"], "stdin", 20),
        (ids["a1"], "stderr", 30),
        (ids["a2"], "stderr", 40),
        (ids["a1"], "stdout", 50),
    ]
    assert rows[2]["preview"].startswith("weather: starting")
    # Paged forward by (time, session, seq), and filtered by channel.
    first = run_timeline(engine, [ids["a1"], ids["a2"]], limit=2)
    last = first[-1]
    rest = run_timeline(
        engine, [ids["a1"], ids["a2"]], after=(last["ts_ns"], last["session_id"], last["seq"])
    )
    assert [(r["session_id"], r["seq"]) for r in first + rest] == [(r["session_id"], r["seq"]) for r in rows]
    stderr = run_timeline(engine, [ids["a1"], ids["a2"]], channels=("stderr",))
    assert [r["preview"].strip() for r in stderr] == ["weather: starting", "files: ready"]
    assert run_timeline(engine, []) == []


def test_process_facts_name_a_process_by_pid_and_start(tmp_path: Path) -> None:
    """On Linux the start time comes from /proc: field 22 of PID/stat (ticks since boot) + btime."""
    import os

    proc = tmp_path / "proc"
    (proc / "77").mkdir(parents=True)
    (proc / "stat").write_text("cpu  1 2 3\nbtime 1700000000\nprocesses 5\n")
    # A command name with spaces and a parenthesis must not shift the fields.
    fields = ["S"] + ["0"] * 18 + ["250"] + ["0"] * 10
    (proc / "77" / "stat").write_text("77 (a b) c) " + " ".join(fields) + "\n")
    (proc / "77" / "comm").write_text("a b) c\n")
    hz = os.sysconf("SC_CLK_TCK")
    facts = process_facts(77, proc=str(proc))
    assert facts == {"pid": 77, "started_ns": 1700000000 * 10**9 + 250 * 10**9 // hz, "exe": "a b) c"}
    assert process_facts(78, proc=str(proc)) == {"pid": 78, "started_ns": None, "exe": None}
