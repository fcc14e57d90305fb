"""A stored session's message records as the diff reads them (`WireRecord`), streamed in keyset
pages of the driver's own tuples (`StoredMessages`), or read whole (`wire`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from inspector.store import bodies
from inspector.store.db import Conn, reading

if TYPE_CHECKING:
    from inspector.store.db import Store

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


# `meta` as the driver gives it: SQLite's text, parsed with orjson below (the json module on each
# row was a sixth of a streamed diff's time); PostgreSQL's driver hands over the parsed value itself.
_PAGE_SQL = (
    f"SELECT {', '.join(WireRecord._fields)}, body_sha256 FROM message "
    "WHERE session_id = :session_id AND seq > :after ORDER BY seq LIMIT :limit"
)


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

    def __init__(self, engine: Store, session_id: int, *, page: int = 2000) -> None:
        self.engine, self.session_id, self.page = engine, session_id, page

    def __iter__(self) -> Iterator[WireRecord]:
        after = -1
        new, fix = tuple.__new__, _fixed
        while True:
            with reading(self.engine) as conn:
                rows = _page(conn, self.page, self.session_id, after)
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


def _page(conn: Conn, limit: int, session_id: int, after: int) -> list[Any]:
    """One keyset page of the wire columns as the driver's own tuples (result objects' per-row
    processing was more than half of reading: issue 21)."""
    cursor = conn.execute(_PAGE_SQL, {"session_id": session_id, "after": after, "limit": limit})
    try:
        return list(cursor.fetchall())
    finally:
        cursor.close()


def wire(engine: Store, session_id: int, *, page: int = 5000) -> list[WireRecord]:
    """A session's message records, the diff's input: only the columns it reads, in keyset pages of
    plain tuples (no ORM objects, no identity map; issue 21: a third of a 100k diff's time and most
    of its memory went to `Message` instances). `StoredMessages` streams them instead."""
    return list(StoredMessages(engine, session_id, page=page))
