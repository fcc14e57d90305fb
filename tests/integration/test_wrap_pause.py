"""Pause and resume a live wrap's recording by signal and by `mcp-inspect pause/resume`, and
metadata-only recording from a per-server rule in a config file (#20, pause20).

A real `mcp-inspect wrap` subprocess around a real NDJSON peer (tests/peers/line_echo_server.py),
driven with raw bytes: the client sees every answer while paused, the store holds none of the
messages made while paused, and the session's facts mark where recording paused. The wraps whose
pid a test signals or checks are processes of their own; the rules' wraps are forked from a warm
server (tests/warm_peers.py: the pid they record is their own, which `resume` signals).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from inspector.errors import InspectorError
from inspector.mock.runner import MockOptions, prepare_mock
from inspector.recording_control import switch_session
from inspector.replay.report import replay_verdict
from inspector.store import iter_messages, open_engine
from tests.cli_in_process import Ran, run
from tests.conftest import PEERS, wrap_argv
from tests.shim_process import ShimProcess, ended_session
from tests.warm_peers import warm_wrap_argv

ECHO = [sys.executable, str(PEERS / "line_echo_server.py")]


def _ask(shim: ShimProcess, rpc_id: int, text: str) -> None:
    shim.request(rpc_id, "tools/call", {"name": "echo", "arguments": {"text": text}})
    answer = json.loads(shim.read_line())
    assert answer["id"] == rpc_id and answer["result"]["params"]["arguments"]["text"] == text


def _session(db: Path, timeout: float = 30.0) -> tuple[int, dict[str, Any]]:
    """The one session once its store is open and announced (its first rows are in)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists():
            try:
                with sqlite3.connect(db) as conn:
                    row = conn.execute("SELECT id, facts FROM session").fetchone()
                    count = conn.execute("SELECT count(*) FROM message").fetchone()[0]
            except sqlite3.OperationalError:  # the store is still creating its tables
                row, count = None, 0
            if row and count:
                return row[0], json.loads(row[1]) if row[1] else {}
        time.sleep(0.05)
    raise AssertionError("no session recorded")


def _pauses(db: Path) -> list[dict[str, Any]]:
    return _session(db)[1].get("recording_pauses", [])


def _wait_pauses(db: Path, predicate: Any, timeout: float = 10.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pauses = _pauses(db)
        if predicate(pauses):
            return pauses
        time.sleep(0.05)
    raise AssertionError(f"pauses never matched: {_pauses(db)}")


def _cli(*args: str, env: dict[str, str] | None = None) -> Ran:
    """`mcp-inspect ARGS...` in-process (tests/cli_in_process.py): pause and resume signal the wrap process."""
    return run(*args, env=env)


def test_pause_and_resume_by_command_and_signal(db_path: Path) -> None:
    shim = ShimProcess(wrap_argv(db_path, *ECHO))
    _ask(shim, 1, "before")
    sid, _ = _session(db_path)
    paused = _cli("pause", str(sid), "--db", str(db_path))
    assert paused.returncode == 0, paused.stderr
    assert f"session {sid}: paused" in paused.stdout
    _ask(shim, 2, "while-paused-by-command")
    again = _cli("pause", str(sid), "--db", str(db_path))  # already paused: says so, no second pause
    assert again.returncode == 0, again.stderr
    resumed = _cli("resume", str(sid), "--db", str(db_path))
    assert resumed.returncode == 0 and "recording again" in resumed.stdout, resumed.stderr
    _ask(shim, 3, "after-resume")
    # A request split over a pause boundary: its first half before SIGUSR1, the rest while paused.
    line = json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "split-over-pause"}}}).encode() + b"\n"  # fmt: skip
    shim.send(line[:20])
    time.sleep(0.1)
    os.kill(shim.proc.pid, signal.SIGUSR1)
    _wait_pauses(db_path, lambda p: len(p) == 2)
    shim.send(line[20:])
    assert json.loads(shim.read_line())["id"] == 4
    _ask(shim, 5, "while-paused-by-signal")
    os.kill(shim.proc.pid, signal.SIGUSR2)
    _wait_pauses(db_path, lambda p: len(p) == 2 and p[1]["to_ns"] is not None)
    _ask(shim, 6, "last")
    shim.close_stdin()
    assert shim.wait() == 0
    engine = open_engine(db_path)
    try:
        session = ended_session(engine)
        rows = list(iter_messages(engine, session.id))
    finally:
        engine.dispose()
    assert [(m.direction, m.rpc_id) for m in rows] == [(d, str(i)) for i in (1, 3, 6) for d in ("c2s", "s2c")]
    every = b"".join(m.raw for m in rows)
    assert b"while-paused" not in every and b"split-over-pause" not in every
    first, second = session.facts["recording_pauses"]
    assert first["after_seq"] == 2 and first["messages_not_recorded"] == 2
    assert b"6 messages recorded, 6 not recorded (paused)" in shim.stderr_bytes
    assert second["after_seq"] == 4 and second["messages_not_recorded"] == 4
    assert [m.seq for m in rows] == [1, 2, 3, 4, 5, 6]  # gap-free, as the timeline needs
    # Ended: refused with a clear line, exit status 2.
    late = _cli("resume", str(sid), "--db", str(db_path))
    assert late.returncode == 2 and "has ended" in late.stderr, late.stderr


def test_pause_refuses_another_host_and_a_gone_process(db_path: Path) -> None:
    shim = ShimProcess(wrap_argv(db_path, *ECHO))
    _ask(shim, 1, "x")
    sid, _ = _session(db_path)
    with sqlite3.connect(db_path) as conn:
        (pid,) = conn.execute("SELECT pid FROM session WHERE id = ?", (sid,)).fetchone()
        conn.execute("UPDATE session SET host = 'elsewhere.example' WHERE id = ?", (sid,))
    engine = open_engine(db_path)
    try:
        with pytest.raises(InspectorError, match="recorded on host 'elsewhere.example', not here"):
            switch_session(engine, sid, True)
        with sqlite3.connect(db_path) as conn:  # a live pid that is not the recorder (this test's)
            conn.execute("UPDATE session SET host = NULL, pid = ? WHERE id = ?", (os.getpid(), sid))
        with pytest.raises(InspectorError, match="is gone or does not take pause signals"):
            switch_session(engine, sid, True)
    finally:
        engine.dispose()
    _ask(shim, 2, "still forwarding")
    shim.close_stdin()
    assert shim.wait() == 0
    assert pid == shim.proc.pid


def test_metadata_only_rule_keeps_no_bodies(db_path: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[[servers]]\nmatch = "*line_echo_server*"\nrecord = "metadata"\n')
    env = {**os.environ, "MCP_INSPECTOR_CONFIG": str(config)}
    secret = "sk-live-SECRETPAYLOAD-4f9a1c"
    shim = ShimProcess(warm_wrap_argv(db_path, *ECHO), env=env)
    _ask(shim, 1, secret)
    _ask(shim, 2, secret * 50)
    shim.close_stdin()
    assert shim.wait() == 0
    engine = open_engine(db_path)
    try:
        session = ended_session(engine)
        rows = list(iter_messages(engine, session.id))
    finally:
        engine.dispose()
    assert [(m.direction, m.kind, m.method, m.rpc_id) for m in rows] == [
        (d, k, "tools/call", str(i)) for i in (1, 2) for d, k in (("c2s", "request"), ("s2c", "response"))
    ]
    assert all(m.raw == b"" and m.size > len(secret) for m in rows)
    assert rows[2].size > 50 * len(secret)
    assert all(m.meta["body"] == "not recorded (metadata only)" for m in rows)
    assert session.facts["record"] == "metadata"
    for path in db_path.parent.glob(db_path.name + "*"):  # the file, its WAL and any journal
        assert secret.encode() not in path.read_bytes(), path
    # Replay, mock and export need the bodies: each refuses with the reason.
    engine = open_engine(db_path)
    try:
        reason = f"session {session.id} was recorded metadata only"
        with pytest.raises(InspectorError, match=reason + ".*cannot be replayed"):
            replay_verdict(engine, session, "http://127.0.0.1:9/mcp")
        with pytest.raises(InspectorError, match=reason + ".*cannot be served as a mock server"):
            prepare_mock(engine, MockOptions(session_ref=str(session.id)))
    finally:
        engine.dispose()
    exported = _cli("export", str(session.id), "--db", str(db_path), env=env)
    assert exported.returncode == 2 and "cannot be exported" in exported.stderr, exported.stderr
    assert not exported.stdout


def test_a_paused_rule_starts_the_session_paused(db_path: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[[servers]]\nmatch = "*line_echo_server*"\nrecord = "paused"\n')
    shim = ShimProcess(
        warm_wrap_argv(db_path, *ECHO), env={**os.environ, "MCP_INSPECTOR_CONFIG": str(config)}
    )
    _ask(shim, 1, "not kept")
    deadline = time.monotonic() + 30
    while not (db_path.exists() and _started(db_path)):
        assert time.monotonic() < deadline, "the wrap's store never opened"
        time.sleep(0.05)
    sid = _started(db_path)
    engine = open_engine(db_path)
    try:
        assert switch_session(engine, sid, False) is False  # waits until the facts say so
    finally:
        engine.dispose()
    _ask(shim, 2, "kept")
    shim.close_stdin()
    assert shim.wait() == 0
    engine = open_engine(db_path)
    try:
        session = ended_session(engine)
        rows = list(iter_messages(engine, session.id))
    finally:
        engine.dispose()
    assert [(m.seq, m.direction, m.rpc_id) for m in rows] == [(1, "c2s", "2"), (2, "s2c", "2")]
    (pause,) = session.facts["recording_pauses"]
    assert pause["after_seq"] == 0 and pause["messages_not_recorded"] == 2 and pause["to_ns"]


def _started(db: Path) -> int | None:
    """The session's id once its store has opened (it is announced before any row)."""
    try:
        with sqlite3.connect(db) as conn:
            row = conn.execute("SELECT id, facts FROM session").fetchone()
    except sqlite3.OperationalError:
        return None
    return row[0] if row and row[1] and "recording_pauses" in row[1] else None
