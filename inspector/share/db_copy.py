"""`mcp-inspect db copy SRC DST`: sessions from one store into another (SQLite <-> PostgreSQL).

Built on the session file format: each session is exported as `.mcp.jsonl` lines from the source
and imported from them into the destination (`share.export` / `share.importer`), so a copy keeps
exactly what an export keeps (raw bytes exact, every column, meta with the interventions, labels
and pins) and gets new ids there. What the file format leaves out is copied beside it: parent
links (remapped onto the destination's ids) and stored lint findings and runs (their message ids
remapped through the seq).

Copying twice copies nothing new: a session whose origin (kind, start time, host, pid) and
message count the destination already holds is skipped and named. A session still recording is
skipped too (copy it once it ends). Each session goes in whole or not at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Engine, select

from inspector.share.export import jsonl_lines
from inspector.share.importer import import_jsonl
from inspector.store import schema
from inspector.store.engine import write_connection
from inspector.store.models import Session
from inspector.store.queries import get_session, session_state

__all__ = ["CopyReport", "copy_sessions"]

_s = schema.session
_m = schema.message
_f = schema.lint_finding
_r = schema.lint_run


@dataclass
class CopyReport:
    """What a copy did: source id -> new id, sessions already there (source -> existing id), skipped."""

    copied: dict[int, int] = field(default_factory=dict)
    existing: dict[int, int] = field(default_factory=dict)
    recording: list[int] = field(default_factory=list)
    messages: int = 0


def _chosen(src: Engine, refs: Sequence[str]) -> list[Session]:
    if refs:
        found = {s.id: s for s in (get_session(src, ref) for ref in refs)}
        return [found[i] for i in sorted(found)]  # type: ignore[type-var]
    with src.connect() as conn:
        ids = [int(r[0]) for r in conn.execute(select(_s.c.id).order_by(_s.c.id))]
    return [get_session(src, i) for i in ids]


def _already_there(dst: Engine, session: Session) -> int | None:
    stmt = select(_s.c.id).where(
        _s.c.kind == session.kind,
        _s.c.started_ns == session.started_ns,
        _s.c.message_count == session.message_count,
        _s.c.status != "recording",
    )
    stmt = stmt.where(_s.c.host.is_(None) if session.host is None else _s.c.host == session.host)
    stmt = stmt.where(_s.c.pid.is_(None) if session.pid is None else _s.c.pid == session.pid)
    with dst.connect() as conn:
        row = conn.execute(stmt.order_by(_s.c.id).limit(1)).first()
    return int(row[0]) if row else None


def _copy_lint(src: Engine, dst: Engine, src_id: int, dst_id: int) -> None:
    with src.connect() as conn:
        run = conn.execute(select(_r).where(_r.c.session_id == src_id)).mappings().first()
        findings = [
            dict(r)
            for r in conn.execute(select(_f).where(_f.c.session_id == src_id).order_by(_f.c.id)).mappings()
        ]
    if run is None and not findings:
        return
    with write_connection(dst) as conn, conn.begin():
        ids: dict[int, int] = dict(
            conn.execute(select(_m.c.seq, _m.c.id).where(_m.c.session_id == dst_id)).tuples().all()
        )
        if run is not None:
            conn.execute(_r.insert().values({**dict(run), "session_id": dst_id}))
        if findings:
            rows = []
            for f in findings:
                f.pop("id")
                rows.append({**f, "session_id": dst_id, "message_id": ids.get(f["seq"])})
            conn.execute(_f.insert(), rows)


def copy_sessions(
    src: Engine,
    dst: Engine,
    refs: Sequence[str] = (),
    *,
    progress: Callable[[int, int], None] | None = None,
) -> CopyReport:
    """Copy the sessions `refs` (all when empty) from `src` to `dst`; `progress(done, total)` gets
    the messages copied so far."""
    report = CopyReport()
    chosen = _chosen(src, refs)
    todo: list[Session] = []
    for session in chosen:
        assert session.id is not None
        if session_state(session) == "recording":
            report.recording.append(session.id)
        elif (found := _already_there(dst, session)) is not None:
            report.existing[session.id] = found
        else:
            todo.append(session)
    total = sum(s.message_count for s in todo)
    done = 0

    def counted(lines: Iterator[bytes]) -> Iterator[bytes]:
        nonlocal done
        for n, line in enumerate(lines):
            if n > 1:  # the header and the session line are not messages
                done += 1
                if progress is not None and done % 2000 == 0:
                    progress(done, total)
            yield line

    for session in todo:
        assert session.id is not None
        imported = import_jsonl(dst, counted(jsonl_lines(src, [session])), source=f"session #{session.id}")
        (new_id,) = imported.session_ids
        report.copied[session.id] = new_id
        report.messages += imported.messages[new_id]
        _copy_lint(src, dst, session.id, new_id)
    # Parent links, onto the destination's ids (a parent copied earlier, or found already there).
    mapped = {**report.existing, **report.copied}
    links = {mapped[s.id]: mapped[s.parent_id] for s in todo if s.id is not None and s.parent_id in mapped}
    if links:
        with write_connection(dst) as conn, conn.begin():
            for child, parent in links.items():
                conn.execute(_s.update().where(_s.c.id == child).values(parent_id=parent))
    if progress is not None:
        progress(done, total)
    return report
