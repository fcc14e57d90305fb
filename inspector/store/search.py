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
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.errors import InspectorError
from inspector.store import bodies
from inspector.store.db import MESSAGE_COLUMNS, Conn, message_of, reading
from inspector.store.models import Message

if TYPE_CHECKING:
    from inspector.store.db import Store

__all__ = [
    "SearchPage",
    "condition_sql",
    "fts_query",
    "make_snippet",
    "search_messages",
    "search_page",
    "text_condition",
]


# Characters an SQLite string cannot hold (NUL ends it; a lone surrogate is not UTF-8). The tokenizer
# separates words at control characters anyway, so reading these as spaces finds the same rows.
_NOT_IN_SQL_TEXT = re.compile("[\x00\ud800-\udfff]")


def fts_query(words: str) -> str:
    """Plain words as an FTS5 query: every word must appear, each taken literally (any text is valid)."""
    terms = [w.replace('"', '""') for w in _NOT_IN_SQL_TEXT.sub(" ", words).split()]
    return " ".join(f'"{t}"' for t in terms)


def _pg_tsquery(query: str, syntax: bool) -> tuple[str, dict[str, Any]] | None:
    """A PostgreSQL tsquery (SQL and its parameters) for a full-text query, None when it holds no
    word. Plain words: every word must appear; a word with punctuation inside (`tools/call`) is the
    phrase of its parts, as FTS5 reads the quoted word on SQLite."""
    if syntax:
        return "websearch_to_tsquery('simple'::regconfig, :fts_q)", {"fts_q": query}
    terms = [w for w in _NOT_IN_SQL_TEXT.sub(" ", query).split() if any(ch.isalnum() for ch in w)]
    if not terms:
        return None
    params = {f"fts_w{i}": t for i, t in enumerate(terms)}
    sql = " && ".join(f"phraseto_tsquery('simple'::regconfig, inspector_fts_text(:{k}))" for k in params)
    return f"({sql})", params


def condition_sql(backend: str, query: str, *, syntax: bool = False) -> tuple[str, dict[str, Any]] | None:
    """A condition on `message` rows (SQL and its parameters) for a full-text query, None when the
    query holds no word: FTS5's index on SQLite, the `fts` column on PostgreSQL."""
    if backend == "postgresql":
        tsq = _pg_tsquery(query, syntax)
        if tsq is None:
            return None
        return f"message.fts @@ {tsq[0]}", tsq[1]
    match = query if syntax else fts_query(query)
    if not match:
        return None
    return "message.id IN (SELECT rowid FROM message_fts WHERE message_fts MATCH :fts_q)", {"fts_q": match}


def text_condition(dialect: str, query: str, *, syntax: bool = False) -> Any | None:
    """`condition_sql` as an SQLAlchemy clause, for the statements `store.pages` builds."""
    found = condition_sql(dialect, query, syntax=syntax)
    if found is None:
        return None
    from sqlalchemy import text

    return text(found[0]).bindparams(**found[1])


def search_messages(
    store: Store, query: str, *, session_id: int | None = None, limit: int = 100, syntax: bool = False
) -> list[Message]:
    """Messages whose text contains every word of `query` (or matches it in the backend's own query
    syntax: FTS5's on SQLite, `websearch_to_tsquery`'s on PostgreSQL), oldest first."""
    ids = [int(h["id"]) for h in _search_rows(store, query, session_id, 0, limit, syntax)]
    if not ids:
        return []
    params = {f"i{j}": i for j, i in enumerate(ids)}
    marks = ", ".join(f":{k}" for k in params)
    with reading(store) as conn:
        found = [
            message_of(r)
            for r in conn.rows(
                f"SELECT {', '.join(MESSAGE_COLUMNS)} FROM message WHERE id IN ({marks}) ORDER BY id", params
            )
        ]
        bodies.fill(conn, found)
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


def _session_id_range(conn: Conn, session_id: int) -> tuple[int, int] | None:
    """The first and last message id of a session (ids grow with seq within a session: its one writer
    inserts in seq order), through the (session_id, seq) index: two index probes, whatever its size."""
    lo = conn.scalar("SELECT id FROM message WHERE session_id = :s ORDER BY seq LIMIT 1", {"s": session_id})
    if lo is None:
        return None
    hi = conn.scalar(
        "SELECT id FROM message WHERE session_id = :s ORDER BY seq DESC LIMIT 1", {"s": session_id}
    )
    return int(lo), int(hi)


def _search_sqlite(
    conn: Conn, match: str, session_id: int | None, after_id: int, limit: int, cap: int
) -> tuple[list[dict[str, Any]], int | None]:
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
    rows = conn.rows(f"SELECT {columns} {from_sql} LIMIT :lim", params)
    total = None
    if cap:
        if session_id is None:  # every row of the index is a message: no join to count them
            from_sql = "FROM message_fts f WHERE f.message_fts MATCH :q AND f.rowid > :after ORDER BY f.rowid"
        total = conn.scalar(f"SELECT COUNT(*) FROM (SELECT 1 {from_sql} LIMIT :cap)", params)
    return rows, total


def _search_postgresql(
    conn: Conn, cond: tuple[str, dict[str, Any]], session_id: int | None, after_id: int, limit: int, cap: int
) -> tuple[list[dict[str, Any]], int | None]:
    """PostgreSQL: the same query over `message.fts` (its GIN index)."""
    params = {**cond[1], "after": after_id, "lim": limit, "cap": cap + 1}
    where = f"{cond[0]} AND message.id > :after"
    if session_id is not None:
        where += " AND message.session_id = :sid"
        params["sid"] = session_id
    columns = ", ".join(f"message.{c}" for c in _HIT_COLUMNS)
    rows = conn.rows(f"SELECT {columns} FROM message WHERE {where} ORDER BY message.id LIMIT :lim", params)
    total = None
    if cap:
        total = conn.scalar(
            f"SELECT COUNT(*) FROM (SELECT message.id FROM message WHERE {where} ORDER BY message.id LIMIT :cap) AS capped",
            params,
        )
    return rows, total


def _search_rows(
    store: Store, query: str, session_id: int | None, after_id: int, limit: int, syntax: bool
) -> list[dict[str, Any]]:
    found, _ = _search(store, query, session_id, after_id, limit, syntax)
    return found


def _search(
    store: Store,
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
    with reading(store) as conn:
        try:
            if conn.backend == "sqlite":
                match = query if syntax else fts_query(query)
                rows, total = (
                    _search_sqlite(conn, match, session_id, after_id, limit, cap) if match else ([], 0)
                )
            else:
                cond = condition_sql(conn.backend, query, syntax=syntax)
                rows, total = (
                    _search_postgresql(conn, cond, session_id, after_id, limit, cap)
                    if cond is not None
                    else ([], 0)
                )
        except sqlite3.OperationalError as exc:
            raise InspectorError(f"invalid search {query!r}: {exc}") from None
        bodies.fill(conn, rows)
    return rows, total


def search_page(
    store: Store,
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
    rows, total = _search(store, query, session_id, after_id, limit + 1, syntax, cap=count_upto)
    more = len(rows) > limit
    rows = rows[:limit]
    names: dict[int, str | None] = {}
    if rows:
        sids = {f"s{j}": i for j, i in enumerate(sorted({int(r["session_id"]) for r in rows}))}
        in_list = ", ".join(f":{k}" for k in sids)
        with reading(store) as conn:
            names = {
                int(i): name
                for i, name in conn.all(f"SELECT id, name FROM session WHERE id IN ({in_list})", sids)
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
