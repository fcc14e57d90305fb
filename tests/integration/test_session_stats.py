"""`inspector.store.stats` agrees with the recorded rows (issue #39): per method and per tool /
prompt / resource name, count, errors (error responses and `isError` results), nearest-rank
latencies over the answered calls (unanswered requests counted without one) and bytes, on stdio and
HTTP (SSE and JSON) sessions, a session whose bodies are stored out of line, SQLite and PostgreSQL.

The expected numbers are computed here from the rows as read back (`iter_messages`, whole bodies),
in Python: not the statement under test, and not hard-coded."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.share.importer import import_jsonl
from inspector.store import iter_messages, open_engine
from inspector.store.stats import NAMED, estimate_tokens, session_stats
from tests.sessions import lines, load

SESSIONS = [
    "demo",
    "demo-http-proxy",
    "conversations_http",
    "exiting_and_null_id_error",
    "faults_wrap_everything",
]


def _nearest_rank(values: list[int], p: int) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[math.ceil(p / 100 * len(ordered)) - 1] / 1e6, 3)


def expected(db: Path | str, session_id: int) -> list[dict[str, Any]]:
    """The numbers, from the rows."""
    engine = open_engine(db)
    try:
        rows = list(iter_messages(engine, session_id))
    finally:
        engine.dispose()
    answers = {m.answers_seq: m for m in rows if m.kind in ("response", "error") and m.answers_seq}
    groups: dict[tuple[str, str | None], list[tuple[Any, Any]]] = defaultdict(list)
    for m in rows:
        if m.kind not in ("request", "notification") or m.method is None:
            continue
        answer = answers.get(m.seq) if m.kind == "request" else None
        groups[(m.method, None)].append((m, answer))
        if m.method in NAMED:
            try:
                name = json.loads(m.body)["params"][NAMED[m.method]]
            except (ValueError, KeyError, TypeError):
                name = None
            if isinstance(name, str):
                groups[(m.method, name)].append((m, answer))
    out = []
    for (method, name), calls in groups.items():
        latencies = [a.latency_ns for _, a in calls if a is not None and a.latency_ns is not None]
        errors = 0
        for q, a in calls:
            if a is None:
                continue
            if a.kind == "error":
                errors += 1
            elif q.method == "tools/call":
                result = json.loads(a.body).get("result")
                errors += int(isinstance(result, dict) and result.get("isError") is True)
        bytes_in = sum(q.size for q, _ in calls)
        bytes_out = sum(a.size for _, a in calls if a is not None)
        out.append(
            {
                "method": method,
                "name": name,
                "count": len(calls),
                "errors": errors,
                "p50_ms": _nearest_rank(latencies, 50),
                "p95_ms": _nearest_rank(latencies, 95),
                "max_ms": round(max(latencies) / 1e6, 3) if latencies else None,
                "bytes": bytes_in + bytes_out,
                "bytes_in": bytes_in,
                "bytes_out": bytes_out,
            }
        )
    return sorted(out, key=lambda r: (r["method"], r["name"] is not None, r["name"] or ""))


def _db(store: Path | str) -> Any:
    from inspector.store.opening import open_db

    return open_db(store, create=False)


@pytest.mark.parametrize("file", SESSIONS)
def test_stats_agree_with_the_recorded_rows(any_made_store: Path | str, file: str) -> None:
    sid = load(any_made_store, file)
    db = _db(any_made_store)
    try:
        found = session_stats(db, sid)
    finally:
        db.dispose()
    want = expected(any_made_store, sid)
    assert found["methods"] == want
    assert found["methods"], file


def test_the_sessions_cover_errors_is_error_unanswered_requests_and_names(tmp_path: Path) -> None:
    # what the test above claims to cover is in its data
    db = tmp_path / "rec.db"
    seen: dict[str, int] = defaultdict(int)
    for file in SESSIONS:
        sid = load(db, file)
        store = _db(db)
        try:
            methods = session_stats(store, sid)["methods"]
        finally:
            store.dispose()
        for row in methods:
            seen["errors"] += row["errors"]
            seen["named"] += row["name"] is not None
            seen["unanswered"] += row["p50_ms"] is None and not row["method"].startswith("notifications/")
    demo = {(r["method"], r["name"]): r for r in expected(db, 1)}
    assert demo[("tools/call", "fail")]["errors"] == 1  # an isError result
    assert demo[("resources/read", "demo://notes/does-not-exist")]["errors"] == 1  # an error response
    assert seen["unanswered"] >= 1 and seen["named"] >= 10


def _message(seq: int, direction: str, kind: str, method: str, raw: str, **more: Any) -> bytes:
    row = {
        "answers_seq": None,
        "channel": "stdin" if direction == "c2s" else "stdout",
        "direction": direction,
        "error_code": None,
        "http_headers": None,
        "http_method": None,
        "http_path": None,
        "http_status": None,
        "kind": kind,
        "latency_ns": None,
        "lint": None,
        "meta": None,
        "method": method,
        "parse_status": "ok",
        "raw": raw,
        "rpc_id": None,
        "seq": seq,
        "session": 1,
        "size": len(raw.encode()),
        "sse_event_id": None,
        "ts_ns": 1_795_974_646_083_826_369 + seq,
        "type": "message",
        **more,
    }
    return orjson.dumps(row, option=orjson.OPT_SORT_KEYS)


def test_names_and_is_error_of_bodies_stored_out_of_line(any_made_store: Path | str) -> None:
    # bodies above 4 KiB keep only their head in `raw` (store.bodies): the name and isError are past it
    pad = "x" * 6000
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"arguments": {"t": pad}, "name": "big"},
    }
    result = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"content": [{"type": "text", "text": pad}], "isError": True},
    }
    small = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "big"}}
    session = lines("demo")[:2]  # the header and the demo's session record
    rows = [
        _message(1, "c2s", "request", "tools/call", json.dumps(call), rpc_id="1"),
        _message(
            2,
            "s2c",
            "response",
            "tools/call",
            json.dumps(result),
            rpc_id="1",
            answers_seq=1,
            latency_ns=7_000_000,
        ),
        _message(3, "c2s", "request", "tools/call", json.dumps(small), rpc_id="2"),  # never answered
    ]
    record = orjson.loads(session[1])
    record["message_count"] = 3
    engine = open_engine(any_made_store)
    try:
        sid = import_jsonl(engine, [session[0], orjson.dumps(record), *rows], source="test").session_ids[0]
        stored = engine.raw_connection()
        try:
            cur = stored.cursor()
            cur.execute(f"SELECT count(*) FROM message WHERE body_sha256 IS NOT NULL AND session_id = {sid}")
            assert cur.fetchone()[0] == 2  # out of line indeed
        finally:
            stored.close()
    finally:
        engine.dispose()
    db = _db(any_made_store)
    try:
        found = session_stats(db, sid)["methods"]
    finally:
        db.dispose()
    assert found == expected(any_made_store, sid)
    assert [(r["name"], r["count"], r["errors"], r["p50_ms"]) for r in found] == [
        (None, 2, 1, 7.0),
        ("big", 2, 1, 7.0),
    ]


def test_tools_list_sizes_each_tool_and_estimates_tokens(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    sid = load(db, "demo")
    engine = open_engine(db)
    try:
        listed = [m for m in iter_messages(engine, sid) if m.method == "tools/list" and m.kind == "response"]
    finally:
        engine.dispose()
    tools = json.loads(listed[-1].body)["result"]["tools"]
    store = _db(db)
    try:
        found = session_stats(store, sid)["tools_list"]
    finally:
        store.dispose()
    assert found["results"] == [{"seq": m.seq, "bytes": m.size, "tools": len(tools)} for m in listed]
    assert [t["name"] for t in found["tools"]] == [t["name"] for t in tools]
    for tool, size in zip(tools, found["tools"], strict=True):
        compact = len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False).encode())
        assert size["bytes"] == compact and size["tokens"] == -(-compact // 4)
        assert size["description_bytes"] == len(tool["description"].encode())
    assert found["bytes"] == sum(t["bytes"] for t in found["tools"])
    assert found["tokens"] == estimate_tokens(found["bytes"])


def test_the_table_fits_80_columns_and_keeps_recorded_names_terminal_safe(tmp_path: Path) -> None:
    from tests.cli_in_process import run

    hostile = "\x1b[2J\x1b]0;owned\x07" + "a-very-long-tool-name-" * 4
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": hostile}}
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": True}}
    session = lines("demo")[:2]
    record = orjson.loads(session[1])
    record["message_count"] = 2
    rows = [
        _message(1, "c2s", "request", "tools/call", json.dumps(call) + "\n", rpc_id="1"),
        _message(2, "s2c", "response", "tools/call", json.dumps(answer) + "\n", rpc_id="1", answers_seq=1, latency_ns=3_500_000),
    ]  # fmt: skip
    db = tmp_path / "rec.db"
    engine = open_engine(db)
    try:
        sid = import_jsonl(engine, [session[0], orjson.dumps(record), *rows], source="test").session_ids[0]
    finally:
        engine.dispose()
    load(db, "demo")
    env = {"MCP_INSPECTOR_DB": str(db), "COLUMNS": "200"}
    for ref in (str(sid), "last"):
        printed = run("stats", ref, env=env)
        assert printed.returncode == 0, printed.stderr
        assert all(len(line) <= 80 for line in printed.stdout.splitlines()), printed.stdout
        assert "\x1b" not in printed.stdout and "\x07" not in printed.stdout
    printed = run("stats", str(sid), env=env)
    assert printed.stdout.splitlines()[3].split()[1:] == [
        "1",
        "1",
        "3.5",
        "3.5",
        "3.5",
        str(sum(len(r) for r in [json.dumps(call) + "\n", json.dumps(answer) + "\n"])),
    ]
    assert "\\x1b" in printed.stdout or "\\u001b" in printed.stdout  # shown, not obeyed
    as_json = run("stats", str(sid), "--json", env=env)
    assert "\x1b" not in as_json.stdout
    assert json.loads(as_json.stdout)["methods"][1]["name"] == hostile
    missing = run("stats", "99", env=env)
    assert (
        missing.returncode == 2
        and "no session with id 99" in missing.stderr
        and "Traceback" not in missing.stderr
    )


def _record(store: Path | str, kind: str, feeds: list[tuple[int, str, str, bytes]]) -> int:
    """A session framed and paired by the recorder's own `MessageBuilder`: (ms, direction, channel,
    bytes) fed in order (an `sse` feed is one event, its data found by the SSE framer)."""
    from inspector.capture import MessageBuilder
    from inspector.capture.sessions import create_session
    from inspector.protocol.sse import stored_body
    from inspector.store import SessionWriter

    engine = open_engine(store)
    try:
        sid = create_session(engine, kind=kind, target=["server"], name=kind)
        builder = MessageBuilder(sid)
        rows = []
        for ms, direction, channel, data in feeds:
            ts = 1_795_974_646_000_000_000 + ms * 1_000_000
            if channel == "sse":
                rows.append(builder.message(ts, direction, "sse", data, body=stored_body("sse", data)))  # type: ignore[arg-type]
            elif channel == "http-request":
                rows.append(builder.message(ts, direction, "http-request", data))  # type: ignore[arg-type]
            else:
                rows += builder.feed(ts, direction, channel, data)  # type: ignore[arg-type]
        writer = SessionWriter(engine, sid)
        writer.on_batch(rows, builder.facts.snapshot())
        writer.on_end(0, "test", builder.facts.snapshot())
        return sid
    finally:
        engine.dispose()


def _stats_of(store: Path | str, sid: int) -> list[dict[str, Any]]:
    db = _db(store)
    try:
        return list(session_stats(db, sid)["methods"])
    finally:
        db.dispose()


def test_sse_events_whose_data_spans_lines_or_is_followed_by_fields(any_made_store: Path | str) -> None:
    # An event's data over several `data:` lines (pretty-printed JSON), and one data line followed by
    # other fields (`id:`, `retry:`): the name and isError are the event's data's, as the SSE framer
    # reads it; a server's request in such an event is named too.
    call = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s"}}'
    failed = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[],"isError":true}}'
    feeds = [
        (0, "c2s", "http-request", call % (1, b"spread")),
        (4, "s2c", "sse", b'event: message\r\ndata: {"jsonrpc":"2.0","id":1,\r\ndata:  "result":{"content":[],\r\ndata: "isError":true}}\r\n\r\n'),
        (5, "c2s", "http-request", call % (2, b"fields")),
        (7, "s2c", "sse", b"data: " + failed % 2 + b"\nid: 7\nretry: 100\n\n"),
        (8, "c2s", "http-request", call % (3, b"fields")),
        (9, "s2c", "sse", b"id: 8\nevent: message\ndata: " + (failed % 3).replace(b"true", b"false") + b"\n\n"),
        (10, "s2c", "sse", b'event: message\ndata: {"jsonrpc":"2.0","id":"s1","method":"tools/call",\ndata: "params":{"name":"asked-back"}}\n\n'),
    ]  # fmt: skip
    sid = _record(any_made_store, "http-proxy", feeds)
    found = _stats_of(any_made_store, sid)
    assert found == expected(any_made_store, sid)
    assert [(r["name"], r["count"], r["errors"], r["max_ms"]) for r in found] == [
        (None, 4, 2, 4.0),
        ("asked-back", 1, 0, None),
        ("fields", 2, 1, 2.0),
        ("spread", 1, 1, 4.0),
    ]


def test_batches_are_split_into_their_items(any_made_store: Path | str) -> None:
    # A batch of two calls and a notification answered by a batch (in another order); a single call
    # answered inside a batch beside a progress notification; a batch of one ping answered by a single
    # response. Each item counts as a message of its own, its bytes its compact JSON's.
    a = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}'
    b = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}'
    note = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
    b_failed = b'{"jsonrpc":"2.0","id":2,"result":{"content":[],"isError":true}}'
    a_ok = b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
    single = b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a"}}\n'
    progress = (
        b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}'
    )
    error = b'{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"no"}}'
    ping = b'{"jsonrpc":"2.0","id":4,"method":"ping"}'
    pong = b'{"jsonrpc":"2.0","id":4,"result":{}}\n'
    feeds = [
        (0, "c2s", "stdin", b"[" + b",".join([a, b, note]) + b"]\n"),
        (2, "s2c", "stdout", b"[" + b_failed + b"," + a_ok + b"]\n"),
        (3, "c2s", "stdin", single),
        (8, "s2c", "stdout", b"[" + progress + b"," + error + b"]\n"),
        (9, "c2s", "stdin", b"[" + ping + b"]\n"),
        (10, "s2c", "stdout", pong),
    ]
    sid = _record(any_made_store, "stdio-wrap", feeds)
    n = len
    want = [
        ("notifications/initialized", None, 1, 0, None, None, None, n(note), 0),
        ("notifications/progress", None, 1, 0, None, None, None, n(progress), 0),
        ("ping", None, 1, 0, 1.0, 1.0, 1.0, n(ping), n(pong)),
        ("tools/call", None, 3, 2, 2.0, 5.0, 5.0, n(a) + n(b) + n(single), n(b_failed) + n(a_ok) + n(error)),
        ("tools/call", "a", 2, 1, 2.0, 5.0, 5.0, n(a) + n(single), n(a_ok) + n(error)),
        ("tools/call", "b", 1, 1, 2.0, 2.0, 2.0, n(b), n(b_failed)),
    ]
    found = _stats_of(any_made_store, sid)
    keys = ("method", "name", "count", "errors", "p50_ms", "p95_ms", "max_ms", "bytes_in", "bytes_out")
    assert [tuple(r[k] for k in keys) for r in found] == want
