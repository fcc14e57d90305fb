"""The process that started a `wrap`: its host (Claude Desktop, an IDE, an agent), as a session fact.

`parent_process()` gives `facts["parent"]` of a stdio session: the parent's pid, its start time
(ns since the epoch) and its executable's name. The pid and the start time together name one
process for the life of the machine (a pid alone is reused): the sessions whose parents agree, on the
same machine (`session.host`), were started by one host process and form one host run
(`store/host_runs.py`).

The start time: on Linux, field 22 of /proc/PID/stat (clock ticks since boot) plus the boot time
(`btime` of /proc/stat), so every child of one process computes the same value. Elsewhere nothing
cheap gives it (macOS needs sysctl, Windows its process API): None, and a run is then its host's
pid on that machine. Only `os` is imported: a wrap reads this on its store thread.
"""

from __future__ import annotations

import os

__all__ = ["parent_process", "process_facts"]

_PROC = "/proc"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _started_ns(pid: int, proc: str) -> int | None:
    """When the process started (ns since the epoch), from /proc; None where there is no /proc."""
    stat = _read(f"{proc}/{pid}/stat")
    boot = _read(f"{proc}/stat")
    if stat is None or boot is None:
        return None
    # Field 2 (the command name, in parentheses) may hold spaces and parentheses: split after the last ')'.
    fields = stat[stat.rfind(")") + 2 :].split()
    btime = next((line.split()[1] for line in boot.splitlines() if line.startswith("btime ")), None)
    try:
        ticks = int(fields[19])  # field 22 of the whole line; fields[0] is field 3
        hz = os.sysconf("SC_CLK_TCK")
        return int(btime) * 1_000_000_000 + ticks * 1_000_000_000 // hz  # type: ignore[arg-type]
    except (IndexError, ValueError, TypeError, OSError):
        return None


def _exe_name(pid: int, proc: str) -> str | None:
    """The executable's file name (the link /proc/PID/exe, else its `comm`); None where unknown."""
    try:
        return os.path.basename(os.readlink(f"{proc}/{pid}/exe")) or None
    except OSError:
        comm = _read(f"{proc}/{pid}/comm")
        return comm.strip() or None if comm is not None else None


def process_facts(pid: int, *, proc: str = _PROC) -> dict[str, object]:
    """{"pid", "started_ns", "exe"} of a process (None for what this platform does not tell cheaply)."""
    return {"pid": pid, "started_ns": _started_ns(pid, proc), "exe": _exe_name(pid, proc)}


def parent_process() -> dict[str, object]:
    """`process_facts` of this process's parent."""
    return process_facts(os.getppid())
