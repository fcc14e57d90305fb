"""Rows written in multi-row INSERT groups (1024, 512, ... 1 rows) come back column for column."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, StoreWriter, open_engine
from inspector.store.models import ROW_COLUMNS

_JSON = {"meta", "http_headers", "lint"}


def _rows(session_id: int, count: int) -> list[dict[str, Any]]:
    """A mix of shapes: requests, answers, bad bytes, stderr, HTTP rows with headers and meta."""
    builder = MessageBuilder(session_id)
    rows: list[dict[str, Any]] = []
    for i in range(1, count + 1):
        if i % 7 == 0:
            rows += builder.feed(i, "s2c", "stderr", b"log line \xff %d\n" % i)
        elif i % 5 == 0:
            rows.append(
                builder.message(
                    i,
                    "c2s",
                    "http-request",
                    b'{"jsonrpc":"2.0","id":%d,"method":"tools/list"}' % i,
                    http_method="POST",
                    http_path="/mcp",
                    http_headers=[["content-type", "application/json"]],
                    meta={"exchange": i},
                )
            )
        elif i % 2:
            rows += builder.feed(i, "c2s", "stdin", b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i)
        else:
            rows += builder.feed(i, "s2c", "stdout", b'{"jsonrpc":"2.0","id":%d,"result":{}}\r\n' % (i - 1))
    return rows


def _stored(db: Path, session_id: int) -> list[dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        cur = conn.execute(
            f"SELECT {', '.join(ROW_COLUMNS)} FROM message WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        return [
            {c: (orjson.loads(r[c]) if c in _JSON and r[c] is not None else r[c]) for c in ROW_COLUMNS}
            for r in cur
        ]


@pytest.mark.parametrize("count", [1, 1023, 1024, 1025, 3001])
def test_every_row_and_column_survives_the_grouping(tmp_path: Path, count: int) -> None:
    db = tmp_path / "groups.db"
    engine = open_engine(db)
    try:
        sid = create_session(engine, kind="stdio-wrap", target=["x"])
        rows = _rows(sid, count)
        writer = SessionWriter(engine, sid)
        writer.on_batch(rows, None)
        writer.on_end(0, "done")
        expected = [{c: row[c] for c in ROW_COLUMNS} for row in rows]
        assert _stored(db, sid) == expected
    finally:
        engine.dispose()


def test_a_failing_group_rolls_the_whole_batch_back(tmp_path: Path) -> None:
    """A duplicate seq in the last group: nothing of the batch stays, the next batch still goes in."""
    db = tmp_path / "groups.db"
    engine = open_engine(db)
    try:
        sid = create_session(engine, kind="stdio-wrap", target=["x"])
        rows = _rows(sid, 1500)
        writer = StoreWriter(engine)
        bad = [*rows, dict(rows[0])]
        with pytest.raises(Exception, match="UNIQUE"):
            writer.on_batch(bad, {})
        assert _stored(db, sid) == []
        writer.on_batch(rows, {})
        assert len(_stored(db, sid)) == len(rows)
        writer.close()
    finally:
        engine.dispose()
