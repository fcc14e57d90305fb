"""Reading recordings: sessions (by id, name or `last`; filtered lists; state; edits and deletes)
and messages by seq (whole sessions, one message, a message's pair).

Pages of message rows under a filter, their counts and positions are `store.pages`; full-text
search is `store.search`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from inspector.errors import InspectorError, NotFoundError
from inspector.store import bodies
from inspector.store.db import (
    MESSAGE_COLUMNS,
    SESSION_COLUMNS,
    Conn,
    message_of,
    reading,
    session_of,
    writing,
)
from inspector.store.models import SQL_INT_MAX, Message, Session, StoredRow

if TYPE_CHECKING:
    from inspector.store.db import Store

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
    "sessions_where",
    "update_session",
]


_SESSION = "SELECT " + ", ".join(SESSION_COLUMNS) + " FROM session"
_MESSAGE = "SELECT " + ", ".join(MESSAGE_COLUMNS) + " FROM message"


def _sessions(conn: Conn, sql: str, params: dict[str, Any] | None = None) -> list[Session]:
    return [session_of(r) for r in conn.rows(sql, params)]


def _messages(conn: Conn, sql: str, params: dict[str, Any]) -> list[Message]:
    found = [message_of(r) for r in conn.rows(sql, params)]
    bodies.fill(conn, found)
    return found


def list_sessions(store: Store, *, limit: int = 100, offset: int = 0) -> list[Session]:
    """Sessions, newest first."""
    with reading(store) as conn:
        return _sessions(
            conn,
            f"{_SESSION} ORDER BY started_ns DESC, id DESC LIMIT :limit OFFSET :offset",
            {"limit": limit, "offset": offset},
        )


def get_session(store: Store, ref: int | str) -> Session:
    """A session by id, `last` for the newest one, or the newest session with that name."""
    with reading(store) as conn:
        if isinstance(ref, str) and ref.lower() == "last":
            found = _sessions(conn, f"{_SESSION} ORDER BY id DESC LIMIT 1")
            if not found:
                raise NotFoundError("there are no recorded sessions yet")
            return found[0]
        try:
            session_id = int(ref)
        except ValueError:
            named = _sessions(
                conn, f"{_SESSION} WHERE name = :name ORDER BY id DESC LIMIT 1", {"name": str(ref)}
            )
            if not named:
                raise NotFoundError(
                    f"{ref!r} is not a session id (a number, 'last', or the name of a recorded session)"
                ) from None
            return named[0]
        # A number past the 64-bit column range names no session (and cannot be bound to a query).
        by_id = (
            _sessions(conn, f"{_SESSION} WHERE id = :id", {"id": session_id})
            if 0 <= session_id <= SQL_INT_MAX
            else []
        )
        if not by_id:
            raise NotFoundError(f"no session with id {session_id}")
        return by_id[0]


def session_state(session: Session) -> str:
    """`recording`, `ended`, or `interrupted` (the recording process on this host is gone)."""
    if session.status != "recording":
        return session.status
    import socket  # only for a session still recording: is its recorder on this host?

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
    store: Store, session_id: int, *, after_seq: int = 0, limit: int | None = None, page: int = 1000
) -> Iterator[Message]:
    """Messages of a session in seq order, after `after_seq`, paged from the database."""
    remaining = limit
    with reading(store) as conn:
        while remaining is None or remaining > 0:
            size = page if remaining is None else min(page, remaining)
            rows = _messages(
                conn,
                f"{_MESSAGE} WHERE session_id = :sid AND seq > :after ORDER BY seq LIMIT :size",
                {"sid": session_id, "after": after_seq, "size": size},
            )
            yield from rows
            if len(rows) < size:
                return
            after_seq = rows[-1].seq
            if remaining is not None:
                remaining -= len(rows)


def iter_rows(store: Store, session_id: int, *, page: int = 2000) -> Iterator[StoredRow]:
    """Every stored row of a session in seq order as plain dicts (all columns; no record per row:
    lint and export read whole sessions)."""
    after = 0
    with reading(store) as conn:
        while True:
            dicts = conn.rows(
                f"{_MESSAGE} WHERE session_id = :sid AND seq > :after ORDER BY seq LIMIT :page",
                {"sid": session_id, "after": after, "page": page},
            )
            bodies.fill(conn, dicts)
            for d in dicts:
                yield cast(StoredRow, d)
            if len(dicts) < page:
                return
            after = dicts[-1]["seq"]


def pair_of(store: Store, message: Message) -> Message | None:
    """The request a response answers, or the response that answers a request."""
    with reading(store) as conn:
        if message.answers_seq is not None:
            where, seq = "seq = :seq", message.answers_seq
        else:
            where, seq = "answers_seq = :seq", message.seq
        found = _messages(
            conn,
            f"{_MESSAGE} WHERE session_id = :sid AND {where} LIMIT 1",
            {"sid": message.session_id, "seq": seq},
        )
        return found[0] if found else None


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
    store: Store, flt: SessionFilter, *, limit: int = 100, offset: int = 0
) -> tuple[list[Session], int]:
    """Sessions matching `flt`, newest first, and how many match in all."""
    conds: list[str] = []
    params: dict[str, Any] = {}
    if flt.name:
        conds.append("lower(coalesce(name, '')) LIKE '%' || :name || '%'")
        params["name"] = flt.name.lower()
    if flt.kind:
        conds.append("kind = :kind")
        params["kind"] = flt.kind
    if flt.started_after_ns is not None:
        conds.append("started_ns >= :after")
        params["after"] = flt.started_after_ns
    if flt.started_before_ns is not None:
        conds.append("started_ns < :before")
        params["before"] = flt.started_before_ns
    order = " ORDER BY started_ns DESC, id DESC"
    with reading(store) as conn:
        if flt.state in ("recording", "interrupted"):
            # The state of a `recording` row depends on whether its process lives: decide in Python.
            where = " WHERE " + " AND ".join(["status = 'recording'", *conds])
            found = [
                s for s in _sessions(conn, _SESSION + where + order, params) if session_state(s) == flt.state
            ]
            return found[offset : offset + limit], len(found)
        if flt.state is not None:
            conds.append("status = :state")
            params["state"] = flt.state
        where = " WHERE " + " AND ".join(conds) if conds else ""
        total = conn.scalar("SELECT COUNT(*) FROM session" + where, params)
        listed = _sessions(
            conn,
            _SESSION + where + order + " LIMIT :limit OFFSET :offset",
            {**params, "limit": limit, "offset": offset},
        )
        return listed, int(total)


def update_session(
    engine: Store,
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
        from inspector.store.writer import update_session_row

        with writing(engine) as conn:
            update_session_row(conn, session_id, values)
    return get_session(engine, session_id)


def delete_session(engine: Store, session_id: int, *, force: bool = False) -> None:
    """Delete a session and its messages (and their full-text entries); refuse one still recording
    unless `force` (its writer is this process, e.g. an import undoing itself)."""
    found = get_session(engine, session_id)
    if not force and session_state(found) == "recording":
        raise InspectorError(f"session {session_id} is still recording; stop it first")
    delete_sessions(engine, [session_id])


def delete_sessions(engine: Store, session_ids: list[int], *, keep_pinned: bool = False) -> list[int]:
    """Delete these sessions and everything stored for them in ONE write transaction (retention
    deletes a few at a time so that recorders wait for the lock only briefly). The one delete path:
    whatever else a session owns is removed here. Callers check that none is still recording.
    `keep_pinned`: a pinned one (checked under the lock) is left alone. Returns the ids deleted."""
    if not session_ids:
        return []
    from inspector.store import fts

    with writing(engine) as conn:
        params = {f"s{i}": int(sid) for i, sid in enumerate(session_ids)}
        found = conn.all(
            f"SELECT id, pinned FROM session WHERE id IN ({', '.join(':' + k for k in params)})", params
        )
        present = {int(row[0]) for row in found if not (keep_pinned and row[1])}  # (id, pinned)
        session_ids = [sid for sid in session_ids if sid in present]
        has_fts = conn.backend == "sqlite"  # PostgreSQL's `fts` column goes with its row
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
                conn.execute(f"DELETE FROM {table} WHERE session_id = :sid", {"sid": session_id})
        bodies.collect(conn, used)  # the large bodies no other session's messages carry
        for session_id in session_ids:
            conn.execute("UPDATE session SET parent_id = NULL WHERE parent_id = :sid", {"sid": session_id})
            conn.execute("DELETE FROM session WHERE id = :sid", {"sid": session_id})
    return session_ids


def get_message(store: Store, session_id: int, seq: int) -> Message:
    """One message of a session by its seq."""
    with reading(store) as conn:
        found = _messages(
            conn, f"{_MESSAGE} WHERE session_id = :sid AND seq = :seq", {"sid": session_id, "seq": seq}
        )
    if not found:
        raise NotFoundError(f"session {session_id} has no message {seq}")
    return found[0]


def max_ids(store: Store) -> tuple[int, int]:
    """The highest session id and message id so far (0 when empty)."""
    with reading(store) as conn:
        sid = conn.scalar("SELECT COALESCE(MAX(id), 0) FROM session")
        mid = conn.scalar("SELECT COALESCE(MAX(id), 0) FROM message")
    return int(sid or 0), int(mid or 0)


def sessions_by_ids(store: Store, ids: list[int]) -> list[Session]:
    """Sessions with these ids (missing ones are left out), by id."""
    if not ids:
        return []
    params = {f"i{j}": int(i) for j, i in enumerate(ids)}
    with reading(store) as conn:
        marks = ", ".join(f":{k}" for k in params)
        return _sessions(conn, f"{_SESSION} WHERE id IN ({marks}) ORDER BY id", params)


def sessions_where(store: Store, where: str, params: dict[str, Any] | None = None) -> list[Session]:
    """Sessions matching an SQL condition on `session` (with `:name` parameters), by id."""
    with reading(store) as conn:
        return _sessions(conn, f"{_SESSION} WHERE {where} ORDER BY id", params)


def sessions_after_id(store: Store, after_id: int) -> list[Session]:
    """Sessions created after `after_id`, by id."""
    return sessions_where(store, "id > :after", {"after": after_id})
