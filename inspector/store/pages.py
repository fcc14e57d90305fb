"""Pages of message rows for the API, serialised straight to JSON (issue 21: a page of 500 from a
1,000,000-message session within a few times the raw SQLite query).

`message_page` is the one call behind `GET /api/sessions/{id}/messages`: the session's existence,
the page and (when asked) the filter's total, in one worker-thread hop and one pooled connection.

On SQLite, filters made of columns (direction, kinds, channels, methods, findings) take the fast
path: the SQL text is written here (a few string joins, no statement compile), run on the DB-API
connection, and the tuples become dicts without SQLAlchemy's per-row `Row` machinery. The JSON
text columns (`http_headers`, `meta`, `lint`) are not parsed at all: they go into the response as
`orjson.Fragment`s (the stored JSON text, embedded as it is). The profile showed where the time
went before: per-row `Row` building and `_row_dict` ~55%, SQLAlchemy's fetch ~20%, the compile
and execute of the statement ~1 ms a page; `orjson.dumps` itself ~5%.

The FTS `text` filter takes the fast path too: `message.id IN (SELECT rowid FROM message_fts WHERE
message_fts MATCH ?)`, as `queries._text_condition` writes it. Its total (what the timeline waits for
on a filter change) is where the time went: SQLite walked every row of the session to probe the
match set (378 ms for a 1,000,000-message session, O(session) whatever the match count). When the
text is the only filter and the session owns a whole range of ids, the total is the FTS5 count of the
matches in that range (`rowid BETWEEN`, which FTS5 answers from its doclists without touching
`message`): `_owned_ids` takes the session's lowest and highest id from the (session_id, id) index
(revision 0007) and proves the range its own when it holds no more ids than the session has rows
(seq is gap-free): three index lookups. (Before that index, the proof walked the session's
(session_id, seq) index: 72-100 ms of CPU at 1,000,000 rows, most of a search's time.) A session
whose ids interleave with another's (two recordings at once) gets the walk-and-probe count, exact
as before. No assumption on the order of ids within a session is made, so no insert path has to
keep one.

Everything else (PostgreSQL, whose driver hands back parsed JSON; the `intervened` filter on
`meta`) goes through `queries.message_rows` / `count_messages`, the SQLAlchemy path, which gives the
same keys and values. Tests compare the two.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from sqlalchemy import Engine

from inspector.errors import NotFoundError
from inspector.store.queries import (
    PREVIEW_BYTES,
    ROW_FIELDS,
    MessageFilter,
    count_messages,
    fts_query,
    get_session,
    message_rows,
)

__all__ = ["JSON_FIELDS", "message_page"]

JSON_FIELDS = ("http_headers", "meta", "lint")  # JSON text in SQLite
_KEYS = (*ROW_FIELDS, "preview")
_JSON_AT = tuple(i for i, name in enumerate(ROW_FIELDS) if name in JSON_FIELDS)
_SELECT = (
    "SELECT "
    + ", ".join(f"message.{name}" for name in ROW_FIELDS)
    + f", substr(message.raw, 1, {PREVIEW_BYTES}) FROM message WHERE "
)
# Python's json (SQLAlchemy's serializer) writes these for float specials; they are not JSON, so such
# a text is parsed as SQLAlchemy parses it (json.loads; orjson then writes null) rather than embedded.
_NOT_JSON = (b"NaN", b"Infinity")


def message_page(
    engine: Engine,
    session_id: int,
    flt: MessageFilter,
    *,
    after_seq: int | None = None,
    before_seq: int | None = None,
    offset: int = 0,
    limit: int = 500,
    count: bool = False,
) -> tuple[list[dict[str, Any]], int | None]:
    """(rows as `message_rows` gives them, ready for orjson; the filter's total when `count`).

    Raises NotFoundError for a session that does not exist. Rows come in ascending seq order;
    `before_seq` pages backward (the last `limit` rows before it)."""
    if engine.dialect.name != "sqlite" or flt.intervened:
        get_session(engine, session_id)
        rows = message_rows(
            engine, session_id, flt, after_seq=after_seq, before_seq=before_seq, offset=offset, limit=limit
        )
        return rows, count_messages(engine, session_id, flt) if count else None
    where, params = _conditions(session_id, flt)
    page_where, page_params = list(where), list(params)
    if after_seq is not None:
        page_where.append("message.seq > ?")
        page_params.append(after_seq)
    backward = before_seq is not None
    if backward:
        page_where.append("message.seq < ?")
        page_params.append(before_seq)
    sql = (
        _SELECT
        + " AND ".join(page_where)
        + f" ORDER BY message.seq{' DESC' if backward else ''} LIMIT ? OFFSET ?"
    )
    with engine.connect() as conn:
        db = conn.connection.driver_connection
        assert db is not None
        if db.execute("SELECT 1 FROM session WHERE id = ?", (session_id,)).fetchone() is None:
            raise NotFoundError(f"no session with id {session_id}")
        tuples = db.execute(sql, (*page_params, limit, offset)).fetchall()
        total = _total(db, session_id, flt, where, params) if count else None
    rows = [_row(t) for t in tuples]
    return (rows[::-1] if backward else rows), total


def _total(db: Any, session_id: int, flt: MessageFilter, where: list[str], params: list[Any]) -> int:
    """The filter's total: the highest seq without a filter (seq is gap-free: an index lookup), the
    FTS5 count within the session's own range of ids for text alone, else `count(*)`."""
    if flt.is_empty:
        return int(
            db.execute(
                "SELECT coalesce(max(seq), 0) FROM message WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
        )
    match = fts_query(flt.text) if flt.text else ""
    if match and flt == MessageFilter(text=flt.text):
        owned = _owned_ids(db, session_id)
        if owned is not None:
            sql = "SELECT count(*) FROM message_fts WHERE message_fts MATCH ? AND rowid BETWEEN ? AND ?"
            return int(db.execute(sql, (match, *owned)).fetchone()[0])
    return int(db.execute(f"SELECT count(*) FROM message WHERE {' AND '.join(where)}", params).fetchone()[0])


def _owned_ids(db: Any, session_id: int) -> tuple[int, int] | None:
    """(lo, hi) when the message ids from lo to hi are exactly the session's rows, else None.

    lo and hi are the session's lowest and highest id, so none of its rows lies outside the range;
    the range is the session's own when it holds no more ids than the session has rows (seq is
    gap-free from 1, as the model says: the highest seq). Each of the three is one lookup in an
    index: (session_id, id) for the ids (revision 0007), (session_id, seq) for the count. Before that
    index, the proof walked the session's (session_id, seq) index for a row outside the range: 72-100
    ms of CPU per text search at 1,000,000 rows, most of the search's time."""
    ends = db.execute(
        "SELECT (SELECT min(id) FROM message WHERE session_id = ?1), "
        "(SELECT max(id) FROM message WHERE session_id = ?1), "
        "(SELECT max(seq) FROM message WHERE session_id = ?1)",
        (session_id,),
    ).fetchone()
    if ends is None or None in ends:
        return None
    lo, hi, rows = ends
    return (lo, hi) if hi - lo + 1 == rows else None


def _json_text(text: str | bytes) -> Any:
    data = text.encode() if isinstance(text, str) else bytes(text)
    return json.loads(data) if _NOT_JSON[0] in data or _NOT_JSON[1] in data else orjson.Fragment(data)


def _row_function() -> Any:
    """`_row(t)`: a result tuple (ROW_FIELDS, then the raw head) as a dict, written out as one dict
    display over the unpacked tuple. Generated from ROW_FIELDS so that it follows the model; 4-6x
    faster than `dict(zip(...))` over a list patched in place (measured: 1.0 ms against 6.0 ms for 500
    rows on the loaded benchmark machine), which was as slow as the SQLite query itself."""
    names = [f"v{i}" for i in range(len(_KEYS))]
    items = []
    for i, (key, name) in enumerate(zip(_KEYS, names, strict=True)):
        if i in _JSON_AT:
            items.append(f"{key!r}: None if {name} is None else _json_text({name})")
        elif key == "preview":
            items.append(f"{key!r}: '' if {name} is None else bytes({name}).decode('utf-8', 'replace')")
        else:
            items.append(f"{key!r}: {name}")
    source = f"def _row(t):\n    {', '.join(names)}, = t\n    return {{{', '.join(items)}}}\n"
    namespace: dict[str, Any] = {"_json_text": _json_text}
    exec(compile(source, "<store.pages._row>", "exec"), namespace)  # noqa: S102 (our own column names)
    return namespace["_row"]


_row = _row_function()


def _conditions(session_id: int, flt: MessageFilter) -> tuple[list[str], list[Any]]:
    """The WHERE terms of `queries._message_conditions` (all but `intervened`), as SQLite text."""
    where = ["message.session_id = ?"]
    params: list[Any] = [session_id]

    def within(column: str, values: tuple[str, ...]) -> str:
        params.extend(values)
        return f"{column} IN ({', '.join('?' * len(values))})"

    if flt.direction:
        where.append("message.direction = ?")
        params.append(flt.direction)
    if flt.kinds:
        where.append(within("message.kind", flt.kinds))
    if flt.channels:
        where.append(within("message.channel", flt.channels))
    if flt.methods:
        exact = tuple(m for m in flt.methods if not m.endswith("*"))
        ors = [within("message.method", exact)] if exact else []
        for m in flt.methods:
            if m.endswith("*"):  # a prefix, its LIKE wildcards escaped (SQLAlchemy's autoescape)
                ors.append("message.method LIKE ? ESCAPE '/'")
                params.append(m[:-1].replace("/", "//").replace("%", "/%").replace("_", "/_") + "%")
        where.append(f"({' OR '.join(ors)})")
    if flt.findings:
        severities = {"error": ("error",), "warning": ("error", "warning")}.get(flt.findings)
        lint = "SELECT lint_finding.seq FROM lint_finding WHERE lint_finding.session_id = ?"
        params.append(session_id)
        if severities:
            lint += " AND " + within("lint_finding.severity", severities)
        where.append(f"message.seq IN ({lint})")
    match = fts_query(flt.text) if flt.text else ""
    if match:  # as queries._text_condition (no word at all: no condition)
        where.append("message.id IN (SELECT rowid FROM message_fts WHERE message_fts MATCH ?)")
        params.append(match)
    return where, params
