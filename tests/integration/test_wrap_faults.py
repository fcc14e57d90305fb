"""`mcp-inspect wrap` when things go wrong: crashes, garbage, EOF, signals, kill -9, bad input.

The wraps a signal is sent to (SIGTERM, SIGINT, kill -9) are processes of their own; the others are
forked from a warm server (tests/warm_peers.py): the same pipes and exit status without a Python
start-up each."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from inspector.store import open_engine
from tests.cli_in_process import run
from tests.conftest import SCRIPTED, wrap_argv
from tests.shim_process import ShimProcess, messages, only_session
from tests.warm_peers import warm_wrap_argv


def _wait_for_rows(db: Path, count: int, timeout: float = 20.0) -> None:
    """Wait until `count` message rows are committed (the recorder flushes every few ms)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists():
            with sqlite3.connect(db) as conn:
                try:
                    if conn.execute("SELECT COUNT(*) FROM message").fetchone()[0] >= count:
                        return
                except sqlite3.OperationalError:
                    pass
        time.sleep(0.02)
    raise AssertionError(f"{count} rows were not committed within {timeout}s")


def test_server_crash_mid_session_keeps_everything_and_exit_status(db_path: Path) -> None:
    shim = ShimProcess(warm_wrap_argv(db_path, *SCRIPTED, "--crash-after", "2"))
    shim.request(1, "ping")
    assert json.loads(shim.read_line())["id"] == 1
    shim.request(2, "tools/list")
    assert json.loads(shim.read_line())["id"] == 2
    assert shim.read_line() == b"", "the client must see EOF when the server dies"
    assert shim.wait() == 3
    engine = open_engine(db_path)
    session = only_session(engine)
    assert session.status == "ended" and session.exit_status == 3
    assert session.end_reason == "server-exit"
    rows = messages(engine, session.id)
    assert [(m.direction, m.kind, m.method) for m in rows if m.channel != "stderr"] == [
        ("c2s", "request", "ping"),
        ("s2c", "response", "ping"),
        ("c2s", "request", "tools/list"),
        ("s2c", "response", "tools/list"),
    ]
    stderr_rows = [m for m in rows if m.channel == "stderr"]
    assert stderr_rows and b"crashing on purpose" in stderr_rows[-1].raw
    assert b"crashing on purpose" in shim.stderr_bytes, "stderr must pass through to the client"


def test_non_json_stdout_is_forwarded_and_recorded_invalid(db_path: Path) -> None:
    shim = ShimProcess(warm_wrap_argv(db_path, *SCRIPTED, "--garbage"))
    shim.request(1, "ping")
    assert shim.read_line() == b"this is not json\n"
    assert json.loads(shim.read_line())["result"] == {"echo": "ping"}
    shim.close_stdin()
    assert shim.wait() == 0
    engine = open_engine(db_path)
    rows = messages(engine, only_session(engine).id)
    invalid = [m for m in rows if m.kind == "invalid"]
    assert len(invalid) == 1
    assert invalid[0].raw == b"this is not json\n"
    assert invalid[0].parse_status == "invalid-json"
    assert invalid[0].direction == "s2c"
    assert "not valid JSON" in invalid[0].meta["problem"]


def test_client_eof_closes_server_stdin_and_ends_session(db_path: Path) -> None:
    shim = ShimProcess(warm_wrap_argv(db_path, *SCRIPTED))
    shim.request(7, "ping")
    shim.read_line()
    shim.close_stdin()
    assert shim.wait() == 0
    engine = open_engine(db_path)
    session = only_session(engine)
    assert session.end_reason == "client-eof" and session.exit_status == 0


def test_server_ignoring_eof_is_terminated_after_grace(db_path: Path) -> None:
    shim = ShimProcess(warm_wrap_argv(db_path, *SCRIPTED, "--ignore-eof", extra=("--grace", "0.3")))
    shim.request(1, "ping")
    shim.read_line()
    shim.close_stdin()
    code = shim.wait()
    assert code == 128 + signal.SIGTERM
    session = only_session(open_engine(db_path))
    assert session.end_reason == "client-eof, server terminated"
    assert session.exit_status == -signal.SIGTERM


def test_server_ignoring_sigterm_is_killed_after_grace(db_path: Path) -> None:
    shim = ShimProcess(
        warm_wrap_argv(db_path, *SCRIPTED, "--ignore-eof", "--ignore-term", extra=("--grace", "0.3"))
    )
    shim.request(1, "ping")
    shim.read_line()
    shim.close_stdin()
    assert shim.wait() == 128 + signal.SIGKILL
    assert only_session(open_engine(db_path)).end_reason == "client-eof, server killed"


def test_sigterm_to_shim_is_forwarded_and_loses_nothing(db_path: Path) -> None:
    shim = ShimProcess(wrap_argv(db_path, *SCRIPTED))
    for i in range(1, 51):
        shim.request(i, "ping", {"n": i})
    for _ in range(50):
        assert shim.read_line()
    shim.proc.send_signal(signal.SIGTERM)
    code = shim.wait()
    assert code == 128 + signal.SIGTERM
    engine = open_engine(db_path)
    session = only_session(engine)
    assert session.end_reason == "SIGTERM forwarded to server"
    rows = messages(engine, session.id)
    assert len([m for m in rows if m.kind == "request"]) == 50
    assert len([m for m in rows if m.kind == "response"]) == 50
    assert [m.seq for m in rows] == list(range(1, len(rows) + 1)), "seq must be gap-free"


def test_kill_9_of_shim_leaves_a_clean_database(db_path: Path) -> None:
    shim = ShimProcess(wrap_argv(db_path, *SCRIPTED))
    for i in range(1, 21):
        shim.request(i, "ping")
        shim.read_line()
    _wait_for_rows(db_path, 40)
    shim.proc.kill()
    shim.wait()
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    engine = open_engine(db_path)
    session = only_session(engine)
    assert len(messages(engine, session.id)) >= 40
    from inspector.store import session_state

    assert session_state(session) == "interrupted"


def test_partial_last_line_and_crlf_are_recorded_exactly(db_path: Path) -> None:
    shim = ShimProcess(warm_wrap_argv(db_path, *SCRIPTED))
    shim.send(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n')
    shim.read_line()
    shim.send(b'{"jsonrpc":"2.0","id":2,"meth')
    shim.close_stdin()
    shim.wait()
    engine = open_engine(db_path)
    rows = messages(engine, only_session(engine).id)
    c2s = [m for m in rows if m.direction == "c2s"]
    assert c2s[0].raw.endswith(b"\r\n") and c2s[0].meta.get("crlf") is True
    assert c2s[-1].raw == b'{"jsonrpc":"2.0","id":2,"meth'
    assert "no-newline" in c2s[-1].meta["flags"]


def test_twenty_megabyte_line_passes_unchanged(db_path: Path) -> None:
    size = 20 * 1024 * 1024
    shim = ShimProcess(warm_wrap_argv(db_path, *SCRIPTED, "--big-bytes", str(size)))
    shim.request(1, "tools/call")
    line = shim.read_line(timeout=60)
    assert len(line) > size and json.loads(line)["result"]["blob"] == "x" * size
    shim.close_stdin()
    shim.wait(60)
    engine = open_engine(db_path)
    rows = messages(engine, only_session(engine).id)
    big = [m for m in rows if m.direction == "s2c" and m.channel == "stdout"]
    assert big[0].raw == line and big[0].kind == "response"


def test_durable_mode_commits_before_forwarding(db_path: Path) -> None:
    shim = ShimProcess(warm_wrap_argv(db_path, *SCRIPTED, extra=("--durable",)))
    shim.request(1, "ping")
    shim.read_line()
    # The response reached us only after both messages were committed: no waiting needed.
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM message WHERE channel != 'stderr'").fetchone()[0] == 2
    shim.close_stdin()
    shim.wait()


def test_unknown_command_gives_clear_error(db_path: Path) -> None:
    proc = subprocess.run(
        warm_wrap_argv(db_path, "/nonexistent/server-binary"),
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 127  # as a shell says "command not found" (issue 14)
    assert b"cannot start '/nonexistent/server-binary'" in proc.stderr
    assert b"Traceback" not in proc.stderr
    session = only_session(open_engine(db_path))
    assert session.status == "ended" and session.end_reason.startswith("spawn failed")


def test_corrupt_database_gives_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"definitely not sqlite " * 200)
    proc = run("sessions", "--db", str(bad))  # in this process (tests/cli_in_process.py)
    assert proc.returncode == 2
    assert "not a usable mcp-inspector database" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert bad.read_bytes() == b"definitely not sqlite " * 200, "a corrupt file must not be modified"


def test_two_processes_record_into_one_database(db_path: Path) -> None:
    shims = [ShimProcess(warm_wrap_argv(db_path, *SCRIPTED)) for _ in range(2)]
    for round_ in range(30):
        for shim in shims:
            shim.request(round_, "ping")
        for shim in shims:
            shim.read_line()
    for shim in shims:
        shim.close_stdin()
        assert shim.wait() == 0
    engine = open_engine(db_path)
    from inspector.store import list_sessions

    sessions = list_sessions(engine)
    assert len(sessions) == 2
    for s in sessions:
        rows = messages(engine, s.id)
        assert len(rows) == 60 and s.message_count == 60


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX only")
def test_stderr_lines_are_recorded_as_log(db_path: Path) -> None:
    shim = ShimProcess(warm_wrap_argv(db_path, *SCRIPTED, "--stderr"))
    shim.request(1, "tools/list")
    shim.read_line()
    shim.close_stdin()
    shim.wait()
    engine = open_engine(db_path)
    logs = [m for m in messages(engine, only_session(engine).id) if m.kind == "log"]
    assert (
        logs[0].raw == b"handling tools/list\n" and logs[0].channel == "stderr" and logs[0].direction == "s2c"
    )


def test_sigint_to_shim_reaches_the_server_once(db_path: Path) -> None:
    shim = ShimProcess(wrap_argv(db_path, *SCRIPTED))
    shim.request(1, "ping")
    shim.read_line()
    shim.proc.send_signal(signal.SIGINT)
    # Python servers die of an uncaught KeyboardInterrupt by re-raising SIGINT: status 128 + 2.
    assert shim.wait() == 128 + signal.SIGINT
    session = only_session(open_engine(db_path))
    assert session.end_reason == "SIGINT forwarded to server" and session.exit_status == -signal.SIGINT
    assert b"KeyboardInterrupt" in shim.stderr_bytes, "the server's own stderr reaches the client"
