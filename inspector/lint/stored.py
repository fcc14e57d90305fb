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
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from inspector.lint.check import VALUES, Linter
from inspector.lint.findings import Finding
from inspector.lint.rules import RULES
from inspector.lint.scan import SessionScan
from inspector.protocol import mcp_tables
from inspector.store import bodies
from inspector.store.db import MESSAGE_COLUMNS, Conn, json_param, reading, writing
from inspector.store.models import JSON_COLUMNS, StoredRow
from inspector.store.queries import get_session

if TYPE_CHECKING:
    from inspector.store.db import Store

__all__ = ["findings_of", "lint_is_stale", "lint_rows", "lint_session", "rules_version"]

PAGE = 2000  # rows read at a time
WRITE_BATCH = 1000  # findings (and flagged messages) written per statement


@cache
def rules_version() -> str:
    """The rule set's digest (see the module): its rules, the code that checks them, mcp-types'
    release. The sources (some 35 files) are read on first use, once per process."""
    digest = hashlib.sha1("|".join(f"{r.id}:{r.severity}:{r.since}" for r in RULES.values()).encode())
    digest.update(f"|mcp-types {mcp_tables.MCP_TYPES_VERSION}|".encode())
    here = Path(__file__).parent
    for package in (here, Path(mcp_tables.__file__).parent):
        for source in sorted(package.glob("*.py")):
            digest.update(f"{package.name}/{source.name}:".encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


def __getattr__(name: str) -> Any:
    if name == "RULES_VERSION":  # the digest as a constant, computed when first asked for
        return rules_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _max_seq(conn: Conn, session_id: int) -> int:
    return int(
        conn.scalar("SELECT COALESCE(MAX(seq), 0) FROM message WHERE session_id = :sid", {"sid": session_id})
    )


def lint_is_stale(store: Store, session_id: int) -> bool:
    """Whether the session has never been linted, grew since, or was linted by another rule set."""
    with reading(store) as conn:
        run = conn.all(
            "SELECT rules_version, upto_seq FROM lint_run WHERE session_id = :sid", {"sid": session_id}
        )
        if not run:
            return True
        return bool(run[0][0] != rules_version() or run[0][1] != _max_seq(conn, session_id))


def _scan(conn: Conn, session_id: int, *, http: bool = False, legacy_sse: bool = False) -> SessionScan:
    """The look-ahead facts from the few rows that carry them (`lint.scan`), not a pass over all.

    Whether some row is an HTTP request (`http`) or the server's `endpoint` event (`legacy_sse`) is
    what `lint_rows` has learnt from the pages it read (a query over the whole session for them was
    a tenth of a 100k lint): given, or seen in the rows read here."""
    scan = SessionScan()
    # Only the rows each fact comes from: initialize and tools/list (one method at a time, so that
    # the (session, method, seq) index gives them in order: with IN, SQLite walked the whole
    # session by seq), HTTP requests naming a protocol version header.
    by_method = (_pages(conn, session_id, m) for m in ("initialize", "tools/list"))
    for row in heapq.merge(*by_method, key=_seq_of):
        scan.see(row)
    scan.http = scan.http or http
    scan.legacy_sse = scan.legacy_sse or legacy_sse
    if scan.http:
        for (headers,) in conn.all(
            "SELECT CAST(http_headers AS TEXT) FROM message WHERE session_id = :sid "
            "AND channel = 'http-request' AND LOWER(CAST(http_headers AS TEXT)) LIKE :named",
            {"sid": session_id, "named": "%mcp-protocol-version%"},
        ):
            scan.see(typing.cast(StoredRow, {"channel": "http-request", "http_headers": _json(headers)}))
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


def _pages(conn: Conn, session_id: int, method: str | None = None, page: int = PAGE) -> Iterator[StoredRow]:
    """The rows of a session (of one `method`) in seq order, as plain dicts with their whole bodies."""
    for rows in _value_pages(conn, session_id, page, method=method):
        for values in rows:
            yield _row_of(values)


def _value_pages(
    conn: Conn, session_id: int, page: int = PAGE, *, method: str | None = None
) -> Generator[list[tuple[Any, ...]], None, None]:
    """The rows of a session (of one `method`) in seq order, `page` at a time, as the cursor gives
    them: tuples of `_READ_NAMES` (`check.VALUES` first), JSON columns as text, whole bodies in `raw`
    (keyset pages on the (session_id, seq) index: memory is one page, whatever the length).

    Read straight from the DB-API cursor: result objects cost a third of the reading, a dict per
    row a fifth of what was left (issue 21). Columns the rules never read (`_UNREAD`) are left out."""
    sql = (
        _READ_SQL
        + (" AND method = :method" if method is not None else "")
        + " AND seq > :after ORDER BY seq LIMIT :page"
    )
    params: dict[str, Any] = {"sid": session_id, "page": page, "method": method}
    after = -1
    while True:
        params["after"] = after
        rows: list[Any] = conn.execute(sql, params).fetchall()
        # Both checks in C (map, itemgetter): Python generators over every row were 3% of a lint.
        if set(map(type, map(_RAW_OF, rows))) - _PLAIN:  # a memoryview
            rows = [(*r[:_RAW], None if r[_RAW] is None else bytes(r[_RAW]), *r[_RAW + 1 :]) for r in rows]
        if any(map(_SHA_OF, rows)):  # a large body in this page
            whole = bodies.load(conn, [r[_SHA] for r in rows if r[_SHA]])
            rows = [(*r[:_RAW], whole[r[_SHA]], *r[_RAW + 1 :]) if r[_SHA] else r for r in rows]
        if rows:
            yield rows
        if len(rows) < page:
            return
        after = rows[-1][_SEQ]


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


_JSON_NAMES = tuple(c for c in MESSAGE_COLUMNS if c in JSON_COLUMNS and c != "lint")
assert set(_JSON_NAMES) == {"http_headers", "meta"}  # the two `_row_of` parses
# Columns no rule reads (nor `bodies.fill`): left out of the page read, a quarter fewer values to
# fetch and put in each row's dict. `lint` is what the lint writes.
_UNREAD = frozenset(
    {"lint", "session_id", "ts_ns", "parse_status", "error_code", "latency_ns", "sse_event_id"}
)
_READ_NAMES = VALUES + tuple(c for c in MESSAGE_COLUMNS if c not in _UNREAD and c not in VALUES)
_READ_SQL = (
    "SELECT "
    + ", ".join(f"CAST({n} AS TEXT) AS {n}" if n in _JSON_NAMES else n for n in _READ_NAMES)
    + " FROM message WHERE session_id = :sid"
)
_SEQ, _RAW, _SHA = (_READ_NAMES.index(n) for n in ("seq", "raw", "body_sha256"))
_RAW_OF, _SHA_OF = operator.itemgetter(_RAW), operator.itemgetter(_SHA)
_CHANNEL_OF, _META_OF = (operator.itemgetter(_READ_NAMES.index(n)) for n in ("channel", "meta"))
_PLAIN = frozenset({bytes, type(None)})


def lint_rows(
    store: Store, session_id: int, *, page: int = PAGE, progress: Callable[[int], None] | None = None
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
    with reading(store) as conn:
        scan = _scan(conn, session_id)
        while True:
            linter = Linter(scan)
            findings: list[Finding] = []
            learnt = None
            n = 0
            with contextlib.closing(_value_pages(conn, session_id, page)) as pages:
                for rows in pages:
                    if (learnt := _learnt(rows, scan)) is not None:
                        break
                    findings.extend(linter.feed_page(rows, _row_of))  # on a row in a hundred
                    n += len(rows)
                    if progress is not None and len(rows) == page and n > shown:
                        shown = n
                        progress(n)
            if learnt is None:
                findings = linter.finish(findings)
                break
            scan = _scan(conn, session_id, http=learnt[0], legacy_sse=learnt[1])
    yield from findings


_lint_locks: dict[tuple[int, int], list[Any]] = {}  # (engine, session) -> [its lock, its users]
_lint_locks_guard = threading.Lock()


@contextlib.contextmanager
def _one_lint_at_a_time(engine: Store, session_id: int) -> Iterator[None]:
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


def _clear_flags(conn: Conn, session_id: int) -> None:
    """Clear every flag of the session's messages (a lint's, an imported session's): only the rows
    flagged, read from the partial index on `lint IS NOT NULL` (revision 0008) instead of a walk of
    every row (85 ms at 100,000 rows). SQLite is told the index: without statistics it ranked it
    with the session's other indexes and took whichever came first."""
    hint = f" INDEXED BY {_FLAGGED}" if conn.backend == "sqlite" else ""
    conn.execute(
        f"UPDATE message{hint} SET lint = NULL WHERE session_id = :sid AND lint IS NOT NULL",
        {"sid": session_id},
    )


_FLAGGED = "ix_message_session_linted"  # revision 0008's partial index (schema.message's indexes)
_FINDING_COLUMNS = ("seq", "message_id", "severity", "rule", "explanation", "spec_section", "revision")


def lint_session(
    store: Store, session_id: int, *, progress: Callable[[int], None] | None = None
) -> list[Finding]:
    """Check every message of a stored session and store the findings (replacing earlier ones).

    The rows are read a page at a time and each is checked once (memory: one page and what the
    rules remember, not the session); the findings are written in batches."""
    get_session(store, session_id)  # NotFoundError for a bad id
    with reading(store) as conn:
        upto = _max_seq(conn, session_id)
    findings = list(lint_rows(store, session_id, progress=progress))
    by_seq: dict[int, list[dict[str, str]]] = {}
    for f in findings:
        by_seq.setdefault(f.seq, []).append({"rule": f.rule, "severity": f.severity})
    counts = Counter(f.severity for f in findings)
    add_finding = (
        f"INSERT INTO lint_finding (session_id, {', '.join(_FINDING_COLUMNS)}) "
        f"VALUES (:session_id, {', '.join(':' + c for c in _FINDING_COLUMNS)})"
    )
    with writing(store) as conn:
        conn.execute("DELETE FROM lint_finding WHERE session_id = :sid", {"sid": session_id})
        _clear_flags(conn, session_id)
        for start in range(0, len(findings), WRITE_BATCH):
            chunk = findings[start : start + WRITE_BATCH]
            conn.executemany(add_finding, [{"session_id": session_id, **f.to_json()} for f in chunk])
        flagged = list(by_seq.items())
        for start in range(0, len(flagged), WRITE_BATCH):
            conn.executemany(
                "UPDATE message SET lint = :summary WHERE session_id = :sid AND seq = :at_seq",
                [
                    {"sid": session_id, "at_seq": seq, "summary": json_param(summary)}
                    for seq, summary in flagged[start : start + WRITE_BATCH]
                ],
            )
        conn.execute("DELETE FROM lint_run WHERE session_id = :sid", {"sid": session_id})
        conn.execute(
            "INSERT INTO lint_run (session_id, upto_seq, rules_version, linted_ns, errors, warnings, infos) "
            "VALUES (:sid, :upto, :version, :now, :errors, :warnings, :infos)",
            {
                "sid": session_id,
                "upto": upto,
                "version": rules_version(),
                "now": time.time_ns(),
                "errors": counts["error"],
                "warnings": counts["warning"],
                "infos": counts["info"],
            },
        )
    return findings


def findings_of(
    store: Store, session_id: int, *, seq: int | None = None, relint_if_stale: bool = True
) -> list[Finding]:
    """The stored findings of a session (or of its message `seq`), in seq order; lints first when stale."""
    if relint_if_stale and lint_is_stale(store, session_id):
        with _one_lint_at_a_time(store, session_id):
            if lint_is_stale(store, session_id):  # not linted meanwhile by another request
                found = lint_session(store, session_id)
                return [f for f in found if seq is None or f.seq == seq]
    sql = f"SELECT {', '.join(_FINDING_COLUMNS)} FROM lint_finding WHERE session_id = :sid"
    if seq is not None:
        sql += " AND seq = :seq"
    with reading(store) as conn:
        rows = conn.all(sql + " ORDER BY seq, id", {"sid": session_id, "seq": seq})
    return [Finding(*r) for r in rows]
