"""The recording store against a real SQLite file and a real PostgreSQL database (each test runs on
both: `db_path` is either): schema versions, writer, queries, FTS."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.errors import NotFoundError, SchemaTooNewError
from inspector.store import (
    SCHEMA_VERSION,
    SessionWriter,
    get_session,
    iter_messages,
    list_sessions,
    open_engine,
    pair_of,
    search_messages,
    session_state,
)

REQ = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s"}}\n'
RESP = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}\n'


@pytest.fixture
def db_path(any_store: Path | str) -> Path | str:
    return any_store


def _record(db: Path | str, pairs: list[tuple[str, str]], *, session_name: str | None = None) -> int:
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["server"], name=session_name)
    builder = MessageBuilder(sid)
    writer = SessionWriter(engine, sid)
    rows = []
    for i, (tool, answer) in enumerate(pairs, start=1):
        rows += builder.feed(1000 * i, "c2s", "stdin", REQ % (i, tool.encode()))
        rows += builder.feed(1000 * i + 500, "s2c", "stdout", RESP % (i, answer.encode()))
    writer.on_batch(rows, None)
    writer.on_end(0, "client-eof", builder.facts.snapshot())
    return sid


def test_schema_is_versioned_and_reopens(db_path: Path) -> None:
    engine = open_engine(db_path)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version FROM schema_info")).scalar_one() == SCHEMA_VERSION
    engine.dispose()
    sid = _record(db_path, [("echo", "hi")])
    assert get_session(open_engine(db_path), sid).message_count == 2


def test_newer_schema_is_refused_clearly(db_path: Path) -> None:
    engine = open_engine(db_path)
    with engine.begin() as conn:
        conn.execute(text("UPDATE schema_info SET version = :v"), {"v": SCHEMA_VERSION + 1})
    engine.dispose()
    with pytest.raises(SchemaTooNewError, match="upgrade mcp-inspector"):
        open_engine(db_path)


def test_sessions_newest_first_and_last(db_path: Path) -> None:
    first = _record(db_path, [("a", "1")], session_name="first")
    second = _record(db_path, [("b", "2")], session_name="second")
    engine = open_engine(db_path)
    assert [s.id for s in list_sessions(engine)] == [second, first]
    assert get_session(engine, "last").name == "second"
    assert get_session(engine, str(first)).name == "first"
    with pytest.raises(NotFoundError, match="no session with id 999"):
        get_session(engine, 999)
    with pytest.raises(NotFoundError, match="not a session id"):
        get_session(engine, "latest-ish")


def test_empty_database_has_no_last_session(db_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no recorded sessions"):
        get_session(open_engine(db_path), "last")


def test_messages_page_in_seq_order_and_pair_both_ways(db_path: Path) -> None:
    sid = _record(db_path, [(f"tool{i}", f"answer{i}") for i in range(25)])
    engine = open_engine(db_path)
    rows = list(iter_messages(engine, sid, page=7))
    assert [m.seq for m in rows] == list(range(1, 51))
    assert [m.seq for m in iter_messages(engine, sid, after_seq=45)] == [46, 47, 48, 49, 50]
    assert len(list(iter_messages(engine, sid, limit=10, page=3))) == 10
    request, response = rows[10], rows[11]
    assert request.kind == "request" and response.kind == "response"
    assert response.method == "tools/call" and response.answers_seq == request.seq
    assert pair_of(engine, request).seq == response.seq
    assert pair_of(engine, response).seq == request.seq


def test_raw_bytes_are_kept_exactly_even_when_not_utf8(db_path: Path) -> None:
    engine = open_engine(db_path)
    sid = create_session(engine, kind="stdio-wrap", target=["x"])
    builder = MessageBuilder(sid)
    raw = b"\xff\xfe not utf8 \x00\r\n"
    writer = SessionWriter(engine, sid)
    writer.on_batch(builder.feed(1, "s2c", "stdout", raw), None)
    (m,) = list(iter_messages(engine, sid))
    assert m.raw == raw and m.parse_status == "invalid-utf8" and m.size == len(raw)
    doc = m.to_json()
    assert doc["raw"] is None and doc["raw_base64"]


def test_full_text_search_indexes_new_rows_lazily(db_path: Path) -> None:
    sid = _record(db_path, [("weather", "sunny in Lisbon"), ("echo", "hello")])
    engine = open_engine(db_path)
    found = search_messages(engine, "Lisbon")
    assert [m.kind for m in found] == ["response"] and found[0].session_id == sid
    assert search_messages(engine, "nothing-like-this") == []
    other = _record(db_path, [("weather", "rain in Lisbon")])
    assert {m.session_id for m in search_messages(engine, "Lisbon")} == {sid, other}
    assert [m.session_id for m in search_messages(engine, "Lisbon", session_id=other)] == [other]


def test_session_of_a_dead_recorder_is_interrupted(db_path: Path) -> None:
    engine = open_engine(db_path)
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead_pid = int(proc.stdout)
    sid = create_session(engine, kind="stdio-wrap", target=["x"])
    with engine.begin() as conn:
        conn.execute(text("UPDATE session SET pid = :p WHERE id = :i"), {"p": dead_pid, "i": sid})
    assert session_state(get_session(engine, sid)) == "interrupted"
    live = create_session(engine, kind="stdio-wrap", target=["x"])
    assert get_session(engine, live).pid == os.getpid()
    assert session_state(get_session(engine, live)) == "recording"


def test_search_words_are_literal_and_bad_syntax_is_a_clear_error(db_path: Path) -> None:
    sid = _record(db_path, [("get-sum", 'say \\"hi\\" AND bye')])
    engine = open_engine(db_path)
    assert [m.kind for m in search_messages(engine, "get-sum")] == ["request"]
    assert [m.kind for m in search_messages(engine, 'AND "hi"')] == ["response"]
    assert search_messages(engine, "   ") == []
    if str(db_path).startswith("postgresql"):
        return  # websearch_to_tsquery (PostgreSQL's --syntax) reads any text: nothing is invalid
    from inspector.errors import InspectorError

    with pytest.raises(InspectorError, match="invalid search"):
        search_messages(engine, "(unclosed", session_id=sid, syntax=True)
