"""A stored session's message records as the diff reads them (`WireRecord`), streamed in keyset
pages of the driver's own tuples (`StoredMessages`), or read whole (`wire`)."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection, Dialect, Engine, Text, bindparam, select, type_coerce
from sqlalchemy.sql.compiler import SQLCompiler

from inspector.store import bodies, schema

__all__ = ["StoredMessages", "WireRecord", "wire"]


class WireRecord(NamedTuple):
    """The columns the diff reads of one stored message (`store.models.MessageRecord`). A named
    tuple: a frozen dataclass set each field through `object.__setattr__`, a tenth of a streamed
    diff's time (issue 21)."""

    seq: int
    direction: str
    channel: str
    raw: bytes
    kind: str
    method: str | None
    rpc_id: str | None
    answers_seq: int | None
    meta: Any


_m = schema.message
# `meta` as its text, parsed with orjson below (SQLAlchemy's JSON type runs the json module on each
# row: a sixth of a streamed diff's time); PostgreSQL's driver hands over the parsed value itself.
_WIRE_COLUMNS = [
    type_coerce(_m.c[name], Text) if name == "meta" else _m.c[name] for name in WireRecord._fields
]


def _meta(value: Any) -> Any:
    if isinstance(value, str | bytes):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:  # an integer beyond 64 bits
            return json.loads(value)
    return value


class StoredMessages:
    """A stored session's message records as the diff reads them, streamed: each pass reads keyset
    pages of `page` rows (one short connection each), so only a page is held at a time (issue 21).
    Iterable more than once (the diff reads a session again when it has conversation rounds)."""

    def __init__(self, engine: Engine, session_id: int, *, page: int = 2000) -> None:
        self.engine, self.session_id, self.page = engine, session_id, page

    def __iter__(self) -> Iterator[WireRecord]:
        after = -1
        new, fix = tuple.__new__, _fixed
        while True:
            with self.engine.connect() as conn:
                rows = _page(conn, _statement(conn.dialect, self.page), self.session_id, after)
                large = [r[9] for r in rows if r[9]]
                whole = bodies.load(conn, large) if large else {}
            # A record made as it is read, not a page of them at once: the collector never
            # untracks a `WireRecord` (a tuple subclass), so 2,000 held at once were promoted
            # through its generations and brought full collections; made one by one, each dies
            # young (diff28: a 100k diff's CPU median 1.40 vs 1.73 s, same process, 10 rounds).
            # The common row (no blob, no meta, bytes already) is made in C (`tuple.__new__`).
            for row in rows:
                if row[9] is None and row[8] is None and type(row[3]) is bytes:
                    yield new(WireRecord, row[:9])
                else:
                    yield fix(row, whole)
            if len(rows) < self.page:
                return
            after = rows[-1][0]


def _fixed(row: Any, whole: dict[str, bytes]) -> WireRecord:
    """A row with its blob's bytes, its `meta` parsed, its `raw` as bytes."""
    sha, meta, raw = row[9], row[8], row[3]
    raw = whole[sha] if sha else raw if isinstance(raw, bytes) else bytes(raw)
    return WireRecord._make((*row[:3], raw, *row[4:8], _meta(meta)))


def _page(conn: Connection, compiled: SQLCompiler, session_id: int, after: int) -> list[Any]:
    """One keyset page of the wire columns as the driver's own tuples: SQLAlchemy's per-row result
    processing was more than half of reading (issue 21). The statement is SQLAlchemy's, compiled
    once per dialect and page size (`_statement`: a compile per page was ~6% of a streamed diff)."""
    params = compiled.construct_params({"session_id": session_id, "after": after})
    args: Any = tuple(params[k] for k in compiled.positiontup or ()) if compiled.positional else params
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(compiled.string, args)
        return list(cursor.fetchall())
    finally:
        cursor.close()


@functools.lru_cache(maxsize=16)
def _statement(dialect: Dialect, limit: int) -> SQLCompiler:
    stmt = (
        select(*_WIRE_COLUMNS, _m.c.body_sha256)
        .where(_m.c.session_id == bindparam("session_id"), _m.c.seq > bindparam("after"))
        .order_by(_m.c.seq)
        .limit(limit)
    )
    return stmt.compile(dialect=dialect)


def wire(engine: Engine, session_id: int, *, page: int = 5000) -> list[WireRecord]:
    """A session's message records, the diff's input: only the columns it reads, in keyset pages of
    plain tuples (no ORM objects, no identity map; issue 21: a third of a 100k diff's time and most
    of its memory went to `Message` instances). `StoredMessages` streams them instead."""
    return list(StoredMessages(engine, session_id, page=page))
