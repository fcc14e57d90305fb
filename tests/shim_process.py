"""Test helper: drive `mcp-inspect wrap` as a real subprocess with raw bytes."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from typing import Any

from sqlalchemy import Engine

from inspector.store import Message, iter_messages, list_sessions


class ShimProcess:
    """A running shim whose stdout lines are collected by a reader thread."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stdout_bytes = bytearray()
        self.stderr_bytes = bytearray()
        self._out = threading.Thread(target=self._read_stdout, daemon=True)
        self._err = threading.Thread(target=self._read_stderr, daemon=True)
        self._out.start()
        self._err.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.stdout_bytes.extend(line)
            self.lines.put(line)
        self.lines.put(b"")  # EOF marker

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr_bytes.extend(line)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, rpc_id: int, method: str, params: dict[str, Any] | None = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(json.dumps(msg).encode() + b"\n")

    def read_line(self, timeout: float = 20.0) -> bytes:
        """The next stdout line (b"" at EOF); fails the test on timeout."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no output from the shim within {timeout}s; stderr: {self.stderr_bytes!r}"
            ) from None

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def wait(self, timeout: float = 60.0) -> int:
        code = self.proc.wait(timeout)
        self._out.join(timeout)
        self._err.join(timeout)
        return code


def only_session(engine: Engine):  # type: ignore[no-untyped-def]
    sessions = list_sessions(engine)
    assert len(sessions) == 1, sessions
    return sessions[0]


def ended_session(engine: Engine, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    """The database's one session once it has ended. A host that makes `wrap` leave before its
    store opened (the SDK client's SIGTERM after closing stdin, on a loaded machine) gets it
    recorded by a finishing process a few seconds after the client is gone."""
    deadline = time.monotonic() + timeout
    while True:
        sessions = list_sessions(engine)
        if len(sessions) == 1 and sessions[0].status == "ended":
            return sessions[0]
        if time.monotonic() > deadline:
            session = only_session(engine)
            raise AssertionError(f"session {session.id} still {session.status} after {timeout:.0f} s")
        time.sleep(0.1)


def ended_named(db: Any, name: str, count: int = 1, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    """The newest session named `name` once `count` sessions of that name have ended (`db`: a path,
    a URL or an engine). Like `ended_session`: an SDK client's SIGTERM can make `wrap` hand what it
    held to a finishing process, which records the session seconds after the client is gone; a
    test reading the store at once would find it missing, or find another session under its id."""
    from inspector.store import open_engine

    engine = db if isinstance(db, Engine) else open_engine(db)
    deadline = time.monotonic() + timeout
    try:
        while True:
            named = [s for s in list_sessions(engine, limit=10_000) if s.name == name]
            ended = [s for s in named if s.status == "ended"]
            if len(ended) >= count:
                return max(ended, key=lambda s: s.id)
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{len(ended)} of {count} sessions named {name!r} ended within {timeout:.0f} s "
                    f"({len(named)} found)"
                )
            time.sleep(0.1)
    finally:
        if engine is not db:
            engine.dispose()


def ended_count(db: Any, name: str) -> int:
    """Sessions named `name` that have ended (0 for a database file not created yet)."""
    from pathlib import Path

    from inspector.store import open_engine

    if isinstance(db, Path) and not db.exists():
        return 0
    engine = open_engine(db)
    try:
        return sum(1 for s in list_sessions(engine, limit=10_000) if s.name == name and s.status == "ended")
    finally:
        engine.dispose()


def messages(engine: Engine, session_id: int) -> list[Message]:
    return list(iter_messages(engine, session_id))


def child_pids(pid: int) -> list[int]:
    """The children of process `pid` (zombies included), read from each of its threads'
    `/proc/PID/task/TID/children`. A thread that ends while it is read is skipped, not the whole
    process. An empty answer proves nothing: a child of an ending thread moves to another thread's
    list, and may be in neither when read (wait for a known child with `reaped` instead)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except (FileNotFoundError, ProcessLookupError):
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listing:
                found.extend(int(c) for c in listing.read().split())
        except (FileNotFoundError, ProcessLookupError):
            continue  # the thread ended
    return found


def first_child(pid: int, timeout: float = 30.0) -> int:
    """The pid of the first child process `pid` starts (a shim's server), once it exists."""
    deadline = time.monotonic() + timeout
    while not (children := child_pids(pid)):
        if time.monotonic() > deadline:
            raise AssertionError(f"process {pid} started no child within {timeout:.0f} s")
        time.sleep(0.002)
    return children[0]


def reaped(child: int, parent: int) -> bool:
    """True once `child` of `parent` has exited and been waited for (no zombie left): its /proc
    entry is gone, or belongs to another process (a reused pid)."""
    try:
        with open(f"/proc/{child}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return int(fields[1]) != parent  # fields[0] is the state, fields[1] the parent's pid
