"""Reading recordings: sessions, messages by seq, pairs, full-text search, and browsing.

Browsing (for the API and UI) adds filtered session lists, pages of message
rows without their raw bytes, counts and positions under a filter, the live
feed's tail by message id, and session edits (rename, labels, delete).

Full-text search uses SQLite FTS5 over the message text, indexed as rows arrive
(store/fts.py: a trigger and the writer, in the inserting transaction, off the
forwarding path; never inside a request). On PostgreSQL it is a tsvector column
with a GIN index, kept as rows arrive (store/migrations 0002, 0004); both find
a message holding every word of the query, each word taken literally and cut
at the same characters (anything not a letter or digit: JSON punctuation too).
Search pages walk the index in message id order and stop after a page of hits
(`search_page`), so a word found in every row costs no more than a rare one.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import reduce
from typing import Any, cast

import orjson
from sqlalchemy import (
    ColumnElement,
    Engine,
    String,
    Text,
    bindparam,
    func,
    literal_column,
    or_,
    text,
    type_coerce,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy import select as sa_select
from sqlalchemy.exc import OperationalError
from sqlmodel import Session as DbSession
from sqlmodel import col, select

from inspector.errors import InspectorError, NotFoundError
from inspector.store import bodies, fts
from inspector.store.engine import write_connection
from inspector.store.models import SQL_INT_MAX, LintFinding, Message, Session, StoredRow

__all__ = [
    "ROW_FIELDS",
    "MessageFilter",
    "SessionFilter",
    "count_messages",
    "delete_session",
    "delete_sessions",
    "find_sessions",
    "fts_query",
    "get_message",
    "get_session",
    "intervention_rows",
    "iter_messages",
    "iter_rows",
    "list_sessions",
    "max_ids",
    "message_rows",
    "method_counts",
    "pair_of",
    "rows_by_seq",
    "search_messages",
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


# Characters an SQLite string cannot hold (NUL ends it; a lone surrogate is not UTF-8). The tokenizer
# separates words at control characters anyway, so reading these as spaces finds the same rows.
_NOT_IN_SQL_TEXT = re.compile("[\x00\ud800-\udfff]")


def fts_query(words: str) -> str:
    """Plain words as an FTS5 query: every word must appear, each taken literally (any text is valid)."""
    terms = [w.replace('"', '""') for w in _NOT_IN_SQL_TEXT.sub(" ", words).split()]
    return " ".join(f'"{t}"' for t in terms)


def _pg_words_query(words: str) -> Any | None:
    """Plain words as a PostgreSQL tsquery: every word must appear; a word with punctuation inside
    (`tools/call`) is the phrase of its parts, as FTS5 reads the quoted word on SQLite."""
    terms = [w for w in _NOT_IN_SQL_TEXT.sub(" ", words).split() if any(ch.isalnum() for ch in w)]
    if not terms:
        return None
    simple: Any = literal_column("'simple'::regconfig")
    queries: list[Any] = [func.phraseto_tsquery(simple, func.inspector_fts_text(t)) for t in terms]
    return reduce(lambda a, b: a.op("&&")(b), queries)


def _text_condition(engine: Engine, query: str, *, syntax: bool = False) -> Any | None:
    """A condition on `message` rows for a full-text query (None when the query holds no word)."""
    if engine.dialect.name == "postgresql":
        simple: Any = literal_column("'simple'::regconfig")
        tsq = func.websearch_to_tsquery(simple, query) if syntax else _pg_words_query(query)
        if tsq is None:
            return None
        return literal_column("message.fts").op("@@", is_comparison=True)(tsq)
    match = query if syntax else fts_query(query)
    if not match:
        return None
    ids_sql = text("SELECT rowid FROM message_fts WHERE message_fts MATCH :q").bindparams(q=match)
    return col(Message.id).in_(ids_sql)


def search_messages(
    engine: Engine, query: str, *, session_id: int | None = None, limit: int = 100, syntax: bool = False
) -> list[Message]:
    """Messages whose text contains every word of `query` (or matches it in the backend's own query
    syntax: FTS5's on SQLite, `websearch_to_tsquery`'s on PostgreSQL), oldest first."""
    ids = [int(h["id"]) for h in _search_rows(engine, query, session_id, 0, limit, syntax)]
    if not ids:
        return []
    with DbSession(engine) as db:
        found = list(db.exec(select(Message).where(col(Message.id).in_(ids)).order_by(col(Message.id))).all())
        bodies.fill(db.connection(), found)
        return found


@dataclass(frozen=True)
class SearchPage:
    """One page of search hits (oldest first), where the next starts, and how many match in all
    (`total`; counted up to a cap, `total_exact` False when there are more)."""

    hits: list[dict[str, Any]]
    next_after_id: int | None
    total: int
    total_exact: bool


_HIT_COLUMNS = (
    "id",
    "session_id",
    "seq",
    "ts_ns",
    "direction",
    "channel",
    "kind",
    "method",
    "raw",
    "body_sha256",
)
_SNIPPET_SIDE = 70  # characters of context either side of the first match
_SYNTAX_WORDS = frozenset({"AND", "OR", "NOT", "NEAR"})


def _session_id_range(conn: Any, session_id: int) -> tuple[int, int] | None:
    """The first and last message id of a session (ids grow with seq within a session: its one writer
    inserts in seq order), through the (session_id, seq) index: two index probes, whatever its size."""
    lo = conn.execute(
        text("SELECT id FROM message WHERE session_id = :s ORDER BY seq LIMIT 1"), {"s": session_id}
    ).first()
    if lo is None:
        return None
    hi = conn.execute(
        text("SELECT id FROM message WHERE session_id = :s ORDER BY seq DESC LIMIT 1"), {"s": session_id}
    ).first()
    assert hi is not None
    return int(lo[0]), int(hi[0])


def _search_sqlite(
    conn: Any, match: str, session_id: int | None, after_id: int, limit: int, cap: int
) -> tuple[list[Any], int | None]:
    """SQLite: the FTS5 table drives (`CROSS JOIN` keeps it the outer loop). It yields rowids in
    order, so `ORDER BY f.rowid LIMIT n` stops after n hits even when a word is in every row; one
    session's search is bounded by its first and last message id. FTS5 seeks to ONE lower bound
    (given `rowid > a AND rowid >= b` it walked from `a`: 5.7 ms instead of 0.1 for a session in the
    middle of 100k rows), so the cursor and the session's first id go in as one."""
    params: dict[str, Any] = {"q": match, "after": after_id, "lim": limit, "cap": cap + 1}
    where = "f.message_fts MATCH :q AND f.rowid > :after"
    if session_id is not None:
        bounds = _session_id_range(conn, session_id)
        if bounds is None:
            return [], 0
        params.update(sid=session_id, after=max(after_id, bounds[0] - 1), hi=bounds[1])
        where += " AND f.rowid <= :hi AND m.session_id = :sid"
    from_sql = f"FROM message_fts f CROSS JOIN message m ON m.id = f.rowid WHERE {where} ORDER BY f.rowid"
    columns = ", ".join(f"m.{c}" for c in _HIT_COLUMNS)
    rows = conn.execute(text(f"SELECT {columns} {from_sql} LIMIT :lim"), params).all()
    total = None
    if cap:
        if session_id is None:  # every row of the index is a message: no join to count them
            from_sql = "FROM message_fts f WHERE f.message_fts MATCH :q AND f.rowid > :after ORDER BY f.rowid"
        total = conn.execute(
            text(f"SELECT COUNT(*) FROM (SELECT 1 {from_sql} LIMIT :cap)"), params
        ).scalar_one()
    return rows, total


def _search_core(
    conn: Any, cond: Any, session_id: int | None, after_id: int, limit: int, cap: int
) -> tuple[list[Any], int | None]:
    """PostgreSQL (and any other backend): the same query over `message.fts` (its GIN index)."""
    table = Message.__table__  # type: ignore[attr-defined]
    conds = [cond, table.c.id > after_id]
    if session_id is not None:
        conds.append(table.c.session_id == session_id)
    base = sa_select(*[table.c[c] for c in _HIT_COLUMNS]).where(*conds).order_by(table.c.id)
    rows = conn.execute(base.limit(limit)).all()
    total = None
    if cap:
        capped = sa_select(table.c.id).where(*conds).order_by(table.c.id).limit(cap + 1).subquery()
        total = conn.execute(sa_select(func.count()).select_from(capped)).scalar_one()
    return rows, total


def _search_rows(
    engine: Engine, query: str, session_id: int | None, after_id: int, limit: int, syntax: bool
) -> list[dict[str, Any]]:
    found, _ = _search(engine, query, session_id, after_id, limit, syntax)
    return found


def _search(
    engine: Engine,
    query: str,
    session_id: int | None,
    after_id: int,
    limit: int,
    syntax: bool,
    *,
    cap: int = 0,
) -> tuple[list[dict[str, Any]], int | None]:
    """Up to `limit` hit rows (whole bodies) after message id `after_id`, oldest first, and (with
    `cap`) how many match after it, counted up to `cap` + 1."""
    with engine.connect() as conn:
        try:
            if engine.dialect.name == "sqlite":
                match = query if syntax else fts_query(query)
                rows, total = (
                    _search_sqlite(conn, match, session_id, after_id, limit, cap) if match else ([], 0)
                )
            else:
                cond = _text_condition(engine, query, syntax=syntax)
                rows, total = (
                    _search_core(conn, cond, session_id, after_id, limit, cap)
                    if cond is not None
                    else ([], 0)
                )
        except OperationalError as exc:
            raise InspectorError(f"invalid search {query!r}: {exc.orig}") from None
        hits = [dict(r._mapping) for r in rows]
        bodies.fill(conn, hits)
    return hits, total


def search_page(
    engine: Engine,
    query: str,
    *,
    session_id: int | None = None,
    limit: int = 50,
    after_id: int = 0,
    syntax: bool = False,
    count_upto: int = 1000,
) -> SearchPage:
    """A page of hits for the search API: each with its session's name and a short snippet of text
    around the first match (`snippet`, and `marks`: [start, end) of each word found in it)."""
    rows, total = _search(engine, query, session_id, after_id, limit + 1, syntax, cap=count_upto)
    more = len(rows) > limit
    rows = rows[:limit]
    names: dict[int, str | None] = {}
    if rows:
        sids = sorted({int(r["session_id"]) for r in rows})
        with engine.connect() as conn:
            names = {
                int(r[0]): r[1]
                for r in conn.execute(
                    text("SELECT id, name FROM session WHERE id IN :ids").bindparams(
                        bindparam("ids", expanding=True)
                    ),
                    {"ids": sids},
                ).all()
            }
    words = _snippet_words(query, syntax)
    hits = []
    for r in rows:
        snippet, marks = make_snippet(bytes(r["raw"]).decode("utf-8", "replace"), words)
        hits.append(
            {
                "id": r["id"],
                "session_id": r["session_id"],
                "session_name": names.get(int(r["session_id"])),
                "seq": r["seq"],
                "ts_ns": r["ts_ns"],
                "direction": r["direction"],
                "channel": r["channel"],
                "kind": r["kind"],
                "method": r["method"],
                "snippet": snippet,
                "marks": marks,
            }
        )
    counted = int(total or 0)
    return SearchPage(
        hits=hits,
        next_after_id=int(rows[-1]["id"]) if more else None,
        total=min(counted, count_upto),
        total_exact=counted <= count_upto,
    )


def _snippet_words(query: str, syntax: bool) -> list[str]:
    """The words to show in a snippet: the query's, without FTS5's operators in syntax mode."""
    words = re.findall(r"\w+", _NOT_IN_SQL_TEXT.sub(" ", query))
    if syntax:
        words = [w for w in words if w not in _SYNTAX_WORDS]
    return [w.lower() for w in words]


def make_snippet(body: str, words: list[str], side: int = _SNIPPET_SIDE) -> tuple[str, list[tuple[int, int]]]:
    """About 2 x `side` characters of `body` around the first of `words` found (case-insensitive, as
    whole tokens' prefixes), `…` where cut, and the [start, end) of every word found in the snippet."""
    patterns = [re.compile(r"(?<![^\W_])" + re.escape(w)) for w in words]
    lowered = body.lower()
    first = -1
    for pattern in patterns:
        m = pattern.search(lowered)
        if m and (first < 0 or m.start() < first):
            first = m.start()
    start = max(0, first - side)
    end = min(len(body), first + side if first >= 0 else 2 * side)
    piece = " ".join(body[start:end].split())  # newlines and runs of spaces as one space
    snippet = ("…" if start > 0 else "") + piece + ("…" if end < len(body) else "")
    low = snippet.lower()
    marks = [(m.start(), m.end()) for pattern in patterns for m in pattern.finditer(low)]
    marks.sort()
    return snippet, marks


# ---------------------------------------------------------------------------
# Browsing (the API and UI): filtered session lists, message pages without raw
# bytes, positions, edits. Rows are read with SQLAlchemy Core into plain dicts:
# building SQLModel objects for a page of 500 rows would cost more than the query.


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
        present = {int(sid) for sid, pinned in found if not (keep_pinned and pinned)}
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


@dataclass(frozen=True)
class MessageFilter:
    """Which messages of a session: direction, kinds, channels, methods (`tools/*` is a prefix), text."""

    direction: str | None = None
    kinds: tuple[str, ...] = ()
    channels: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    text: str | None = None
    # Messages with stored lint findings: any, warning (warnings and errors) or error.
    findings: str | None = None
    # Only messages the inspector intervened on (`meta.intercept` or `meta.injected`, issue 17).
    intervened: bool = False

    @property
    def is_empty(self) -> bool:
        return not (
            self.direction
            or self.kinds
            or self.channels
            or self.methods
            or self.text
            or self.findings
            or self.intervened
        )


PREVIEW_BYTES = bodies.HEAD_BYTES  # a large body's row keeps this much of its start in `raw`
_m = Message.__table__  # type: ignore[attr-defined]
_f = LintFinding.__table__  # type: ignore[attr-defined]
ROW_FIELDS = tuple(c.name for c in _m.columns if c.name not in ("raw", "body_sha256"))
_ROW_COLUMNS = [_m.c[name] for name in ROW_FIELDS] + [func.substr(_m.c.raw, 1, PREVIEW_BYTES).label("head")]


def _message_conditions(engine: Engine, session_id: int, flt: MessageFilter) -> list[Any]:
    conds: list[Any] = [_m.c.session_id == session_id]
    if flt.direction:
        conds.append(_m.c.direction == flt.direction)
    if flt.kinds:
        conds.append(_m.c.kind.in_(flt.kinds))
    if flt.channels:
        conds.append(_m.c.channel.in_(flt.channels))
    if flt.methods:
        exact = [m for m in flt.methods if not m.endswith("*")]
        prefixes = [m[:-1] for m in flt.methods if m.endswith("*")]
        ors = [_m.c.method.in_(exact)] if exact else []
        ors += [_m.c.method.startswith(p, autoescape=True) for p in prefixes]
        conds.append(or_(*ors))
    if flt.findings:
        severities = {"error": ("error",), "warning": ("error", "warning")}.get(flt.findings)
        lint = sa_select(_f.c.seq).where(_f.c.session_id == session_id)
        if severities:
            lint = lint.where(_f.c.severity.in_(severities))
        conds.append(_m.c.seq.in_(lint))
    if flt.intervened:
        # Read only when asked: other filters never touch `meta`. The LIKE skips the JSON parse of
        # rows that cannot carry a mark (nearly all of them); json_extract then makes sure.
        meta: Any
        is_object: list[Any]
        if engine.dialect.name == "postgresql":
            meta = sql_cast(_m.c.meta, Text)
            is_object = [
                text(f"json_typeof(message.meta -> '{k}') = 'object'") for k in ("intercept", "injected")
            ]
        else:
            meta = type_coerce(_m.c.meta, String)  # the stored JSON text, as text
            is_object = [func.json_type(_m.c.meta, f"$.{k}") == "object" for k in ("intercept", "injected")]
        conds.append(
            or_(
                meta.like('%"intercept"%') & is_object[0],
                meta.like('%"injected"%') & is_object[1],
            )
        )
    if flt.text:
        cond = _text_condition(engine, flt.text)
        if cond is not None:
            conds.append(cond)
    return conds


def _row_dict(row: Any) -> dict[str, Any]:
    out = dict(row._mapping)
    head = out.pop("head") or b""
    out["preview"] = bytes(head).decode("utf-8", errors="replace")
    return out


def message_rows(
    engine: Engine,
    session_id: int,
    flt: MessageFilter = MessageFilter(),
    *,
    after_seq: int | None = None,
    before_seq: int | None = None,
    offset: int = 0,
    limit: int = 500,
) -> list[dict[str, Any]]:
    """Rows (every column but `raw`, plus a text `preview` of its start) in seq order.

    `after_seq` pages forward, `before_seq` pages backward (rows still come in
    ascending seq), `offset` skips matching rows (random access into a filtered list).
    """
    conds = _message_conditions(engine, session_id, flt)
    if after_seq is not None:
        conds.append(_m.c.seq > after_seq)
    backward = before_seq is not None
    if backward:
        conds.append(_m.c.seq < before_seq)
    order = _m.c.seq.desc() if backward else _m.c.seq
    stmt = sa_select(*_ROW_COLUMNS).where(*conds).order_by(order).offset(offset).limit(limit)
    with engine.connect() as conn:
        rows = [_row_dict(r) for r in conn.execute(stmt)]
    return rows[::-1] if backward else rows


def count_messages(
    engine: Engine, session_id: int, flt: MessageFilter = MessageFilter(), *, before_seq: int | None = None
) -> int:
    """How many messages of a session match `flt` (those before `before_seq` only, when given)."""
    conds = _message_conditions(engine, session_id, flt)
    if before_seq is not None:
        conds.append(_m.c.seq < before_seq)
    # seq is gap-free, so without a filter the count is the highest seq (an index lookup, not a scan).
    what = func.coalesce(func.max(_m.c.seq), 0) if flt.is_empty and before_seq is None else func.count()
    with engine.connect() as conn:
        return int(conn.execute(sa_select(what).select_from(_m).where(*conds)).scalar_one())


def get_message(engine: Engine, session_id: int, seq: int) -> Message:
    """One message of a session by its seq."""
    with DbSession(engine) as db:
        found = db.exec(select(Message).where(Message.session_id == session_id, Message.seq == seq)).first()
        if found is not None:
            bodies.fill(db.connection(), [found])
    if found is None:
        raise NotFoundError(f"session {session_id} has no message {seq}")
    return found


def intervention_rows(engine: Engine, session_id: int, n: Any, *, limit: int = 50) -> list[dict[str, Any]]:
    """The rows of one intervention (`meta.intercept.n` or `meta.injected.n` equal to `n`): the
    sender's original and the copies or answers the inspector sent, in seq order."""
    if not isinstance(n, (int, str)) or isinstance(n, bool) or (isinstance(n, int) and abs(n) > SQL_INT_MAX):
        return []
    conds = _message_conditions(engine, session_id, MessageFilter(intervened=True))
    if engine.dialect.name == "postgresql":
        conds.append(
            text(
                "(message.meta::jsonb #> '{intercept,n}') = CAST(:n AS jsonb) "
                "OR (message.meta::jsonb #> '{injected,n}') = CAST(:n AS jsonb)"
            ).bindparams(n=orjson.dumps(n).decode())
        )
    else:
        conds.append(
            or_(
                func.json_extract(_m.c.meta, "$.intercept.n") == n,
                func.json_extract(_m.c.meta, "$.injected.n") == n,
            )
        )
    stmt = sa_select(*_ROW_COLUMNS).where(*conds).order_by(_m.c.seq).limit(limit)
    with engine.connect() as conn:
        return [_row_dict(r) for r in conn.execute(stmt)]


def rows_by_seq(engine: Engine, session_id: int, seqs: list[int]) -> list[dict[str, Any]]:
    """Rows (as `message_rows` gives them) of the given seqs, in seq order."""
    if not seqs:
        return []
    stmt = (
        sa_select(*_ROW_COLUMNS).where(_m.c.session_id == session_id, _m.c.seq.in_(seqs)).order_by(_m.c.seq)
    )
    with engine.connect() as conn:
        return [_row_dict(r) for r in conn.execute(stmt)]


def method_counts(engine: Engine, session_id: int) -> dict[str, int]:
    """Each method seen in a session with its number of messages (for filter pickers)."""
    stmt = (
        sa_select(_m.c.method, func.count())
        .where(_m.c.session_id == session_id, _m.c.method.is_not(None))
        .group_by(_m.c.method)
        .order_by(_m.c.method)
    )
    with engine.connect() as conn:
        # The table's columns are untyped (`__table__`); COUNT(*) is an int.
        return {str(m): cast(int, n) for m, n in conn.execute(stmt).all()}


def max_ids(engine: Engine) -> tuple[int, int]:
    """The highest session id and message id so far (0 when empty)."""
    with engine.connect() as conn:
        sid = conn.execute(sa_select(func.coalesce(func.max(Session.__table__.c.id), 0))).scalar_one()  # type: ignore[attr-defined]
        mid: int = conn.execute(sa_select(func.coalesce(func.max(_m.c.id), 0))).scalar_one()
    return int(sid), int(mid)


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
