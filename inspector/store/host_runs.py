"""Host runs: the stdio sessions one host process started, and their messages merged by time.

A `wrap` records the process that started it as `facts["parent"]` (`inspector/host_process.py`:
pid, start time, executable name). Sessions whose parents agree (pid and start time) on the same
machine (`session.host`) were started by one run of one host (Claude Desktop, an IDE, an agent):
a `HostRun`. Its id is its lowest session id (session ids are never reused). Its name is the host's
own, from `clientInfo` of its sessions (`session.client_info`), else the parent's executable name;
its config files are those `install` recorded (`facts["host_config"]["file"]`).

Sessions without a recorded parent (HTTP sessions through the gateway or a proxy, mock and replay
sessions, wraps recorded before this fact existed) belong to no run: an HTTP request carries no
fact naming the process that sent it (its client's port could be traced to a pid on the same
machine only, and only while the connection lives), so they are not guessed into one.

Reads go through `store.db` (DB-API), as every read command's: no SQLAlchemy on this path. The
timeline (`run_timeline`) gives the rows of `store.pages` (its `PAGE_FIELDS`, for the wire) of all
of a run's sessions, ordered by (time, session id, seq), paged forward by that triple.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.errors import NotFoundError
from inspector.store.db import SESSION_COLUMNS, reading, session_of
from inspector.store.models import SQL_INT_MAX, Session
from inspector.store.queries import session_state

if TYPE_CHECKING:
    from inspector.store.db import Store

__all__ = ["HostRun", "TimelineCursor", "host_run", "host_runs", "run_key", "run_timeline"]

# Wraps that recorded a parent. The text test keeps the query plain SQL on both backends; the
# parent's values are compared in Python (`run_key`).
_WITH_PARENT = (
    "SELECT " + ", ".join(SESSION_COLUMNS) + " FROM session"
    " WHERE kind = 'stdio-wrap' AND CAST(facts AS TEXT) LIKE '%\"parent\"%'"
)

RunKey = tuple[str | None, int, int | None]


def run_key(session: Session) -> RunKey | None:
    """(machine, parent pid, parent start) of a session, or None when it has no recorded parent."""
    facts = session.facts if isinstance(session.facts, dict) else {}
    parent = facts.get("parent")
    if not isinstance(parent, dict) or not isinstance(parent.get("pid"), int):
        return None
    started = parent.get("started_ns")
    return session.host, parent["pid"], started if isinstance(started, int) else None


@dataclass
class HostRun:
    """One host process's sessions (by start), what they say of the host, and when the run lasted."""

    id: int  # its lowest session id
    machine: str | None
    pid: int
    parent_started_ns: int | None
    exe: str | None
    sessions: list[Session] = field(default_factory=list)

    @property
    def name(self) -> str | None:
        """The host's name from `clientInfo` (the first session that has one), else its executable's."""
        for s in self.sessions:
            info = s.client_info
            if isinstance(info, dict) and isinstance(info.get("name"), str) and info["name"]:
                return str(info["name"])
        return self.exe

    @property
    def config_files(self) -> list[str]:
        """The host config files its sessions came from (`install`'s `facts["host_config"]`), in order."""
        files: list[str] = []
        for s in self.sessions:
            cfg = s.facts.get("host_config") if isinstance(s.facts, dict) else None
            path = cfg.get("file") if isinstance(cfg, dict) else None
            if isinstance(path, str) and path not in files:
                files.append(path)
        return files

    @property
    def started_ns(self) -> int:
        return min(s.started_ns for s in self.sessions)

    @property
    def live(self) -> bool:
        """Whether any of its sessions is still recording."""
        return any(session_state(s) == "recording" for s in self.sessions)

    @property
    def ended_ns(self) -> int | None:
        """When its last session ended; None while one is live."""
        if self.live:
            return None
        ends = [s.ended_ns for s in self.sessions if s.ended_ns is not None]
        return max(ends) if ends else None

    def summary(self) -> dict[str, Any]:
        """The run as a JSON document, without its sessions (the API's `HostRunOut` and `--json` add them)."""
        return {
            "id": self.id,
            "name": self.name,
            "machine": self.machine,
            "pid": self.pid,
            "parent_started_ns": self.parent_started_ns,
            "exe": self.exe,
            "config_files": self.config_files,
            "started_ns": self.started_ns,
            "ended_ns": self.ended_ns,
            "live": self.live,
        }


def _group(sessions: list[Session]) -> list[HostRun]:
    runs: dict[RunKey, HostRun] = {}
    for s in sorted(sessions, key=lambda s: (s.started_ns, s.id or 0)):
        key = run_key(s)
        if key is None or s.id is None:
            continue
        run = runs.get(key)
        if run is None:
            parent = s.facts["parent"]
            exe = parent.get("exe")
            run = runs[key] = HostRun(
                id=s.id,
                machine=key[0],
                pid=key[1],
                parent_started_ns=key[2],
                exe=exe if isinstance(exe, str) else None,
            )
        run.id = min(run.id, s.id)
        run.sessions.append(s)
    return sorted(runs.values(), key=lambda r: (r.started_ns, r.id), reverse=True)


def host_runs(
    store: Store, *, limit: int = 100, offset: int = 0, name: str | None = None
) -> tuple[list[HostRun], int]:
    """Host runs, newest first (live ones included), and how many there are in all; with `name`,
    those with a session whose name contains it (any case)."""
    with reading(store) as conn:
        found = [session_of(r) for r in conn.rows(_WITH_PARENT)]
    runs = _group(found)
    if name:
        runs = [r for r in runs if any(name.lower() in (s.name or "").lower() for s in r.sessions)]
    return runs[offset : offset + limit], len(runs)


def host_run(store: Store, run_id: int) -> HostRun:
    """The host run a session belongs to (any of its session ids names it; its id is the lowest)."""
    if not 0 <= run_id <= SQL_INT_MAX:
        raise NotFoundError(f"no host run with id {run_id}")
    with reading(store) as conn:
        rows = conn.rows(
            "SELECT " + ", ".join(SESSION_COLUMNS) + " FROM session WHERE id = :id", {"id": run_id}
        )
        if not rows:
            raise NotFoundError(f"no host run with id {run_id}")
        session = session_of(rows[0])
        key = run_key(session)
        if key is None:
            raise NotFoundError(f"session {run_id} belongs to no host run (no host process was recorded)")
        machine = "host IS NULL" if key[0] is None else "host = :host"
        found = [session_of(r) for r in conn.rows(f"{_WITH_PARENT} AND {machine}", {"host": key[0]})]
    return next(r for r in _group(found) if run_key(r.sessions[0]) == key)


TimelineCursor = tuple[int, int, int]  # (ts_ns, session_id, seq) of the last row of a page


def run_timeline(
    store: Store,
    session_ids: list[int],
    *,
    after: TimelineCursor | None = None,
    channels: tuple[str, ...] = (),
    limit: int = 500,
) -> list[dict[str, Any]]:
    """The rows (`store.pages` rows for the wire, with `session_id`) of these sessions by
    (time, session id, seq), those after `after`, of these channels (all when empty)."""
    from inspector.store.pages import PREVIEW_BYTES, ROW_FIELDS, wire_rows  # imports SQLAlchemy

    if not session_ids:
        return []
    params: dict[str, Any] = {f"s{i}": sid for i, sid in enumerate(session_ids)}
    conds = [f"session_id IN ({', '.join(':' + k for k in params)})"]
    if channels:
        cparams = {f"c{i}": c for i, c in enumerate(channels)}
        conds.append(f"channel IN ({', '.join(':' + k for k in cparams)})")
        params.update(cparams)
    if after is not None:
        conds.append(
            "(ts_ns > :ts OR (ts_ns = :ts AND (session_id > :sid OR (session_id = :sid AND seq > :seq))))"
        )
        params.update(ts=after[0], sid=after[1], seq=after[2])
    sql = (
        f"SELECT {', '.join(ROW_FIELDS)}, substr(raw, 1, {PREVIEW_BYTES}) FROM message"
        f" WHERE {' AND '.join(conds)} ORDER BY ts_ns, session_id, seq LIMIT :limit"
    )
    params["limit"] = limit
    with reading(store) as conn:
        tuples = conn.all(sql, params)
        return wire_rows(tuples, sqlite=conn.backend == "sqlite")
