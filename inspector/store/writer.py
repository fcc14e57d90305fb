"""Writing a session's rows: one transaction per batch, session facts in the same transaction.

Used by one thread at a time (the recorder's writer thread, and its
recording thread for `on_end` once the writer is idle). Several processes may write to
one SQLite file at once: every batch takes the write lock at BEGIN
(`BEGIN IMMEDIATE`) and waits for it through SQLite's busy timeout.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import time
from collections import Counter
from itertools import chain
from operator import itemgetter, methodcaller
from typing import TYPE_CHECKING, Any

import orjson

from inspector.store import fts
from inspector.store.bodies import Encoder
from inspector.store.db import Conn, backend_of, connect_writer, json_param, writing
from inspector.store.models import JSON_COLUMNS, ROW_COLUMNS, STORED_COLUMNS, MessageRow
from inspector.store.notify import notifier

if TYPE_CHECKING:
    from inspector.store.db import Store

__all__ = [
    "FACT_COLUMNS",
    "BulkWriter",
    "SessionWriter",
    "StoreWriter",
    "insert_session",
    "update_session_row",
]

FACT_COLUMNS = (  # the session facts that also have a column of their own
    "era",
    "offered_version",
    "protocol_version",
    "client_info",
    "server_info",
    "client_capabilities",
    "server_capabilities",
)


def _recording(**fields: object) -> dict[str, object]:
    """A new session row's values: `fields`, in state `recording`, owned by this process."""
    return {
        **fields,
        "status": "recording",
        "started_ns": time.time_ns(),
        "message_count": 0,
        "host": socket.gethostname(),
        "pid": os.getpid(),
    }


def _new_session(conn: Conn, values: dict[str, Any]) -> int:
    """Insert a session row (`values`: its columns, JSON ones as Python values); its id."""
    names = list(values)
    params = {k: json_param(v) if k in JSON_COLUMNS else v for k, v in values.items()}
    sql = (
        f"INSERT INTO session ({', '.join(names)}) VALUES ({', '.join(':' + n for n in names)}) RETURNING id"
    )
    return int(conn.scalar(sql, params))


def update_session_row(conn: Conn, session_id: int, values: dict[str, Any]) -> None:
    """Set columns of a session row (JSON ones given as Python values), in `conn`'s transaction."""
    if not values:
        return
    params = {k: json_param(v) if k in JSON_COLUMNS else v for k, v in values.items()}
    assigned = ", ".join(f"{k} = :{k}" for k in values)
    conn.execute(
        f"UPDATE session SET {assigned} WHERE id = :session_id_", {**params, "session_id_": session_id}
    )


def insert_session(
    store: Store,
    *,
    kind: str,
    target: Any,
    name: str | None = None,
    parent_id: int | None = None,
) -> int:
    """Insert a new session row in state `recording` with `target` as given; return its id.

    Recording code opens sessions through `inspector.capture.sessions.create_session`, which
    redacts the target's secrets first (the store knows no redaction rules)."""
    with writing(store) as conn:
        session_id = _new_session(conn, _recording(kind=kind, target=target, name=name, parent_id=parent_id))
        notify = notifier(store)
        if notify is not None:  # PostgreSQL: `ui` servers elsewhere see it at once (store/notify.py)
            notify.send(conn, "created", [session_id])
        return session_id


class StoreWriter:
    """The recorder's subscriber that writes rows of any sessions and keeps their session rows current.

    It writes over a DB-API connection of its own (`store.db.connect_writer`: a new one for a `Db`,
    one lent by an `Engine`'s pool), one transaction per batch. Message rows go in as plain tuples,
    their JSON columns serialised with orjson. On SQLite they go in as multi-row
    `INSERT ... VALUES (...), (...)` statements of up to 1024 rows (powers of
    two, so a handful of cached prepared statements serve every batch size):
    one `sqlite3_step` per statement instead of one per row cost about 1.5 us
    less CPU a row than `executemany`, and keeps the GIL released while SQLite
    inserts the whole group. On PostgreSQL they go in with one `COPY ... FROM
    STDIN` per batch (psycopg's copy: about 2.7x the rows a second of psycopg's
    pipelined `executemany`, the full-text column computed on the way, see
    docs/decisions/0004-alembic-one-schema-for-sqlite-and-postgresql.md).
    """

    def __init__(self, store: Store, bodies: Encoder | None = None) -> None:
        self.engine = store
        # Large bodies go out of line, compressed and stored once (store/bodies.py), on this thread.
        self.bodies = bodies or Encoder()
        self.counts: dict[int, int] = {}
        self._conn = connect_writer(store)
        marker = self._conn.marker
        self._count_sql = f"UPDATE session SET message_count = {marker} WHERE id = {marker}"
        self._fast_sql = f"INSERT INTO message ({', '.join(STORED_COLUMNS)}) VALUES ({', '.join([marker] * len(STORED_COLUMNS))})"
        self._notify = notifier(store)
        if self._notify is not None:
            # PostgreSQL over a network: a COMMIT whose answer was lost (the server went away) is
            # retried by the recorder; its rows are already there and must not fail the retry.
            self._fast_sql += " ON CONFLICT (session_id, seq) DO NOTHING"
        self._sqlite = backend_of(store) == "sqlite"
        # SQLite's full-text index kept as rows arrive (off only to measure its cost: bench/scale_search.py).
        self.full_text = True
        self._group = _rows_per_statement(self._conn.raw) if self._sqlite else 1
        self._group_sql: dict[int, str] = {}
        self._copy_sql = None if self._sqlite else f"COPY message ({', '.join(STORED_COLUMNS)}) FROM STDIN"
        # After a failed transaction the next batch (the recorder's retry) may hold rows whose COMMIT
        # went through but whose answer was lost: it goes in with INSERT ... ON CONFLICT DO NOTHING,
        # not COPY (which cannot skip them and would fail the retry forever).
        self._retrying = False

    def _insert_rows(self, rows: list[MessageRow]) -> None:
        bodies: dict[str, bytes] = {}
        if rows and max(map(len, map(_raw, rows))) > self.bodies.limits.out_of_line:  # one pass in C
            stored, bodies = self.bodies.split(rows)
            self.bodies.write(self._conn, bodies)
            rows = stored  # type: ignore[assignment]
        newest = fts.newest_id(self._conn) if self._sqlite and self.full_text else None
        self._insert_stored(rows)
        if newest is not None:
            # SQLite's full-text index, in this transaction: the batch's rows in one statement, a large
            # body's from the whole body held here (its row keeps only the start; store/fts.py).
            fts.index_batch(self._conn, newest, rows, bodies)
        elif bodies and self._notify is not None:
            # PostgreSQL's full-text column: its trigger indexes `raw`, which holds only a large
            # body's start; the whole body's words are indexed here (migration 0004).
            self._conn.executemany(
                "UPDATE message SET fts = inspector_fts_vector(%s) WHERE session_id = %s AND seq = %s",
                [
                    (bodies[row["body_sha256"]], row["session_id"], row["seq"])  # type: ignore[typeddict-item]
                    for row in rows
                    if row.get("body_sha256")
                ],
            )

    def _insert_stored(self, rows: list[MessageRow]) -> None:
        dumps = orjson.dumps
        params: list[tuple[Any, ...]] = []
        append = params.append
        json_a, json_b, json_c = _JSON_INDEXES
        hashed = any(map(_body_sha256, rows))  # a large body's row (store/bodies.py), rare
        for row in rows:
            values = _row_values(row)  # a tuple, built in C
            if values[json_a] is not None or values[json_b] is not None or values[json_c] is not None:
                listed = list(values)
                for i in _JSON_INDEXES:
                    if listed[i] is not None:
                        listed[i] = dumps(listed[i]).decode()
                values = tuple(listed)
            append(values + (row.get("body_sha256"),) if hashed else values + _NO_SHA)
        if self._copy_sql is not None and not self._retrying:
            with self._conn.raw.cursor() as cur, cur.copy(self._copy_sql) as copy:
                for values in params:
                    copy.write_row(values)
            return
        if self._group == 1:
            self._conn.executemany(self._fast_sql, params)
            return
        start, left = 0, len(params)
        while left:
            size = min(self._group, 1 << (left.bit_length() - 1))  # the largest power of two that fits
            self._conn.positional(self._values_sql(size), tuple(_flat(params[start : start + size])))
            start += size
            left -= size

    def _values_sql(self, rows: int) -> str:
        sql = self._group_sql.get(rows)
        if sql is None:
            one = f"({', '.join('?' * len(STORED_COLUMNS))})"
            sql = self._group_sql[rows] = (
                f"INSERT INTO message ({', '.join(STORED_COLUMNS)}) VALUES {', '.join([one] * rows)}"
            )
        return sql

    def on_batch(self, rows: list[MessageRow], facts: dict[int, dict[str, Any]]) -> None:
        """Write rows (and changed session facts) in one transaction."""
        if not rows and not facts:
            return
        counts = dict(self.counts)
        added = Counter(map(_session_id, rows))  # counted in C
        for sid, n in added.items():
            counts[sid] = counts.get(sid, 0) + n
        touched = set(added) | set(facts)
        if self._retrying:
            self._renew_if_broken()
        try:
            with self._conn.transaction():
                if rows:
                    self._insert_rows(rows)
                for sid in touched:
                    if sid in facts:
                        self._update(sid, {"message_count": counts.get(sid, 0), **_fact_values(facts[sid])})
                    else:
                        self._conn.positional(self._count_sql, (counts.get(sid, 0), sid))
                if self._notify is not None:
                    self._notify.send(self._conn, "rows", touched, inserted=bool(rows))
        except BaseException:
            self._retrying = True
            raise
        self._retrying = False
        self.counts = counts

    def on_end(self, session_id: int, exit_status: int | None, reason: str, facts: dict[str, Any]) -> None:
        """Mark a session ended."""
        values = {
            "status": "ended",
            "ended_ns": time.time_ns(),
            "exit_status": exit_status,
            "end_reason": reason,
            **(_fact_values(facts) if facts else {}),
        }
        if self._retrying:
            self._renew_if_broken()
        with self._conn.transaction():
            self._update(session_id, values)
            if self._notify is not None:
                self._notify.send(self._conn, "ended", [session_id])
        self.counts.pop(session_id, None)

    def close(self) -> None:
        self._conn.close()

    def _renew_if_broken(self) -> None:
        """Before a retry: a connection the server dropped (PostgreSQL gone away) is replaced by a new
        one (if none can be opened yet, the retry fails as the last try did, and the next tries again)."""
        raw = self._conn.raw
        if not (getattr(raw, "closed", False) or getattr(raw, "broken", False)):
            return
        with contextlib.suppress(Exception):
            self._conn.close()
        self._conn = connect_writer(self.engine)

    def _update(self, session_id: int, values: dict[str, Any]) -> None:
        update_session_row(self._conn, session_id, values)


_JSON_COLUMNS = ("http_headers", "meta", "lint")
_JSON_INDEXES = tuple(i for i, c in enumerate(ROW_COLUMNS) if c in _JSON_COLUMNS)
_row_values = itemgetter(*ROW_COLUMNS)
_raw = itemgetter("raw")
_session_id = itemgetter("session_id")
_body_sha256 = methodcaller("get", "body_sha256")
_NO_SHA = (None,)
_flat = chain.from_iterable
_MAX_GROUP = (
    1024  # rows per multi-row INSERT: 22 columns * 1024 = 22,528 of SQLite's default 32,766 variables
)


def _rows_per_statement(dbapi: Any) -> int:
    """The largest power-of-two row count (<= 1024) whose parameters this SQLite build accepts at once."""
    try:
        variables = dbapi.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    except (AttributeError, sqlite3.Error):  # not the standard library's sqlite3: one row at a time
        return 1
    group = 1
    while group * 2 <= _MAX_GROUP and group * 2 * len(STORED_COLUMNS) <= variables:
        group *= 2
    return group


def _fact_values(facts: dict[str, Any]) -> dict[str, Any]:
    return {**{k: facts.get(k) for k in FACT_COLUMNS}, "facts": facts}


class SessionWriter:
    """A `StoreWriter` for one session, for code that writes rows itself (imports, tests, generators)."""

    def __init__(self, store: Store, session_id: int) -> None:
        self.session_id = session_id
        self._writer = StoreWriter(store)

    def on_batch(self, rows: list[MessageRow], facts: dict[str, Any] | None = None) -> None:
        """Write rows of this session (and its changed facts) in one transaction."""
        self._writer.on_batch(rows, {self.session_id: facts} if facts is not None else {})

    def on_end(self, exit_status: int | None, reason: str, facts: dict[str, Any] | None = None) -> None:
        """Mark the session ended and release the connection."""
        self._writer.on_end(self.session_id, exit_status, reason, facts or {})
        self._writer.close()


class BulkWriter:
    """Whole sessions written by code rather than a recorder (imports): a session row with every
    column given, its rows in batches (one transaction each, so a long import never holds the
    write lock for long), the final columns set at the end, or the session removed on failure."""

    def __init__(self, store: Store) -> None:
        self.engine = store
        self._writer = StoreWriter(store)

    def add_session(self, parent_id: int | None) -> int:
        """A new session in state `recording` owned by this process until `finish_session`."""
        with self._writer._conn.transaction() as conn:
            return _new_session(conn, _recording(kind="import", parent_id=parent_id))

    def add_rows(self, rows: list[MessageRow]) -> None:
        if rows:
            with self._writer._conn.transaction():
                self._writer._insert_rows(rows)

    def finish_session(self, session_id: int, columns: dict[str, Any]) -> None:
        """Set every column of the session (its final state) at once."""
        with self._writer._conn.transaction():
            self._writer._update(session_id, columns)
            if self._writer._notify is not None:
                self._writer._notify.send(self._writer._conn, "ended", [session_id])

    def close(self) -> None:
        self._writer.close()
