"""Retention: which recorded sessions a policy removes, removing them, and giving the space back.

`choose` is the pure core (sessions in, the plan out); `plan` reads what it needs from the store
(one query for the sessions, one for their sizes, the database's usage); `apply` removes the
planned sessions a few per write transaction (recorders writing meanwhile wait for the lock for a
moment at most, never for the whole prune) and then reclaims the space.

Rules (`settings.Retention`):
- pinned sessions are never removed; labelled ones are kept while `keep_labelled` (the default);
- a session still recording is never removed, whatever the rule: one over `max_session_size`
  is reported (`Plan.live_over_size`) and goes once it has ended and is still over;
- `max_age`: sessions that started longer ago than that go;
- `max_session_size`: ended sessions storing more than that go (whole: a session is the unit);
- `max_total_size`: while the store holds more than that, the oldest remaining sessions go
  (by start time). A session's share of the store is its rows' bytes (`usage.session_bytes`)
  scaled by the store's bytes in use over the sum of every session's bytes, so that indexes and
  the full-text index count too.

Space: SQLite files created by this version keep free-page maps (auto_vacuum=INCREMENTAL, set by
the engine's connect pragmas) and `apply` runs `PRAGMA incremental_vacuum` in small steps, then a
passive checkpoint so the WAL's copy of the shrunken file reaches the disk. An older file
(auto_vacuum NONE) is converted once by `apply(..., convert=True)` (`mcp-inspect prune`): a full
VACUUM that rewrites the file, needs as much free disk space as the file and holds the write
lock while it runs; recorders never do that (the freed pages are reused by new rows instead).
PostgreSQL: a plain VACUUM of the tables (outside a transaction) after the deletes, which makes
the space reusable and returns trailing empty pages to the disk.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.settings import Retention
from inspector.store import fts
from inspector.store.db import Conn, backend_of, connect_writer, reading
from inspector.store.models import Session
from inspector.store.queries import delete_sessions, session_state
from inspector.store.usage import TABLES, Usage, session_bytes, store_usage

if TYPE_CHECKING:
    from inspector.store.db import Store

__all__ = [
    "BATCH",
    "Candidate",
    "Outcome",
    "Plan",
    "SessionInfo",
    "apply",
    "choose",
    "plan",
    "reclaim",
    "session_infos",
]

BATCH = 3  # sessions deleted per write transaction
_VACUUM_STEP = 512  # pages given back per incremental_vacuum (2 MiB at 4 KiB pages): one short lock each


@dataclass(frozen=True)
class SessionInfo:
    """What retention knows of one session."""

    id: int
    name: str | None
    started_ns: int
    bytes: int
    pinned: bool = False
    labelled: bool = False
    state: str = "ended"  # recording, ended, interrupted (`queries.session_state`)

    @property
    def live(self) -> bool:
        """Still recording: never removed."""
        return self.state == "recording"


@dataclass(frozen=True)
class Candidate:
    """A session the plan removes, and why: `age`, `session size` or `total size`."""

    id: int
    name: str | None
    started_ns: int
    bytes: int
    reason: str


@dataclass
class Plan:
    """What a policy removes now (oldest first), and the numbers it was decided on."""

    retention: Retention
    now_ns: int
    remove: list[Candidate] = field(default_factory=list)
    live_over_size: list[SessionInfo] = field(default_factory=list)  # kept: still recording
    kept: list[SessionInfo] = field(default_factory=list)  # pinned or labelled (kept whatever the policy)
    sessions: int = 0
    used_bytes: int = 0  # the store's bytes in use
    scale: float = 1.0  # store bytes per session byte (indexes, full-text index)

    @property
    def remove_bytes(self) -> int:
        return sum(c.bytes for c in self.remove)

    @property
    def after_bytes(self) -> int:
        """The store's bytes in use once the plan is applied (an estimate)."""
        return max(0, self.used_bytes - int(self.remove_bytes * self.scale))


@dataclass
class Outcome:
    """What `apply` did."""

    removed: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)  # pinned or gone meanwhile
    before: Usage | None = None
    after: Usage | None = None
    vacuum: str = ""  # how space was reclaimed, for the summary

    @property
    def reclaimed_bytes(self) -> int:
        if self.before is None or self.after is None:
            return 0
        return max(0, self.before.file_bytes - self.after.file_bytes)


def choose(sessions: list[SessionInfo], retention: Retention, now_ns: int, used_bytes: int) -> Plan:
    """The plan for `sessions` under `retention` at `now_ns`, the store using `used_bytes`."""
    total_rows = sum(s.bytes for s in sessions)
    scale = used_bytes / total_rows if total_rows and used_bytes > total_rows else 1.0
    out = Plan(retention, now_ns, sessions=len(sessions), used_bytes=used_bytes, scale=scale)
    ordered = sorted(sessions, key=lambda s: (s.started_ns, s.id))
    removable: list[SessionInfo] = []
    for s in ordered:
        if s.pinned or (retention.keep_labelled and s.labelled):
            out.kept.append(s)
        elif s.live:
            if retention.max_session_size is not None and s.bytes > retention.max_session_size:
                out.live_over_size.append(s)
        else:
            removable.append(s)
    chosen: dict[int, str] = {}
    if retention.max_age is not None:
        cutoff = now_ns - int(retention.max_age * 1e9)
        for s in removable:
            if s.started_ns < cutoff:
                chosen[s.id] = "age"
    if retention.max_session_size is not None:
        for s in removable:
            if s.id not in chosen and s.bytes > retention.max_session_size:
                chosen[s.id] = "session size"
    if retention.max_total_size is not None:
        left = used_bytes - sum(int(s.bytes * scale) for s in removable if s.id in chosen)
        for s in removable:
            if left <= retention.max_total_size:
                break
            if s.id not in chosen:
                chosen[s.id] = "total size"
                left -= int(s.bytes * scale)
    out.remove = [
        Candidate(s.id, s.name, s.started_ns, s.bytes, chosen[s.id]) for s in removable if s.id in chosen
    ]
    return out


def session_infos(engine: Store) -> list[SessionInfo]:
    with reading(engine) as conn:
        rows: list[Any] = conn.all(
            "SELECT id, name, started_ns, status, host, pid, labels, pinned FROM session"
        )
        sizes = session_bytes(conn)
    infos = []
    for sid, name, started, status, host, pid, labels, pinned in rows:
        probe = Session(id=sid, started_ns=started, status=status, host=host, pid=pid, kind="")
        # labels: JSON text on SQLite, already decoded on PostgreSQL; "[]" and null are no labels.
        labelled = bool(labels) and labels not in ("[]", "null")
        infos.append(
            SessionInfo(
                int(sid),
                name,
                int(started),
                sizes.get(int(sid), 0),
                bool(pinned),
                labelled,
                session_state(probe),
            )
        )
    return infos


def plan(engine: Store, retention: Retention, now_ns: int | None = None) -> Plan:
    """What `retention` removes from this store now (nothing is changed)."""
    now = time.time_ns() if now_ns is None else now_ns
    return choose(session_infos(engine), retention, now, store_usage(engine).used_bytes)


def apply(
    engine: Store,
    planned: Plan,
    *,
    convert: bool = False,
    progress: Callable[[int, int], None] | None = None,
    batch: int = BATCH,
) -> Outcome:
    """Remove the planned sessions (`batch` per transaction), then reclaim the space (`reclaim`).
    A session pinned, or gone, since the plan was made is skipped. `progress(done, total)` after
    each transaction."""
    out = Outcome(before=store_usage(engine))
    ids = [c.id for c in planned.remove]
    for start in range(0, len(ids), batch):
        chunk = ids[start : start + batch]
        # Pinned meanwhile, or already gone (another process pruned): left alone.
        doomed = delete_sessions(engine, chunk, keep_pinned=True)
        out.skipped.extend(i for i in chunk if i not in doomed)
        out.removed.extend(doomed)
        if progress is not None:
            progress(min(start + batch, len(ids)), len(ids))
    out.vacuum = reclaim(engine, convert=convert) if out.removed or convert else "nothing to reclaim"
    out.after = store_usage(engine)
    return out


def reclaim(engine: Store, *, convert: bool = False) -> str:
    """Give free space back to the disk; say how (one line)."""
    backend = backend_of(engine)
    if backend not in ("sqlite", "postgresql"):
        return "no vacuum for this database"
    conn: Conn = connect_writer(engine)  # in autocommit: VACUUM runs outside a transaction
    try:
        if backend == "postgresql":
            conn.execute("VACUUM " + ", ".join(TABLES))
            return "VACUUM (PostgreSQL: freed space reusable, trailing pages returned)"
        raw = conn.raw
        fts.compact(raw)  # the removed messages' full-text entries leave the index's pages
        mode = int(raw.execute("PRAGMA auto_vacuum").fetchone()[0])
        if mode == 0:
            if not convert:
                return "free pages kept for reuse (file in auto_vacuum NONE: run mcp-inspect prune once)"
            # Switch once: the setting applies at the VACUUM, which rewrites the whole file.
            raw.execute("PRAGMA auto_vacuum=INCREMENTAL")
            raw.execute("VACUUM")
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            return "full VACUUM (file converted to auto_vacuum=INCREMENTAL)"
        steps = 0
        while int(raw.execute("PRAGMA freelist_count").fetchone()[0]) > 0 and steps < 1_000_000:
            # Each statement is its own short write transaction (autocommit): a recorder waits one step.
            raw.execute(f"PRAGMA incremental_vacuum({_VACUUM_STEP})").fetchall()
            steps += 1
        # The shrunken file reaches the disk at a checkpoint; PASSIVE never waits for (or blocks) writers.
        raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        return "incremental vacuum"
    finally:
        conn.close()
