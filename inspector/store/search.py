"""Full-text search over the message text: the pages behind `GET /api/search` and `search`.

SQLite uses FTS5 over the message text, indexed as rows arrive (store/fts.py: a trigger and the
writer, in the inserting transaction, off the forwarding path; never inside a request). On
PostgreSQL it is a tsvector column with a GIN index, kept as rows arrive (store/migrations 0002,
0004); both find a message holding every word of the query, each word taken literally and cut at the
same characters (anything not a letter or digit: JSON punctuation too). Search pages walk the index
in message id order and stop after a page of hits (`search_page`), so a word found in every row
costs no more than a rare one. The timeline's text filter (`store.pages`) takes its condition from
`text_condition` here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import reduce
from typing import Any

from sqlalchemy import Engine, bindparam, func, literal_column, text
from sqlalchemy import select as sa_select
from sqlalchemy.exc import OperationalError
from sqlmodel import Session as DbSession
from sqlmodel import col, select

from inspector.errors import InspectorError
from inspector.store import bodies
from inspector.store.models import Message

__all__ = ["SearchPage", "fts_query", "make_snippet", "search_messages", "search_page", "text_condition"]


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


def text_condition(dialect: str, query: str, *, syntax: bool = False) -> Any | None:
    """A condition on `message` rows for a full-text query (None when the query holds no word), in
    the SQL of `dialect` (the engine's `dialect.name`)."""
    if dialect == "postgresql":
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
    ).scalar()
    if lo is None:
        return None
    hi = conn.execute(
        text("SELECT id FROM message WHERE session_id = :s ORDER BY seq DESC LIMIT 1"), {"s": session_id}
    ).scalar_one()
    return int(lo), int(hi)


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
                cond = text_condition(engine.dialect.name, query, syntax=syntax)
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
                int(r.id): r.name
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
