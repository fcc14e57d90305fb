"""Reading recordings: sessions, messages by seq, pairs, and full-text search.

Full-text search uses SQLite FTS5 over the message text. The index is filled
lazily (rows newer than the last indexed id are added before each search)
so that recording never pays for it.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError
from sqlmodel import Session as DbSession
from sqlmodel import col, select

from inspector.errors import InspectorError, NotFoundError
from inspector.store.engine import write_connection
from inspector.store.models import Message, Session

__all__ = [
    "fts_query",
    "fts_query",
    "get_session",
    "iter_messages",
    "list_sessions",
    "pair_of",
    "search_messages",
    "session_state",
]


def list_sessions(engine: Engine, *, limit: int = 100, offset: int = 0) -> list[Session]:
    """Sessions, newest first."""
    with DbSession(engine) as db:
        stmt = select(Session).order_by(col(Session.started_ns).desc(), col(Session.id).desc())
        return list(db.exec(stmt.offset(offset).limit(limit)).all())


def get_session(engine: Engine, ref: int | str) -> Session:
    """A session by id, or `last` for the newest one."""
    with DbSession(engine) as db:
        if isinstance(ref, str) and ref.lower() == "last":
            found = db.exec(select(Session).order_by(col(Session.id).desc()).limit(1)).first()
            if found is None:
                raise NotFoundError("there are no recorded sessions yet")
            return found
        try:
            session_id = int(ref)
        except ValueError:
            raise NotFoundError(f"{ref!r} is not a session id (a number, or 'last')") from None
        found = db.get(Session, session_id)
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
            yield from rows
            if len(rows) < size:
                return
            after_seq = rows[-1].seq
            if remaining is not None:
                remaining -= len(rows)


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
        return db.exec(stmt.limit(1)).first()


def _ensure_fts(engine: Engine) -> None:
    with write_connection(engine) as conn, conn.begin():
        conn.exec_driver_sql(
            "CREATE VIRTUAL TABLE IF NOT EXISTS message_fts USING fts5(body, content='', tokenize='unicode61')"
        )
        conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS fts_state (indexed_upto INTEGER NOT NULL)")
        row = conn.exec_driver_sql("SELECT indexed_upto FROM fts_state").first()
        upto = row[0] if row else 0
        if row is None:
            conn.exec_driver_sql("INSERT INTO fts_state (indexed_upto) VALUES (0)")
        new_upto = conn.exec_driver_sql("SELECT COALESCE(MAX(id), 0) FROM message").scalar_one()
        if new_upto > upto:
            conn.execute(
                text(
                    "INSERT INTO message_fts (rowid, body) SELECT id, CAST(raw AS TEXT) FROM message "
                    "WHERE id > :lo AND id <= :hi"
                ),
                {"lo": upto, "hi": new_upto},
            )
            conn.execute(text("UPDATE fts_state SET indexed_upto = :hi"), {"hi": new_upto})


def fts_query(words: str) -> str:
    """Plain words as an FTS5 query: every word must appear, each taken literally."""
    terms = [w.replace('"', '""') for w in words.split()]
    return " ".join(f'"{t}"' for t in terms)


def search_messages(
    engine: Engine, query: str, *, session_id: int | None = None, limit: int = 100, syntax: bool = False
) -> list[Message]:
    """Messages whose text contains every word of `query` (or matches it as FTS5 syntax), oldest first."""
    _ensure_fts(engine)
    match = query if syntax else fts_query(query)
    if not match:
        return []
    with DbSession(engine) as db:
        ids_sql = "SELECT rowid FROM message_fts WHERE message_fts MATCH :q"
        stmt = select(Message).where(col(Message.id).in_(text(ids_sql).bindparams(q=match)))
        if session_id is not None:
            stmt = stmt.where(Message.session_id == session_id)
        try:
            return list(db.exec(stmt.order_by(col(Message.id)).limit(limit)).all())
        except OperationalError as exc:
            raise InspectorError(f"invalid search {query!r}: {exc.orig}") from None
