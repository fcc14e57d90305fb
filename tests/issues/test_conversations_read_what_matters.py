"""`/conversations` read and parsed every row of a session on its first open (issue #21).

Measured: 4-6 s per 100,000 messages (19 s on the loaded bench machine for 100k), the server held
while the person browsed. Only the client's requests of the methods that can be in a retry pair
(an unanswered request) or a conversation (an `input_required` answer) matter to `derive`: those
methods are found in SQL from the indexed columns and the stored bytes, and only their rows are
read. Here a session of ordinary calls holds a retry pair and a conversation whose
`input_required` lies past the 240-byte head of an out-of-line body; the answer is the same as
`derive` over every row, on SQLite and PostgreSQL, from a small part of the rows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspector.api.routes_conversations import _rows, conversations_of
from inspector.capture.builder import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.protocol.conversations import derive
from inspector.store import bodies, open_engine, schema
from inspector.store.writer import SessionWriter

TS = 1_700_000_000_000_000_000


def _line(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc).encode() + b"\n"


def _session(url: Path | str) -> tuple[Any, int]:
    engine = open_engine(url)
    sid = create_session(engine, kind="stdio-wrap", target=["generated"], name="conversations")
    builder = MessageBuilder(sid)
    rows: list[Any] = []
    ts = TS

    def feed(direction: str, doc: dict[str, Any]) -> None:
        nonlocal ts
        ts += 1_000_000
        channel = "stdin" if direction == "c2s" else "stdout"
        rows.extend(builder.feed(ts, direction, channel, _line(doc)))

    def call(rpc_id: int, method: str, params: dict[str, Any], result: dict[str, Any] | None) -> None:
        feed("c2s", {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params})
        if result is not None:
            feed("s2c", {"jsonrpc": "2.0", "id": rpc_id, "result": result})

    for n in range(1, 1201):
        i = n
        method = ("tools/call", "prompts/get", "tools/list")[i % 3]
        call(n, method, {"name": f"t{i % 5}"}, {"content": [{"type": "text", "text": f"a{i}"}]})
        if i == 1100:  # a read whose answer never came, re-issued with a new id
            call(n + 10_000, "resources/read", {"uri": "file:///a"}, None)
            call(n + 20_000, "resources/read", {"uri": "file:///a"}, {"contents": []})
        if i == 1150:  # a call answered input_required (after a long padding: out of line), then round 2
            ask = {
                "padding": "x" * 6000,
                "resultType": "input_required",
                "inputRequests": {"q": {"method": "elicitation/create"}},
                "requestState": "s1",
            }
            call(n + 30_000, "tools/call", {"name": "deploy"}, ask)
            round2 = {"name": "deploy", "inputResponses": {"q": {"action": "accept"}}, "requestState": "s1"}
            call(n + 40_000, "tools/call", round2, {"resultType": "complete", "content": []})
    writer = SessionWriter(engine, sid)
    writer.on_batch(rows, builder.facts.snapshot())
    writer.on_end(0, "generated", builder.facts.snapshot())
    return engine, sid


def _every_row(engine: Any, sid: int) -> list[dict[str, Any]]:
    table = schema.message
    with engine.connect() as conn:
        rows = [
            dict(r._mapping)
            for r in conn.execute(table.select().where(table.c.session_id == sid).order_by(table.c.seq))
        ]
        bodies.fill(conn, rows)
    return rows


def test_conversations_read_only_the_rows_that_matter(any_store: Path | str) -> None:
    engine, sid = _session(any_store)
    try:
        every = _every_row(engine, sid)
        assert any(r["body_sha256"] for r in every)  # the input_required answer is out of line
        expected = derive(every).to_json()
        assert len(expected["conversations"]) == 1 and len(expected["retries"]) == 1, expected
        got = conversations_of(engine, sid)
        assert got["upto_seq"] == len(every)
        assert {k: v for k, v in got.items() if k != "upto_seq"} == expected
        read = list(_rows(engine, sid, len(every)))
        assert len(read) < len(every) / 10, f"{len(read)} of {len(every)} rows read"
    finally:
        engine.dispose()


def test_a_session_without_conversations_reads_no_rows(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "plain.db")
    sid = create_session(engine, kind="stdio-wrap", target=["generated"], name="plain")
    builder = MessageBuilder(sid)
    rows: list[Any] = []
    for i in range(1, 501):
        rows += builder.feed(TS + i, "c2s", "stdin", _line({"jsonrpc": "2.0", "id": i, "method": "ping"}))
        rows += builder.feed(TS + i, "s2c", "stdout", _line({"jsonrpc": "2.0", "id": i, "result": {}}))
    SessionWriter(engine, sid).on_batch(rows, builder.facts.snapshot())
    try:
        assert list(_rows(engine, sid, 1000)) == []
        assert conversations_of(engine, sid) == {
            "conversations": [],
            "retries": [],
            "by_seq": {},
            "upto_seq": 1000,
        }
    finally:
        engine.dispose()
