"""`inspector.store.waterfall` agrees with the recorded rows (issue #39 item 3): each request a span
from its row to its answer's, its progress ticks (the recorder's `related_seq`), a server's sampling,
elicitation and roots requests inside the client request they were sent for, and past the limit the
window's slices adding up to the same spans; on stdio and HTTP sessions, SQLite and PostgreSQL.

The expected spans are computed here from the rows as read back (`iter_messages`), in Python."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.store import iter_messages, open_engine
from inspector.store.waterfall import Window, session_waterfall, waterfall
from tests.sessions import load


def expected(db: Path | str, session_id: int) -> list[tuple[Any, ...]]:
    """(seq, answer seq, start, end, method, direction, failed-by-error, progress times) of each request."""
    engine = open_engine(db)
    try:
        rows = list(iter_messages(engine, session_id))
    finally:
        engine.dispose()
    answers = {m.answers_seq: m for m in rows if m.kind in ("response", "error") and m.answers_seq}
    ticks: dict[int, list[int]] = {}
    for m in rows:
        related = (m.meta or {}).get("related_seq")
        if m.method == "notifications/progress" and related is not None:
            ticks.setdefault(related, []).append(m.ts_ns)
    out = []
    for m in rows:
        if m.kind != "request":
            continue
        a = answers.get(m.seq)
        out.append(
            (
                m.seq,
                a.seq if a else None,
                m.ts_ns,
                a.ts_ns if a else None,
                m.method,
                m.direction,
                bool(a and a.kind == "error"),
                ticks.get(m.seq, []),
            )
        )
    return out


def _got(spans: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (
            s["seq"],
            s["answer_seq"],
            s["start_ns"],
            s["end_ns"],
            s["method"],
            s["direction"],
            s["failed"] and s["method"] != "tools/call",  # isError results: stats' tests cover them
            s["progress"],
        )
        for s in spans
    ]


def test_spans_ticks_and_nesting_agree_with_the_rows(any_made_store: Path | str) -> None:
    demo = load(any_made_store, "demo")
    http = load(any_made_store, "conversations_http")
    engine = open_engine(any_made_store)
    try:
        for sid in (demo, http):
            want = expected(any_made_store, sid)
            found = session_waterfall(engine, sid)
            (lane,) = found["lanes"]
            assert lane["buckets"] is None and lane["total"] == len(want)
            got = sorted(lane["spans"], key=lambda s: s["seq"])
            assert _got(got) == [w[:6] + (w[6] and w[4] != "tools/call", w[7]) for w in want]
        spans = {s["seq"]: s for s in session_waterfall(engine, demo)["lanes"][0]["spans"]}
        # The demo's ask_llm, book_table and list_client_roots calls each sent one server request.
        nested = {s["method"]: (spans[s["parent_seq"]]["name"]) for s in spans.values() if s["parent_seq"]}
        assert nested == {
            "sampling/createMessage": "ask_llm",
            "elicitation/create": "book_table",
            "roots/list": "list_client_roots",
        }
        assert len(spans[18]["progress"]) == 3 and spans[18]["name"] == "count_slowly"
        http_spans = session_waterfall(engine, http)["lanes"][0]["spans"]
        assert sum(len(s["progress"]) for s in http_spans) == 3  # on the SSE stream of its request

        # A window: only the spans overlapping it; past the limit, slices that add up to them.
        mid = spans[27]
        inside = session_waterfall(engine, demo, Window(lo=mid["start_ns"], hi=mid["end_ns"]))["lanes"][0]
        assert {s["seq"] for s in inside["spans"]} == {27, 28}
        whole = session_waterfall(engine, demo, Window(limit=5, buckets=7))
        (agg,) = whole["lanes"]
        assert agg["spans"] is None and agg["total"] == len(spans)
        assert sum(agg["buckets"]["count"]) == len(spans) and len(agg["buckets"]["count"]) == 7
        assert sum(agg["buckets"]["errors"]) == sum(s["failed"] for s in spans.values())
        assert max(agg["buckets"]["max_ms"]) == round(
            max(s["end_ns"] - s["start_ns"] for s in spans.values()) / 1e6, 3
        )
        # Two lanes (as a host run's): one each, in the order asked, over the same window.
        both = waterfall(engine, [http, demo], Window(limit=0, buckets=3))
        assert [lane["session_id"] for lane in both["lanes"]] == [http, demo]
        assert all(sum(lane["buckets"]["count"]) == lane["total"] for lane in both["lanes"])
    finally:
        engine.dispose()
