"""Issue 21 (lint25): a stored lint learns whether a session has HTTP requests or an `endpoint` event
from the pages it reads, not from a query over the whole session (`lint.stored.lint_rows`): it
assumes neither and starts again from the first row when a page shows one. The findings are the
same as the list path's (`check_rows`) and the rows fed one by one (`Linter.feed`), wherever the
facts come; the only statements that walk the session are the pages themselves."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event

from inspector.lint import check_rows, lint_session
from inspector.lint.check import Linter
from inspector.lint.scan import SessionScan
from inspector.lint.stored import lint_rows
from inspector.store import open_engine
from inspector.store.queries import iter_rows
from tests.lint_recordings import ACCEPT_BOTH, Http, Stdio, request, result, store


def _stdio_start(s: Stdio) -> None:
    """A handshake and two exchanges over stdio: five rows, pages 1..3 of pages of two rows."""
    s.handshake(server={"tools": {}})
    s.send("c2s", request(1, "tools/list"))
    s.send("s2c", result(1, {"tools": []}))


def _http_posts(s: Stdio) -> None:
    """HTTP exchanges in the same session (a stdio-wrap one), the first without an Accept header
    (`http-accept-header`, told only in a session known to be HTTP)."""
    h = Http()
    h.builder, h.rows, h.t = s.builder, s.rows, s.t
    bare = {"content-type": "application/json", "mcp-protocol-version": "2025-11-25"}
    h.post(request(2, "tools/list"), bare, answer=result(2, {"tools": []}))
    h.post(request(3, "tools/list"), {**bare, "accept": ACCEPT_BOTH}, answer=result(3, {"tools": []}))
    s.t = h.t


def _endpoint(s: Stdio) -> None:
    """The legacy HTTP+SSE transport's `endpoint` event (its meta says so)."""
    s.t += 1_000_000
    raw = b"event: endpoint\ndata: /messages?session=1\n\n"
    s.rows.append(s.builder.message(s.t, "s2c", "sse", raw, jsonrpc=False, meta={"event": "endpoint"}))


def _session(kind: str) -> Stdio:
    s = Stdio()
    _stdio_start(s)  # rows 1..5: the facts come from page 3 on (pages of two)
    if kind in ("http", "both"):
        _http_posts(s)
    if kind in ("endpoint", "both"):
        _endpoint(s)
    if kind == "both":
        _http_posts(s)
    s.send("c2s", request(9, "prompts/list"))  # not declared: a finding in every session
    return s


def _full(rows: list[dict[str, Any]]) -> list[Any]:
    linter = Linter(SessionScan.of_rows(rows))
    return linter.finish([f for row in rows for f in linter.feed(row)])


@pytest.mark.parametrize("kind", ["stdio", "http", "endpoint", "both"])
def test_late_facts_give_the_findings_of_the_list_path(tmp_path: Path, kind: str) -> None:
    db = tmp_path / "late.db"
    sid = store(db, _session(kind), name=kind)
    engine = open_engine(db)
    try:
        rows = list(iter_rows(engine, sid))
        whole = check_rows(rows)
        assert whole == _full(rows)
        rules = {f.rule for f in whole}
        assert "server-capability-not-declared" in rules
        # The facts matter: the Accept rule only where HTTP is known and not the legacy transport.
        assert ("http-accept-header" in rules) == (kind == "http")
        assert ("feature-deprecated" in rules) == (kind == "both")
        for page in (1, 2, 3, 1000):
            seen: list[int] = []
            assert list(lint_rows(engine, sid, page=page, progress=seen.append)) == whole, page
            assert seen == sorted(set(seen)), seen  # a restart never takes the count back
            assert all(n <= len(rows) for n in seen)
        assert lint_session(engine, sid) == whole
    finally:
        engine.dispose()


@contextlib.contextmanager
def _statements(engine: Engine) -> Iterator[list[str]]:
    """The SQL the engine's (new) SQLite connections run meanwhile, parameters filled in."""
    seen: list[str] = []

    def trace(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.set_trace_callback(seen.append)

    engine.dispose()
    event.listen(engine, "connect", trace)
    try:
        yield seen
    finally:
        event.remove(engine, "connect", trace)
        engine.dispose()


def _plans(db: Path, statements: list[str]) -> dict[str, list[str]]:
    """Each statement on the `message` table and its query plan's lines."""
    conn = sqlite3.connect(db)
    try:
        return {
            sql: [str(r[-1]) for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}")]
            for sql in statements
            if " message" in sql and sql.lstrip().upper().startswith(("SELECT", "UPDATE"))
        }
    finally:
        conn.close()


def test_only_the_pages_walk_the_session(tmp_path: Path) -> None:
    """Every statement a stdio session's lint runs on its messages is an index lookup or the keyset
    page read (session and seq range); none walks the session by its id alone (the look-ahead's
    `max(case ...)` query over every row did, ~0.1 s of a 100k lint), nor scans the table. The
    cleanup of earlier flags reads only flagged rows (the partial index on `lint IS NOT NULL`)."""
    db = tmp_path / "walk.db"
    sid = store(db, _session("stdio"), name="walk")
    engine = open_engine(db)
    try:
        with _statements(engine) as statements:
            found = list(lint_rows(engine, sid, page=2))
        assert found
        plans = _plans(db, statements)
        assert any("(session_id=? AND seq>?)" in line for lines in plans.values() for line in lines)
        for sql, lines in plans.items():
            for line in lines:
                assert not line.startswith("SCAN message"), (sql, lines)
                assert not line.endswith("(session_id=?)"), (sql, lines)
        with _statements(engine) as statements:
            lint_session(engine, sid)
        (cleanup,) = (s for s in statements if "SET lint = NULL" in s)
        assert "USING INDEX ix_message_session_linted (session_id=?)" in " ".join(
            _plans(db, [cleanup])[cleanup]
        )
    finally:
        engine.dispose()
