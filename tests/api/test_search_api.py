"""`GET /api/search` (the API in-process) on both stores: all sessions or one, pages, no result, bad syntax,
a word only in a large (compressed) body, rows arriving after a search, deleted sessions, guard."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, open_engine
from inspector.store.queries import delete_session
from tests.api.conftest import BOTH_BACKENDS, Api, in_process

REQ = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"tool%d"}}\n'
RESP = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"answer %d %s"}]}}\n'
_served = contextmanager(in_process)
LARGE = b'{"jsonrpc":"2.0","id":1,"result":{"text":"' + b"filler text " * 1000 + b'kumquat"}}\n'


def search_session(db: Any, name: str, pairs: int, *, rare_at: int = 0, large: bool = False) -> int:
    """A finished session of `pairs` request/response pairs; the response of pair `rare_at` says zanzibar."""
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["x"], name=name)
    builder = MessageBuilder(sid)
    rows: list[Any] = []
    for i in range(1, pairs + 1):
        rows += builder.feed(i * 1000, "c2s", "stdin", REQ % (i, i % 5))
        rows += builder.feed(
            i * 1000 + 10, "s2c", "stdout", RESP % (i, i, b"zanzibar" if i == rare_at else b"x")
        )
    if large:
        rows += builder.feed(10**9, "s2c", "stdout", LARGE)
    writer = SessionWriter(engine, sid)
    writer.on_batch(rows[: len(rows) // 2])
    writer.on_batch(rows[len(rows) // 2 :])
    writer.on_end(0, "done")
    engine.dispose()
    return sid


def _all(api: Api, **params: Any) -> list[dict[str, Any]]:
    """Every hit, following next_cursor."""
    hits: list[dict[str, Any]] = []
    cursor = None
    while True:
        page: Any = api.json("/api/search", **params, **({"cursor": cursor} if cursor else {}))
        hits += page["hits"]
        cursor = page["next_cursor"]
        if cursor is None:
            return hits


@BOTH_BACKENDS  # full-text search is the store's own (SQLite FTS5, PostgreSQL text search)
def test_search_all_sessions_or_one_paged_with_snippets(blank_store: Any) -> None:
    first = search_session(blank_store, "alpha", 150, rare_at=7, large=True)
    second = search_session(blank_store, "bravo", 100, rare_at=99)
    with _served(blank_store) as api:
        page: Any = api.json("/api/search", q="zanzibar")
        assert [(h["session_id"], h["session_name"], h["seq"]) for h in page["hits"]] == [
            (first, "alpha", 14),
            (second, "bravo", 198),
        ]
        assert page["total"] == 2 and page["total_exact"] and page["next_cursor"] is None
        hit = page["hits"][0]
        assert hit["direction"] == "s2c" and hit["kind"] == "response" and hit["channel"] == "stdout"
        start, end = hit["marks"][0]
        assert hit["snippet"][start:end].lower() == "zanzibar" and len(hit["snippet"]) < 200
        # One session.
        only: Any = api.json("/api/search", q="zanzibar", session_id=second)
        assert [h["seq"] for h in only["hits"]] == [198] and only["session_id"] == second
        # Pages: every response of both sessions once, in id order, whatever the page size.
        hits = _all(api, q="answer", limit=37)
        assert len(hits) == 250 and [h["id"] for h in hits] == sorted({h["id"] for h in hits})
        assert {h["session_id"] for h in hits} == {first, second}
        page = api.json("/api/search", q="answer", limit=37)
        assert page["total"] == 250 and page["total_exact"] and len(page["hits"]) == 37
        assert [h["seq"] for h in _all(api, q="answer", session_id=first, limit=40)] == list(range(2, 301, 2))
        # Two words, both needed.
        assert [h["seq"] for h in api.json("/api/search", q="answer 7 zanzibar")["hits"]] == [14]  # type: ignore[index]
        # No result.
        none: Any = api.json("/api/search", q="nothing-like-this")
        assert none == {
            "query": "nothing-like-this",
            "session_id": None,
            "hits": [],
            "next_cursor": None,
            "total": 0,
            "total_exact": True,
        }
        # A word only past the stored head of a large, compressed body.
        big: Any = api.json("/api/search", q="kumquat")
        assert [(h["session_id"], h["seq"]) for h in big["hits"]] == [(first, 301)]
        assert "kumquat" in big["hits"][0]["snippet"]


@BOTH_BACKENDS  # full-text search is the store's own (SQLite FTS5, PostgreSQL text search)
def test_bad_input_is_a_clear_4xx_never_a_5xx(blank_store: Any, store_backend: str) -> None:
    sid = search_session(blank_store, "alpha", 5)
    with _served(blank_store) as api:
        bad = api.get("/api/search", q="(unclosed AND", syntax="true")
        if store_backend == "sqlite":
            assert bad.status_code == 400 and "invalid search" in bad.json()["detail"], bad.text
        else:  # websearch_to_tsquery reads any text
            assert bad.status_code == 200, bad.text
        assert api.get("/api/search", q='"answer" AND', syntax="true").status_code in (200, 400)
        ok: Any = api.json("/api/search", q="answer OR nothing", syntax="true")
        assert len(ok["hits"]) == 5
        # Plain words: any text is valid, operators included, read literally.
        assert api.get("/api/search", q='(unclosed AND "').status_code == 200
        assert api.get("/api/search", q="answer", cursor="garbage").status_code == 400
        assert api.get("/api/search", q="answer", session_id=sid + 100).status_code == 404
        assert api.get("/api/search").status_code in (400, 422)
        assert api.get("/api/search", q="answer", limit=0).status_code in (400, 422)
        for odd in ("\x00", "é", "*", "NEAR(a b)", "a" * 1000):
            assert api.get("/api/search", q=odd).status_code == 200, odd


@BOTH_BACKENDS  # full-text search is the store's own (SQLite FTS5, PostgreSQL text search)
def test_rows_arriving_after_a_search_are_found_and_deleted_sessions_leave_nothing(
    blank_store: Any, store_backend: str
) -> None:
    keep = search_session(blank_store, "keep", 20, rare_at=3)
    with _served(blank_store) as api:
        assert len(api.json("/api/search", q="zanzibar")["hits"]) == 1  # type: ignore[index]
        later = search_session(blank_store, "later", 20, rare_at=5, large=True)
        if store_backend == "sqlite":  # indexed as written, before any search asked
            with sqlite3.connect(Path(blank_store)) as conn:
                (n,) = conn.execute(
                    "SELECT COUNT(*) FROM message_fts WHERE message_fts MATCH 'zanzibar'"
                ).fetchone()
            assert n == 2
        assert [h["session_id"] for h in api.json("/api/search", q="zanzibar")["hits"]] == [keep, later]  # type: ignore[index]
        assert api.http.delete(f"/api/sessions/{later}").status_code == 204
        for q in ("zanzibar", "kumquat", "answer"):
            hits: Any = api.json("/api/search", q=q)
            assert all(h["session_id"] == keep for h in hits["hits"]), q
        engine = open_engine(blank_store)
        delete_session(engine, keep)
        engine.dispose()
        assert api.json("/api/search", q="answer")["hits"] == []  # type: ignore[index]
    if store_backend == "sqlite":  # nothing left behind in the index itself
        with sqlite3.connect(Path(blank_store)) as conn:
            assert conn.execute("SELECT COUNT(*) FROM message_fts_docsize").fetchone() == (0,)
            for word in ("zanzibar", "kumquat", "answer", "jsonrpc"):
                q = "SELECT COUNT(*) FROM message_fts WHERE message_fts MATCH ?"
                assert conn.execute(q, (word,)).fetchone() == (0,), word
            conn.execute("INSERT INTO message_fts (message_fts) VALUES ('integrity-check')")


def test_the_search_route_is_guarded(blank_store: Any) -> None:
    search_session(blank_store, "alpha", 3, rare_at=1)
    with _served(blank_store) as api:
        url = f"{api.base_url}/api/search"
        with api.bare() as plain:
            assert plain.get(url, params={"q": "zanzibar"}).status_code == 401
            foreign = plain.get(
                url,
                params={"q": "zanzibar"},
                headers={"authorization": f"Bearer {api.token}", "origin": "http://evil.example"},
            )
            assert foreign.status_code == 403 and "Origin" in foreign.json()["detail"]
            rebinding = plain.get(
                url,
                params={"q": "zanzibar"},
                headers={"authorization": f"Bearer {api.token}", "host": "evil.example"},
            )
            assert rebinding.status_code in (400, 403)
        assert len(api.json("/api/search", q="zanzibar")["hits"]) == 1  # type: ignore[index]
