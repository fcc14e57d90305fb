"""Linting a stored session: stream its rows through `check.Linter`, store the findings.

The one module of `inspector.lint` that touches the database. Findings go
to the `lint_finding` table; each flagged message's `lint` column gets a
compact list of `{rule, severity}` (what the timeline's badges need without
a join); `lint_run` remembers up to which seq and with which rule set the
session was linted, so a growing live session, or a new rule set, makes the
findings stale and the next request re-lints. A re-lint replaces the
session's findings. The rule set (`RULES_VERSION`) is the rules' ids, severities and revisions,
the code that checks them (the sources of `inspector.lint` and `inspector.protocol`) and the
`mcp-types` release whose models validate the shapes: findings stored by another inspector, or
another `mcp-types`, are stale.
"""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import json
import operator
import threading
import time
import typing
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import JSON, Connection, Engine, String, bindparam, cast, func, select, text

from inspector.lint.check import VALUES, Linter
from inspector.lint.findings import Finding
from inspector.lint.rules import RULES
from inspector.lint.scan import SessionScan
from inspector.protocol import mcp_tables
from inspector.store import bodies, schema
from inspector.store.engine import write_connection
from inspector.store.models import StoredRow
from inspector.store.queries import get_session

__all__ = ["RULES_VERSION", "findings_of", "lint_is_stale", "lint_rows", "lint_session"]

PAGE = 2000  # rows read at a time
WRITE_BATCH = 1000  # findings (and flagged messages) written per statement


def _rules_version() -> str:
    """The rule set's digest (see the module): its rules, the code that checks them, mcp-types'
    release. The sources are read once per process (some 35 files, a millisecond)."""
    digest = hashlib.sha1("|".join(f"{r.id}:{r.severity}:{r.since}" for r in RULES.values()).encode())
    digest.update(f"|mcp-types {mcp_tables.MCP_TYPES_VERSION}|".encode())
    here = Path(__file__).parent
    for package in (here, Path(mcp_tables.__file__).parent):
        for source in sorted(package.glob("*.py")):
            digest.update(f"{package.name}/{source.name}:".encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


RULES_VERSION = _rules_version()

_m = schema.message
_f = schema.lint_finding
_run = schema.lint_run


def _max_seq(engine: Engine, session_id: int) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(
                select(func.coalesce(func.max(_m.c.seq), 0)).where(_m.c.session_id == session_id)
            ).scalar_one()
        )


def lint_is_stale(engine: Engine, session_id: int) -> bool:
    """Whether the session has never been linted, grew since, or was linted by another rule set."""
    with engine.connect() as conn:
        run = conn.execute(select(_run).where(_run.c.session_id == session_id)).first()
    if run is None:
        return True
    return bool(run.rules_version != RULES_VERSION or run.upto_seq != _max_seq(engine, session_id))


def _scan(conn: Connection, session_id: int, *, http: bool = False, legacy_sse: bool = False) -> SessionScan:
    """The look-ahead facts from the few rows that carry them (`lint.scan`), not a pass over all.

    Whether some row is an HTTP request (`http`) or the server's `endpoint` event (`legacy_sse`) is
    what `lint_rows` has learnt from the pages it read (a query over the whole session for them was
    a tenth of a 100k lint): given, or seen in the rows read here."""
    scan = SessionScan()
    mine = _m.c.session_id == session_id
    # Only the rows each fact comes from: initialize and tools/list (one method at a time, so that
    # the (session, method, seq) index gives them in order: with IN, SQLite walked the whole
    # session by seq), HTTP requests naming a protocol version header.
    by_method = (_pages(conn, mine & (_m.c.method == m)) for m in ("initialize", "tools/list"))
    for row in heapq.merge(*by_method, key=_seq_of):
        scan.see(row)
    scan.http = scan.http or http
    scan.legacy_sse = scan.legacy_sse or legacy_sse
    if scan.http:
        versioned = select(_m.c.http_headers).where(
            mine,
            _m.c.channel == "http-request",
            func.lower(cast(_m.c.http_headers, String)).like("%mcp-protocol-version%"),
        )
        for (headers,) in conn.execute(versioned):
            scan.see(typing.cast(StoredRow, {"channel": "http-request", "http_headers": headers}))
            if scan.modern:
                break
    return scan


def _learnt(rows: list[tuple[Any, ...]], scan: SessionScan) -> tuple[bool, bool] | None:
    """`(http, legacy_sse)` if a page shows what `scan` does not know yet (an HTTP request, the
    server's `endpoint` event), else None. In C over the page (`map`, `str.join`); a meta's JSON
    parsed only when its text names `endpoint`."""
    http = scan.http or "http-request" in map(_CHANNEL_OF, rows)
    legacy_sse = scan.legacy_sse
    if not legacy_sse and "endpoint" in "\n".join(metas := list(filter(None, map(_META_OF, rows)))):
        legacy_sse = any(
            isinstance(meta := _json(text), dict) and meta.get("event") == "endpoint"
            for text in metas
            if "endpoint" in text
        )
    if (http, legacy_sse) == (scan.http, scan.legacy_sse):
        return None
    return http, legacy_sse


def _seq_of(row: StoredRow) -> int:
    return int(row["seq"])


def _pages(conn: Connection, where: Any, page: int = PAGE) -> Iterator[StoredRow]:
    """The rows `where` selects in seq order, as plain dicts with their whole bodies (`_values`)."""
    for values in _values(conn, where, page):
        yield _row_of(values)


def _values(conn: Connection, where: Any, page: int = PAGE) -> Iterator[tuple[Any, ...]]:
    """The rows of `_value_pages` one by one."""
    for rows in _value_pages(conn, where, page):
        yield from rows


def _value_pages(
    conn: Connection, where: Any, page: int = PAGE
) -> Generator[list[tuple[Any, ...]], None, None]:
    """The rows `where` selects in seq order, `page` at a time, as the cursor gives them: tuples of
    `_READ_NAMES` (`check.VALUES` first), JSON columns as text, whole bodies in `raw`
    (keyset pages on the (session_id, seq) index: memory is one page, whatever the length).

    Read through the connection's own DB-API cursor with the statement SQLAlchemy compiled once:
    SQLAlchemy's result rows cost a third of the reading, a dict per row a fifth of what was left
    (issue 21). Columns the rules never read (`_UNREAD`) are left out."""
    stmt = (
        select(*_READ_COLUMNS)
        .where(where, _m.c.seq > bindparam("after_seq", -1))
        .order_by(_m.c.seq)
        .limit(page)
    )
    compiled = stmt.compile(dialect=conn.dialect)
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    after = -1
    try:
        while True:
            state = compiled.construct_expanded_state({"after_seq": after})
            params = dict(state.parameters)
            for key, process in state.processors.items():
                if key in params:
                    params[key] = process(params[key])
            args: Any = tuple(params[k] for k in state.positiontup or ()) if compiled.positional else params
            cursor.execute(state.statement, args)
            rows: list[Any] = cursor.fetchall()  # type: ignore[assignment]  # a list in both drivers
            # Both checks in C (map, itemgetter): Python generators over every row were 3% of a lint.
            if set(map(type, map(_RAW_OF, rows))) - _PLAIN:  # a memoryview
                rows = [
                    (*r[:_RAW], None if r[_RAW] is None else bytes(r[_RAW]), *r[_RAW + 1 :]) for r in rows
                ]
            if any(map(_SHA_OF, rows)):  # a large body in this page
                whole = bodies.load(conn, [r[_SHA] for r in rows if r[_SHA]])
                rows = [(*r[:_RAW], whole[r[_SHA]], *r[_RAW + 1 :]) if r[_SHA] else r for r in rows]
            if rows:
                yield rows
            if len(rows) < page:
                return
            after = rows[-1][_SEQ]
    finally:
        cursor.close()


def _row_of(values: tuple[Any, ...]) -> StoredRow:
    """A row's dict from its `_values` tuple, the JSON columns parsed."""
    d: Any = dict(zip(_READ_NAMES, values, strict=True))
    if (headers := d["http_headers"]) is not None:
        d["http_headers"] = _json(headers)
    if (meta := d["meta"]) is not None:
        d["meta"] = _json(meta)
    return typing.cast(StoredRow, d)


def _json(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # e.g. an integer beyond 64 bits: what SQLAlchemy would give
        return json.loads(text)


_JSON_NAMES = tuple(c.name for c in _m.c if isinstance(c.type, JSON) and c.name != "lint")
assert set(_JSON_NAMES) == {"http_headers", "meta"}  # the two `_pages` parses
# Columns no rule reads (nor `bodies.fill`): left out of the page read, a quarter fewer values to
# fetch and put in each row's dict. `lint` is what the lint writes.
_UNREAD = frozenset(
    {"lint", "session_id", "ts_ns", "parse_status", "error_code", "latency_ns", "sse_event_id"}
)
_READ_NAMES = VALUES + tuple(c.name for c in _m.c if c.name not in _UNREAD and c.name not in VALUES)
_READ_COLUMNS = [cast(_m.c[n], String).label(n) if n in _JSON_NAMES else _m.c[n] for n in _READ_NAMES]
_SEQ, _RAW, _SHA = (_READ_NAMES.index(n) for n in ("seq", "raw", "body_sha256"))
_RAW_OF, _SHA_OF = operator.itemgetter(_RAW), operator.itemgetter(_SHA)
_CHANNEL_OF, _META_OF = (operator.itemgetter(_READ_NAMES.index(n)) for n in ("channel", "meta"))
_PLAIN = frozenset({bytes, type(None)})


def lint_rows(
    engine: Engine, session_id: int, *, page: int = PAGE, progress: Callable[[int], None] | None = None
) -> Iterator[Finding]:
    """Every finding of a stored session, checked as it is read (`check.Linter`), in seq order;
    `progress` gets the number of rows checked after each page (never fewer than it was given).

    Two look-ahead facts, whether some row is an HTTP request and whether the server sent an
    `endpoint` event, are assumed absent unless `_scan` saw them, and each page is looked at for
    them before the linter gets it: a page that shows one starts the lint again from the first row
    with the fact known (each can only turn true: at most two restarts; an HTTP session shows it in
    its initialize rows or its first page). The findings are therefore given once every row is
    checked.

    The cyclic garbage collector runs as usual: the linter (`check.Linter`) allocates little per
    row, and holding collection off process-wide (as the first streamed lint did) left the API
    server's other threads without it for ~0.1 s of collections saved per 100,000 rows."""
    shown = 0
    with engine.connect() as conn:
        scan = _scan(conn, session_id)
        while True:
            linter = Linter(scan)
            findings: list[Finding] = []
            learnt = None
            n = 0
            with contextlib.closing(_value_pages(conn, _m.c.session_id == session_id, page)) as pages:
                for rows in pages:
                    if (learnt := _learnt(rows, scan)) is not None:
                        break
                    findings.extend(linter.feed_page(rows, _row_of))  # on a row in a hundred
                    n += len(rows)
                    if progress is not None and len(rows) == page and n > shown:
                        shown = n
                        progress(n)
            if learnt is None:
                break
            scan = _scan(conn, session_id, http=learnt[0], legacy_sse=learnt[1])
    yield from findings


_lint_locks: dict[tuple[int, int], list[Any]] = {}  # (engine, session) -> [its lock, its users]
_lint_locks_guard = threading.Lock()


@contextlib.contextmanager
def _one_lint_at_a_time(engine: Engine, session_id: int) -> Iterator[None]:
    """Held while a stale session is linted on request: a second request for the same session waits
    for the first lint and then reads its findings, instead of linting the session again."""
    key = (id(engine), session_id)
    with _lint_locks_guard:
        entry = _lint_locks.setdefault(key, [threading.Lock(), 0])
        entry[1] += 1
    try:
        with entry[0]:
            yield
    finally:
        with _lint_locks_guard:
            entry[1] -= 1
            if entry[1] == 0:
                del _lint_locks[key]


def _clear_flags(conn: Connection, session_id: int) -> None:
    """Clear every flag of the session's messages (a lint's, an imported session's): only the rows
    flagged, read from the partial index on `lint IS NOT NULL` (revision 0008) instead of a walk of
    every row (85 ms at 100,000 rows). SQLite is told the index: without statistics it ranked it
    with the session's other indexes and took whichever came first."""
    hint = f" INDEXED BY {_FLAGGED}" if conn.dialect.name == "sqlite" else ""
    conn.execute(
        text(f"UPDATE message{hint} SET lint = NULL WHERE session_id = :sid AND lint IS NOT NULL"),
        {"sid": session_id},
    )


_FLAGGED = "ix_message_session_linted"
assert any(i.name == _FLAGGED for i in _m.indexes)


def lint_session(
    engine: Engine, session_id: int, *, progress: Callable[[int], None] | None = None
) -> list[Finding]:
    """Check every message of a stored session and store the findings (replacing earlier ones).

    The rows are read a page at a time and each is checked once (memory: one page and what the
    rules remember, not the session); the findings are written in batches."""
    get_session(engine, session_id)  # NotFoundError for a bad id
    upto = _max_seq(engine, session_id)
    findings = list(lint_rows(engine, session_id, progress=progress))
    by_seq: dict[int, list[dict[str, str]]] = {}
    for f in findings:
        by_seq.setdefault(f.seq, []).append({"rule": f.rule, "severity": f.severity})
    counts = Counter(f.severity for f in findings)
    flag = (
        _m.update()
        .where(_m.c.session_id == bindparam("sid"), _m.c.seq == bindparam("at_seq"))
        .values(lint=bindparam("summary"))
    )
    with write_connection(engine) as conn, conn.begin():
        conn.execute(_f.delete().where(_f.c.session_id == session_id))
        _clear_flags(conn, session_id)
        for start in range(0, len(findings), WRITE_BATCH):
            chunk = findings[start : start + WRITE_BATCH]
            conn.execute(_f.insert(), [{"session_id": session_id, **f.to_json()} for f in chunk])
        flagged = list(by_seq.items())
        for start in range(0, len(flagged), WRITE_BATCH):
            conn.execute(
                flag,
                [
                    {"sid": session_id, "at_seq": seq, "summary": summary}
                    for seq, summary in flagged[start : start + WRITE_BATCH]
                ],
            )
        conn.execute(_run.delete().where(_run.c.session_id == session_id))
        conn.execute(
            _run.insert().values(
                session_id=session_id,
                upto_seq=upto,
                rules_version=RULES_VERSION,
                linted_ns=time.time_ns(),
                errors=counts["error"],
                warnings=counts["warning"],
                infos=counts["info"],
            )
        )
    return findings


def findings_of(
    engine: Engine, session_id: int, *, seq: int | None = None, relint_if_stale: bool = True
) -> list[Finding]:
    """The stored findings of a session (or of its message `seq`), in seq order; lints first when stale."""
    if relint_if_stale and lint_is_stale(engine, session_id):
        with _one_lint_at_a_time(engine, session_id):
            if lint_is_stale(engine, session_id):  # not linted meanwhile by another request
                found = lint_session(engine, session_id)
                return [f for f in found if seq is None or f.seq == seq]
    stmt = select(_f).where(_f.c.session_id == session_id)
    if seq is not None:
        stmt = stmt.where(_f.c.seq == seq)
    with engine.connect() as conn:
        rows = conn.execute(stmt.order_by(_f.c.seq, _f.c.id)).all()
    fields = ("seq", "message_id", "severity", "rule", "explanation", "spec_section", "revision")
    return [Finding(**{k: getattr(r, k) for k in fields}) for r in rows]
