"""GET /messages (store/pages.py, issues 21 and 35) gives the rows and totals a filter must give,
worked out here in Python from the session's whole stored rows (`iter_rows`) and its findings, on
both stores: odd rows (a large body, bytes that are not UTF-8, null and set JSON columns), filters
alone and combined, offsets (deep and past the end), backward pages and cursors, and page
boundaries."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, open_engine, schema
from inspector.store.pages import ROW_FIELDS, MessageFilter, count_messages, message_page, message_rows
from inspector.store.queries import iter_rows
from tests.api.conftest import BOTH_BACKENDS, Api, in_process, new_store
from tests.api.recordings import generate_session

BIG = b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"%s"}]}}\n' % (
    b"\xc3\xa9" * 40_000
)


def odd_session(db: Any) -> int:
    """A stdio session with a large body, a line that is not UTF-8, HTTP-ish columns and meta set."""
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["odd"], name="odd rows")
    builder = MessageBuilder(sid)
    t = 1_700_000_000_000_000_000
    rows = builder.feed(t, "c2s", "stdin", b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}\n')
    rows += builder.feed(t + 1, "s2c", "stdout", BIG)
    rows += builder.feed(t + 2, "s2c", "stdout", b"\xff\xfe not utf-8 \x80\n")
    rows += builder.feed(t + 3, "s2c", "stderr", b"a log line\n")
    rows.append(
        builder.message(
            t + 4,
            "c2s",
            "http-request",
            b'{"jsonrpc":"2.0","id":8,"method":"ping"}',
            http_method="POST",
            http_path="/mcp",
            http_headers={"content-type": "application/json"},
            meta={"exchange": 1, "note": "caf\u00e9 \u2603"},
        )
    )
    rows += builder.feed(t + 5, "c2s", "stdin", b"[1, 2\n")  # not JSON: a row with a problem in meta
    writer = SessionWriter(engine, sid)
    writer.on_batch(rows, builder.facts.snapshot())
    writer.on_end(0, "done", builder.facts.snapshot())
    with engine.begin() as conn:  # findings, as `lint` stores them
        for seq, severity in ((2, "warning"), (3, "error"), (6, "error")):
            conn.execute(
                schema.lint_finding.insert().values(
                    session_id=sid, seq=seq, severity=severity, rule="r", explanation="e", spec_section="s"
                )
            )
    engine.dispose()
    return sid


@pytest.fixture(scope="module")
def pages_db(
    request: pytest.FixtureRequest, store_backend: str, tmp_path_factory: pytest.TempPathFactory
) -> Any:
    """Session 1: exactly 1,000 messages; 2: 1,001; 3: the odd rows; findings on every 7th of 2."""
    db = new_store(request, store_backend, tmp_path_factory.mktemp("pages") / "pages.db")
    assert generate_session(db, 1000, name="a thousand") == 1
    assert generate_session(db, 1001, name="a thousand and one") == 2
    assert odd_session(db) == 3
    engine = open_engine(db)
    with engine.begin() as conn:
        for seq in range(7, 1002, 7):
            conn.execute(
                schema.lint_finding.insert().values(
                    session_id=2,
                    seq=seq,
                    severity=("error", "warning", "info")[seq % 3],
                    rule="r",
                    explanation="e",
                    spec_section="s",
                )
            )
    engine.dispose()
    return db


@pytest.fixture(scope="module")
def pages_api(pages_db: Any) -> Iterator[Api]:
    yield from in_process(pages_db)
    for key in [k for k in _MATCHING if k[0] == str(pages_db)]:
        del _MATCHING[key]
    engine = _ENGINES.pop(str(pages_db), None)
    if engine is not None:
        engine.dispose()


def _json(api: Api, url: str, **q: object) -> Any:
    return api.json(url, **q)


def _flt(q: dict[str, Any]) -> MessageFilter:
    as_tuple = lambda v: tuple(v) if isinstance(v, list) else (v,)  # noqa: E731
    return MessageFilter(
        direction=q.get("direction"),
        kinds=as_tuple(q["kind"]) if "kind" in q else (),
        channels=as_tuple(q["channel"]) if "channel" in q else (),
        methods=as_tuple(q["method"]) if "method" in q else (),
        findings=q.get("findings"),
        text=q.get("q"),
        intervened=bool(q.get("intervened")),
    )


_ENGINES: dict[str, Any] = {}
_MATCHING: dict[tuple[str, int, bytes], list[Any]] = {}  # `_matching`'s rows
_TOKEN = re.compile(r"[^\W_]+")  # FTS5 unicode61 / the PostgreSQL text: runs of letters and digits


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _has_words(body: bytes, words: str) -> bool:
    """Every word of `words` in the body, each as its run of tokens (a quoted FTS5 phrase)."""
    tokens = _tokens(body.decode("utf-8", "replace"))
    for word in words.split():
        phrase = _tokens(word)
        if not any(tokens[i : i + len(phrase)] == phrase for i in range(len(tokens) - len(phrase) + 1)):
            return False
    return True


def _matches(row: Any, flt: MessageFilter, severities: dict[int, set[str]]) -> bool:
    meta = row["meta"] if isinstance(row["meta"], dict) else {}
    wanted = {"any": None, "warning": {"error", "warning"}, "error": {"error"}}
    return (
        (not flt.direction or row["direction"] == flt.direction)
        and (not flt.kinds or row["kind"] in flt.kinds)
        and (not flt.channels or row["channel"] in flt.channels)
        and (
            not flt.methods
            or any(
                (row["method"] or "").startswith(m[:-1]) if m.endswith("*") else row["method"] == m
                for m in flt.methods
            )
        )
        and (
            not flt.findings
            or bool(severities.get(row["seq"]))
            and (wanted[flt.findings] is None or bool(severities[row["seq"]] & wanted[flt.findings]))
        )
        and (not flt.intervened or any(isinstance(meta.get(k), dict) for k in ("intercept", "injected")))
        and (not flt.text or _has_words(bytes(row["raw"]), flt.text))
    )


def _matching(api: Api, sid: int, q: dict[str, Any]) -> list[Any]:
    """The session's whole stored rows that the filter matches, in order, worked out in Python once
    a database, session and filter (the module's databases are read-only; `pages_api` forgets them)."""
    key = (str(api.db), sid, orjson.dumps(q, option=orjson.OPT_SORT_KEYS))
    if key in _MATCHING:
        return _MATCHING[key]
    engine = _ENGINES.get(str(api.db)) or _ENGINES.setdefault(str(api.db), open_engine(api.db))
    flt = _flt(q)
    severities: dict[int, set[str]] = {}
    f = schema.lint_finding
    with engine.connect() as conn:
        for finding in conn.execute(f.select().where(f.c.session_id == sid)):
            severities.setdefault(finding.seq, set()).add(finding.severity)
    every = [r for r in iter_rows(engine, sid) if _matches(r, flt, severities)]
    return _MATCHING.setdefault(key, every)


def _expected(api: Api, sid: int, q: dict[str, Any], **page: Any) -> tuple[list[Any], int]:
    """The page (as JSON values) and the filter's total, from the whole session filtered in Python."""
    every = _matching(api, sid, q)
    rows = [r for r in every if page.get("after_seq") is None or r["seq"] > page["after_seq"]]
    rows = [r for r in rows if page.get("before_seq") is None or r["seq"] < page["before_seq"]]
    offset, limit = page.get("offset", 0), page.get("limit", 500)
    if page.get("before_seq") is not None:
        rows = rows[::-1][offset : offset + limit][::-1]
    else:
        rows = rows[offset : offset + limit]
    out = [
        {**{k: r[k] for k in ROW_FIELDS}, "preview": bytes(r["raw"])[:240].decode("utf-8", "replace")}
        for r in rows
    ]
    return orjson.loads(orjson.dumps(out)), len(every)


FILTERS: list[dict[str, Any]] = [
    {},
    {"direction": "s2c"},
    {"kind": "response"},
    {"kind": ["request", "log"]},
    {"channel": "stderr"},
    {"method": "tools/call"},
    {"method": ["tools/*", "prompts/get"]},
    {"method": "tools_*"},  # `_` is no LIKE wildcard here
    {"findings": "any"},
    {"findings": "warning"},
    {"findings": "error"},
    {"direction": "c2s", "kind": "request", "method": "tools/*"},
    {"direction": "s2c", "kind": "response", "findings": "any", "method": ["resources/read", "tools/call"]},
    {"intervened": "true"},  # the SQLAlchemy path, behind the same call
    {"q": "tools"},  # FTS5 text: its total from the session's own range of ids
    {"q": "tools call"},
    {"q": "nowhere-to-be-found"},
    {"q": "tools", "direction": "c2s", "kind": "request", "method": "tools/*"},
    {"q": "tools", "findings": "any"},
]
PAGING: list[dict[str, Any]] = [
    {},
    {"offset": 137},
    {"offset": 600, "limit": 50},
    {"after_seq": 400},
    {"before_seq": 800},
    {"before_seq": 900, "offset": 30, "limit": 40},
    {"after_seq": 100, "before_seq": 300},
    {"offset": 5000},  # past the end
]


# The filters paged every way: one of each kind of WHERE term (store/pages.py `_conditions`), the
# totals' own paths (no filter: the highest seq; text alone: FTS5's count) and terms combined. A
# page's statement is the filter's terms and then the paging's, whatever the filter: the other
# filters are paged forward, backward and at offsets by the small pages (the same statements as
# the large ones), and by the first (the default limit).
PAGED_EVERY_WAY: list[dict[str, Any]] = [
    {},
    {"direction": "s2c"},
    {"kind": ["request", "log"]},
    {"method": ["tools/*", "prompts/get"]},
    {"findings": "warning"},
    {"direction": "c2s", "kind": "request", "method": "tools/*"},
    {"intervened": "true"},
    {"q": "tools"},
    {"q": "tools", "findings": "any"},
]
SMALL_PAGES: list[dict[str, Any]] = [
    {},
    {"offset": 600, "limit": 50},
    {"after_seq": 400, "limit": 60},  # forward
    {"before_seq": 900, "offset": 30, "limit": 40},  # backward
    {"after_seq": 100, "before_seq": 300},
    {"offset": 5000},
]


@BOTH_BACKENDS  # the store's own page queries
@pytest.mark.parametrize("q", FILTERS, ids=lambda q: "&".join(f"{k}={v}" for k, v in q.items()) or "none")
def test_filtered_pages_are_the_rows_the_filter_matches(pages_api: Api, q: dict[str, Any]) -> None:
    for sid in (2, 3):
        for paging in PAGING if q in PAGED_EVERY_WAY else SMALL_PAGES:
            page = _json(pages_api, f"/api/sessions/{sid}/messages", **q, **paging, count="true")
            rows, total = _expected(pages_api, sid, q, **paging)
            assert page["items"] == rows, (sid, paging)
            assert page["total"] == total


@BOTH_BACKENDS  # the store's own page queries
def test_odd_rows_keep_their_values(pages_api: Api) -> None:
    items = _json(pages_api, "/api/sessions/3/messages")["items"]
    assert items == _expected(pages_api, 3, {})[0]
    big, not_utf8 = items[1], items[2]
    assert big["size"] == len(BIG) and big["preview"] == BIG[:240].decode() and "raw" not in big
    assert (
        not_utf8["preview"].startswith("\ufffd\ufffd not utf-8 \ufffd") and not_utf8["parse_status"] != "ok"
    )
    assert items[0]["meta"] is None and items[0]["lint"] is None and items[0]["http_headers"] is None
    assert items[4]["meta"] == {"exchange": 1, "note": "caf\u00e9 \u2603"}
    assert items[4]["http_headers"] == {"content-type": "application/json"}
    assert isinstance(items[5]["meta"], dict) and items[5]["meta"]  # the problem of a line that is not JSON
    assert list(items[0]) == [*ROW_FIELDS, "preview"]  # the keys, in the order they always came


@BOTH_BACKENDS  # the store's own page queries
@pytest.mark.parametrize("sid,size", [(1, 1000), (2, 1001)])
def test_cursor_pages_at_the_boundaries(pages_api: Api, sid: int, size: int) -> None:
    url = f"/api/sessions/{sid}/messages"
    page = _json(pages_api, url, limit=500, count="true")
    assert page["total"] == size and page["prev_cursor"] is None and len(page["items"]) == 500
    seqs, sizes = [], []
    while True:
        seqs += [r["seq"] for r in page["items"]]
        sizes.append(len(page["items"]))
        if page["next_cursor"] is None:
            break
        page = _json(pages_api, url, limit=500, cursor=page["next_cursor"])
    assert seqs == list(range(1, size + 1))
    assert sizes == ([500, 500, 0] if size == 1000 else [500, 500, 1])
    # Backward from the end: the last 500, then the 500 before, then what is left (none or one).
    last = _json(pages_api, url, limit=500, before_seq=size + 1)
    assert [r["seq"] for r in last["items"]] == list(range(size - 499, size + 1))
    assert last["next_cursor"] is not None
    back = _json(pages_api, url, limit=500, cursor=last["prev_cursor"])
    assert [r["seq"] for r in back["items"]] == list(range(size - 999, size - 499))
    if size == 1000:
        assert back["prev_cursor"] is None
    else:
        first = _json(pages_api, url, limit=500, cursor=back["prev_cursor"])
        assert [r["seq"] for r in first["items"]] == [1] and first["prev_cursor"] is None
    # An offset that leaves exactly one row, and offsets past the end.
    assert [r["seq"] for r in _json(pages_api, url, limit=500, offset=size - 1)["items"]] == [size]
    for offset in (size, size + 10_000):
        empty = _json(pages_api, url, limit=500, offset=offset, count="true")
        assert empty == {"items": [], "next_cursor": None, "prev_cursor": None, "total": size}


@BOTH_BACKENDS  # the store's own page queries
def test_a_missing_session_is_a_404(pages_api: Api) -> None:
    for q in ({}, {"direction": "c2s"}, {"q": "tools"}):
        response = pages_api.get("/api/sessions/99/messages", **q)
        assert response.status_code == 404 and "no session with id 99" in response.text


def test_json_text_that_python_wrote_with_nan_reads_as_before(tmp_path: Path) -> None:
    """SQLite only: a JSON column holding Python's `NaN` (not JSON) is parsed, not embedded."""
    db = tmp_path / "nan.db"
    sid = odd_session(db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE message SET lint = ? WHERE seq = 1", ('{"score": NaN, "n": [Infinity]}',))
    engine = open_engine(db)
    try:
        fast, _ = message_page(engine, sid, MessageFilter())
        slow = message_rows(engine, sid)
        assert orjson.dumps(fast) == orjson.dumps(slow)
        assert orjson.loads(orjson.dumps(fast))[0]["lint"] == {"score": None, "n": [None]}
    finally:
        engine.dispose()


def _interleaved(db: Path) -> tuple[int, int]:
    """SQLite only: two sessions whose ids interleave (A: seq 1-3 at ids 1, 5, 3; B: seq 1-2 at ids
    2, 4). A's first and last seq sit at ids 1 and 3, a range as wide as A has rows, yet A's seq 2
    lies outside it and B's seq 1 inside: the total must not take that range for A's own."""
    a = generate_session(db, 3, name="a")
    b = generate_session(db, 2, name="b")
    remap = {(a, 1): 1, (a, 2): 5, (a, 3): 3, (b, 1): 2, (b, 2): 4}
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE message SET id = id + 1000")
        for (sid, seq), new_id in remap.items():
            conn.execute("UPDATE message SET id = ? WHERE session_id = ? AND seq = ?", (new_id, sid, seq))
        conn.execute("INSERT INTO message_fts (message_fts) VALUES ('delete-all')")
        conn.execute("INSERT INTO message_fts (rowid, body) SELECT id, CAST(raw AS TEXT) FROM message")
    return a, b


def test_the_text_total_is_exact_whatever_the_ids(tmp_path: Path) -> None:
    """The FTS5 total within a session's range of ids (store/pages.py `_owned_ids`) is taken only
    when the range is proven the session's own; interleaved ids get the walk-and-probe count."""
    from inspector.store.pages import _owned_ids

    db = tmp_path / "ids.db"
    a, b = _interleaved(db)
    c = generate_session(db, 40, name="c")  # after both: ids 6..45, its own range
    engine = open_engine(db)
    try:
        with engine.connect() as conn:
            assert _owned_ids(conn, a) is None and _owned_ids(conn, b) is None
            assert _owned_ids(conn, c) == (6, 45)
        for sid in (a, b, c):
            for words in ("jsonrpc", "tools", "tool1", "nowhere"):
                flt = MessageFilter(text=words)
                rows, total = message_page(engine, sid, flt, limit=1000, count=True)
                every = [r for r in message_rows(engine, sid, limit=1000) if words in r["preview"]]
                assert total == count_messages(engine, sid, flt) == len(rows) == len(every), (sid, words)
                assert [r["seq"] for r in rows] == [r["seq"] for r in every]
    finally:
        engine.dispose()
