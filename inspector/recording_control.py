"""Pausing and resuming a live recording from outside its process: signals and announcements.

A recording process (`wrap`, `proxy`) takes SIGUSR1 as "pause recording"
and SIGUSR2 as "resume" (bytes keep flowing either way; see
`capture/pause.py` for what is kept). A wrap pauses its one session; a
proxy or gateway records a session per client and pauses all of them (a
signal names no session: per process, documented).

So that `mcp-inspect pause SESSION` and the UI signal only a process that
is really the recorder of that session (a pid in the database may belong to
another program by now, and SIGUSR1's default action kills), each recording
process announces itself in the runtime directory (`inspector.runtime_dir`)
as `record-<pid>.json`: pid, host, the database, its sessions and the
process's start time (from /proc, when there is one). `switch_session`
refuses a session that has ended, one recorded on another host, or whose
process has no announcement (gone, or an older version) or a different start
time (the pid was reused); then it sends the signal and waits until the
session's facts show the new state.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from typing import Any

from inspector.errors import InspectorError

__all__ = [
    "PAUSE_SIGNAL",
    "RESUME_SIGNAL",
    "announce",
    "is_paused",
    "switch_session",
    "withdraw",
]

# POSIX only: where there is no SIGUSR1 (Windows), nothing is installed and `switch_session` refuses.
PAUSE_SIGNAL: int = getattr(signal, "SIGUSR1", 0)
RESUME_SIGNAL: int = getattr(signal, "SIGUSR2", 0)
PREFIX = "record-"


def _started(pid: int) -> str | None:
    """A process's start time (clock ticks since boot) from /proc, or None where there is none."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return None
    return stat.rpartition(")")[2].split()[19]  # field 22, counted after the command name


def announce(sessions: list[int], db: str, kind: str) -> str | None:
    """Say in the runtime directory that this process records `sessions` and takes the pause
    signals; the file's name (for `withdraw`), or None when the directory is not usable."""
    from inspector.runtime_dir import write_json

    name = f"{PREFIX}{os.getpid()}.json"
    data = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": _started(os.getpid()),
        "db": db,
        "kind": kind,
        "sessions": sessions,
    }
    try:
        write_json(name, data)
    except (OSError, InspectorError):
        return None
    return name


def withdraw(name: str | None) -> None:
    if name:
        from inspector.runtime_dir import remove_file

        remove_file(name)


def is_paused(facts: dict[str, Any] | None) -> bool:
    """Whether a session's recording is paused now (its last pause has no end)."""
    pauses = (facts or {}).get("recording_pauses") or []
    return bool(pauses) and isinstance(pauses[-1], dict) and pauses[-1].get("to_ns") is None


def _announcement(pid: int, db: str) -> dict[str, Any] | None:
    from inspector.runtime_dir import read_json_files

    for data in read_json_files(f"{PREFIX}{pid}."):
        if data.get("pid") == pid and data.get("db") == db:
            return data
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def switch_session(engine: Any, session_ref: int | str, paused: bool, *, wait: float = 3.0) -> bool:
    """Pause (or resume) the recording of a live session by signalling its recording process;
    return the state the session's facts then show. InspectorError (one line) when it cannot."""
    from inspector.store.db import db_key
    from inspector.store.queries import get_session

    session = get_session(engine, session_ref)  # NotFoundError (an InspectorError) when unknown
    session_id = int(session.id or 0)
    verb = "pause" if paused else "resume"
    if session.status != "recording" or session.ended_ns is not None:
        raise InspectorError(f"session {session_id} is not recording (it has ended): nothing to {verb}")
    here = socket.gethostname()
    if session.host and session.host != here:
        raise InspectorError(
            f"session {session_id} is recorded on host {session.host!r}, not here ({here!r}):"
            f" run `mcp-inspect {verb}` there"
        )
    pid = session.pid
    if not PAUSE_SIGNAL:
        raise InspectorError("pausing a recording needs POSIX signals (SIGUSR1), which this system lacks")
    info = _announcement(pid, db_key(engine)) if pid else None
    if pid is None or info is None or not _alive(pid):
        raise InspectorError(
            f"the process that records session {session_id} (pid {pid}) is gone or does not take"
            " pause signals (it is not announced in the runtime directory)"
        )
    if info.get("started") is not None and info.get("started") != _started(pid):
        raise InspectorError(f"the process that recorded session {session_id} (pid {pid}) is gone")
    if is_paused(session.facts) == paused:
        return paused
    os.kill(pid, PAUSE_SIGNAL if paused else RESUME_SIGNAL)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if is_paused(get_session(engine, session_id).facts) == paused:
                return paused
        time.sleep(0.05)
    raise InspectorError(
        f"signalled the process that records session {session_id} (pid {pid}) to {verb}, but its"
        f" session does not show it after {wait:.0f} s"
    )


def record_mode(*, metadata_only: bool, name: str | None = None, command: list[str] | None = None,
                url: str | None = None) -> str:  # fmt: skip
    """How a session is recorded: `metadata` with --metadata-only, else the first per-server
    rule's `record` (full, metadata, paused) from the settings, else full."""
    if metadata_only:
        return "metadata"
    from inspector.settings import load

    rule = load().settings.rule_for(name=name, command=command, url=url)
    return rule.record if rule is not None else "full"


def pause_signals(recorder: Any, engine: Any, kind: str) -> str | None:
    """A process recording several sessions (the proxy): SIGUSR1/SIGUSR2 pause and resume all of
    them (and the ones opened while paused start paused); announced for `switch_session`. Call
    on the main thread; returns the announcement's name for `withdraw`."""
    import threading

    from inspector.store.db import db_key

    if not PAUSE_SIGNAL or threading.current_thread() is not threading.main_thread():
        return None  # handlers can only be set on the main thread (an in-process test's proxy)
    signal.signal(PAUSE_SIGNAL, lambda *_: recorder.pause_all(True))
    signal.signal(RESUME_SIGNAL, lambda *_: recorder.pause_all(False))
    return announce([], db_key(engine), kind)


def switch_command(engine: Any, session_ref: str, *, paused: bool) -> None:
    """`mcp-inspect pause` / `resume`: one line saying what happened (errors: InspectorError)."""
    from inspector.store.queries import get_session

    session_id = int(get_session(engine, session_ref).id or 0)
    switch_session(engine, session_id, paused)
    state = "paused (bytes keep flowing, nothing is recorded)" if paused else "recording again"
    print(f"session {session_id}: {state}")
