"""Reading recordings: sessions (by id, name or `last`; filtered lists; state; edits and deletes)
and messages by seq (whole sessions, one message, a message's pair).

Pages of message rows under a filter, their counts and positions are `store.pages`; full-text
search is `store.search`.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import ColumnElement, Engine, func, text
from sqlalchemy import select as sa_select
from sqlmodel import Session as DbSession
from sqlmodel import col, select

from inspector.errors import InspectorError, NotFoundError
from inspector.store import bodies, fts
from inspector.store.engine import write_connection
from inspector.store.models import SQL_INT_MAX, Message, Session, StoredRow

__all__ = [
    "SessionFilter",
    "delete_session",
    "delete_sessions",
    "find_sessions",
    "get_message",
    "get_session",
    "idle_words",
    "iter_messages",
    "iter_rows",
    "list_sessions",
    "max_ids",
    "pair_of",
    "session_idle",
    "session_state",
    "sessions_after_id",
    "sessions_by_ids",
    "update_session",
]


def list_sessions(engine: Engine, *, limit: int = 100, offset: int = 0) -> list[Session]:
    """Sessions, newest first."""
    with DbSession(engine) as db:
        stmt = select(Session).order_by(col(Session.started_ns).desc(), col(Session.id).desc())
        return list(db.exec(stmt.offset(offset).limit(limit)).all())


def get_session(engine: Engine, ref: int | str) -> Session:
    """A session by id, `last` for the newest one, or the newest session with that name."""
    with DbSession(engine) as db:
        if isinstance(ref, str) and ref.lower() == "last":
            found = db.exec(select(Session).order_by(col(Session.id).desc()).limit(1)).first()
            if found is None:
                raise NotFoundError("there are no recorded sessions yet")
            return found
        try:
            session_id = int(ref)
        except ValueError:
            named = db.exec(
                select(Session).where(Session.name == str(ref)).order_by(col(Session.id).desc()).limit(1)
            ).first()
            if named is None:
                raise NotFoundError(
                    f"{ref!r} is not a session id (a number, 'last', or the name of a recorded session)"
                ) from None
            return named
        # A number past the 64-bit column range names no session (and cannot be bound to a query).
        found = db.get(Session, session_id) if 0 <= session_id <= SQL_INT_MAX else None
        if found is None:
            raise NotFoundError(f"no session with id {session_id}")
        return found


def session_state(session: Session) -> str:
    """`recording`, `ended`, or `interrupted` (the recording process on this host is gone)."""
    if session.status != "recording":
        return session.status
    if session.host == socket.gethostname() and session.pid is not None:
        try:
            import os

            os.kill(session.pid, 0)
        except ProcessLookupError:
            return "interrupted"
        except PermissionError:
            pass
    return "recording"


def session_idle(session: Session) -> dict[str, Any] | None:
    """For a recording proxy session whose client has gone quiet: {"since_ns", "ends_ns"} (when the
    proxy will end it if it stays quiet; None: not on its own), from the proxy's `idle` fact."""
    facts = session.facts if isinstance(session.facts, dict) else {}
    idle = facts.get("idle")
    return idle if isinstance(idle, dict) and session_state(session) == "recording" else None


def idle_words(idle: dict[str, Any], *, short: bool = False) -> str:
    """`idle since 10:02:03, ends 10:07:03 unless the client returns` (`short`: `idle, ends
    10:07:03`), in local time."""
    since = time.strftime("%H:%M:%S", time.localtime(idle["since_ns"] / 1e9))
    ends = idle.get("ends_ns")
    when = time.strftime("%H:%M:%S", time.localtime(ends / 1e9)) if isinstance(ends, int) else None
    if short:
        return f"idle, ends {when}" if when else "idle"
    return f"idle since {since}" + (f", ends {when} unless the client returns" if when else "")


def iter_messages(
    engine: Engine, session_id: int, *, after_seq: int = 0, limit: int | None = None, page: int = 1000
) -> Iterator[Message]:
    """Messages of a session in seq order, after `after_seq`, paged from the database."""
    remaining = limit
    with DbSession(engine) as db:
        while remaining is None or remaining > 0:
            size = page if remaining is None else min(page, remaining)
            stmt = (
                select(Message)
                .where(Message.session_id == session_id, Message.seq > after_seq)
                .order_by(col(Message.seq))
                .limit(size)
            )
            rows = list(db.exec(stmt).all())
            bodies.fill(db.connection(), rows)
            yield from rows
            if len(rows) < size:
                return
            after_seq = rows[-1].seq
            if remaining is not None:
                remaining -= len(rows)


def iter_rows(engine: Engine, session_id: int, *, page: int = 2000) -> Iterator[StoredRow]:
    """Every stored row of a session in seq order as plain dicts (all columns; no model per row:
    lint and export read whole sessions)."""
    table = Message.__table__  # type: ignore[attr-defined]
    after = 0
    with engine.connect() as conn:
        while True:
            rows = conn.execute(
                sa_select(table)
                .where(table.c.session_id == session_id, table.c.seq > after)
                .order_by(table.c.seq)
                .limit(page)
            ).all()
            dicts = [dict(r._mapping) for r in rows]
            bodies.fill(conn, dicts)
            for d in dicts:
                yield cast(StoredRow, d)
            if len(rows) < page:
                return
            after = rows[-1].seq


def pair_of(engine: Engine, message: Message) -> Message | None:
    """The request a response answers, or the response that answers a request."""
    with DbSession(engine) as db:
        if message.answers_seq is not None:
            stmt = select(Message).where(
                Message.session_id == message.session_id, Message.seq == message.answers_seq
            )
        else:
            stmt = select(Message).where(
                Message.session_id == message.session_id, Message.answers_seq == message.seq
            )
        found = db.exec(stmt.limit(1)).first()
        if found is not None:
            bodies.fill(db.connection(), [found])
        return found


# ---------------------------------------------------------------------------
# Browsing (the API and UI): filtered session lists, edits.


@dataclass(frozen=True)
class SessionFilter:
    """Which sessions to list: name contains, kind, state, started within [after, before)."""

    name: str | None = None
    kind: str | None = None
    state: str | None = None  # recording, ended, interrupted
    started_after_ns: int | None = None
    started_before_ns: int | None = None


def find_sessions(
    engine: Engine, flt: SessionFilter, *, limit: int = 100, offset: int = 0
) -> tuple[list[Session], int]:
    """Sessions matching `flt`, newest first, and how many match in all."""
    conds: list[ColumnElement[bool]] = []
    if flt.name:
        conds.append(func.lower(func.coalesce(Session.name, "")).contains(flt.name.lower()))
    if flt.kind:
        conds.append(col(Session.kind) == flt.kind)
    if flt.started_after_ns is not None:
        conds.append(col(Session.started_ns) >= flt.started_after_ns)
    if flt.started_before_ns is not None:
        conds.append(col(Session.started_ns) < flt.started_before_ns)
    order = (col(Session.started_ns).desc(), col(Session.id).desc())
    with DbSession(engine) as db:
        if flt.state in ("recording", "interrupted"):
            # The state of a `recording` row depends on whether its process lives: decide in Python.
            stmt = select(Session).where(Session.status == "recording", *conds).order_by(*order)
            found = [s for s in db.exec(stmt).all() if session_state(s) == flt.state]
            return found[offset : offset + limit], len(found)
        if flt.state is not None:
            conds.append(col(Session.status) == flt.state)
        total = db.exec(select(func.count()).select_from(Session).where(*conds)).one()
        stmt = select(Session).where(*conds).order_by(*order).offset(offset).limit(limit)
        return list(db.exec(stmt).all()), int(total)


def update_session(
    engine: Engine,
    session_id: int,
    *,
    name: str | None = None,
    labels: list[str] | None = None,
    pinned: bool | None = None,
) -> Session:
    """Rename a session, replace its labels and/or pin it (retention keeps it) or unpin it; return it."""
    get_session(engine, session_id)
    values: dict[str, Any] = {}
    if name is not None:
        values["name"] = name
    if labels is not None:
        values["labels"] = labels
    if pinned is not None:
        values["pinned"] = pinned
    if values:
        table = Session.__table__  # type: ignore[attr-defined]
        with write_connection(engine) as conn, conn.begin():
            conn.execute(table.update().where(table.c.id == session_id).values(**values))
    return get_session(engine, session_id)


def delete_session(engine: Engine, session_id: int, *, force: bool = False) -> None:
    """Delete a session and its messages (and their full-text entries); refuse one still recording
    unless `force` (its writer is this process, e.g. an import undoing itself)."""
    found = get_session(engine, session_id)
    if not force and session_state(found) == "recording":
        raise InspectorError(f"session {session_id} is still recording; stop it first")
    delete_sessions(engine, [session_id])


def delete_sessions(engine: Engine, session_ids: list[int], *, keep_pinned: bool = False) -> list[int]:
    """Delete these sessions and everything stored for them in ONE write transaction (retention
    deletes a few at a time so that recorders wait for the lock only briefly). The one delete path:
    whatever else a session owns is removed here. Callers check that none is still recording.
    `keep_pinned`: a pinned one (checked under the lock) is left alone. Returns the ids deleted."""
    if not session_ids:
        return []
    with write_connection(engine) as conn, conn.begin():
        params = {f"s{i}": int(sid) for i, sid in enumerate(session_ids)}
        found = conn.execute(
            text(f"SELECT id, pinned FROM session WHERE id IN ({', '.join(':' + k for k in params)})"), params
        ).all()
        present = {int(row[0]) for row in found if not (keep_pinned and row[1])}  # (id, pinned)
        session_ids = [sid for sid in session_ids if sid in present]
        has_fts = engine.dialect.name == "sqlite"  # PostgreSQL's `fts` column goes with its row
        for session_id in session_ids:
            if has_fts:
                # A contentless FTS5 row is removed by repeating what was indexed (store/fts.py). Without
                # this, ids freed at the end of the table would be reused by new rows and match their old text.
                fts.index_text(
                    conn, "SELECT id FROM message WHERE session_id = :sid", {"sid": session_id}, delete=True
                )
        used = bodies.session_blobs(conn, session_ids)
        for session_id in session_ids:
            for table in ("lint_finding", "lint_run", "message"):
                conn.execute(text(f"DELETE FROM {table} WHERE session_id = :sid"), {"sid": session_id})
        bodies.collect(conn, used)  # the large bodies no other session's messages carry
        for session_id in session_ids:
            conn.execute(
                text("UPDATE session SET parent_id = NULL WHERE parent_id = :sid"), {"sid": session_id}
            )
            conn.execute(text("DELETE FROM session WHERE id = :sid"), {"sid": session_id})
    return session_ids


def get_message(engine: Engine, session_id: int, seq: int) -> Message:
    """One message of a session by its seq."""
    with DbSession(engine) as db:
        found = db.exec(select(Message).where(Message.session_id == session_id, Message.seq == seq)).first()
        if found is not None:
            bodies.fill(db.connection(), [found])
    if found is None:
        raise NotFoundError(f"session {session_id} has no message {seq}")
    return found


def max_ids(engine: Engine) -> tuple[int, int]:
    """The highest session id and message id so far (0 when empty)."""
    with engine.connect() as conn:
        sid = conn.execute(sa_select(func.coalesce(func.max(col(Session.id)), 0))).scalar_one()
        mid = conn.execute(sa_select(func.coalesce(func.max(col(Message.id)), 0))).scalar_one()
    return int(sid or 0), int(mid or 0)


def sessions_by_ids(engine: Engine, ids: list[int]) -> list[Session]:
    """Sessions with these ids (missing ones are left out), by id."""
    if not ids:
        return []
    with DbSession(engine) as db:
        return list(db.exec(select(Session).where(col(Session.id).in_(ids)).order_by(col(Session.id))).all())


def sessions_after_id(engine: Engine, after_id: int) -> list[Session]:
    """Sessions created after `after_id`, by id."""
    with DbSession(engine) as db:
        return list(
            db.exec(select(Session).where(col(Session.id) > after_id).order_by(col(Session.id))).all()
        )
