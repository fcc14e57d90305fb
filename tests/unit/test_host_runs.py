"""Host runs (store/host_runs.py): the wraps one host process started, grouped by their recorded
parent (pid + start time on one machine), and their rows merged by time. Sessions are recorded
through the real recorder and store writer, with the facts a wrap records (`facts["parent"]`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.errors import NotFoundError
from inspector.host_process import process_facts
from inspector.store import open_engine
from inspector.store.host_runs import host_run, host_runs, run_timeline
from tests.host_runs_data import MS, T0, record_runs


@pytest.fixture
def recorded(any_store: Path | str):
    """The runs of tests/host_runs_data.py on each backend (the query's JSON text test on both)."""
    ids = record_runs(any_store)
    engine = open_engine(any_store)
    yield engine, ids
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
    got = [(r["session_id"], r["channel"], (r["ts_ns"] - T0) // MS) for r in rows]
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
