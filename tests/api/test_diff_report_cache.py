"""Issue 21 (diff24): `/api/diff` keeps the report it computed, so reading it page by page costs one
diff; a session that changed since (more messages, ended) is diffed again. The diffs run are counted
by the cache itself (`DiffReports.computed`, its misses)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.scale_lint import generate_session
from inspector.api.diff_pages import DiffReports
from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, get_session, open_engine
from tests.api.conftest import in_process

_CALL = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"n":%d}}}\n'
_RESULT = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%d"}]}}\n'


def _computed(api: Any) -> int:
    """The diffs the server's report cache ran so far (none before its first `/api/diff`)."""
    app = api.http.app  # the in-process client's app
    while not hasattr(app, "state"):  # the middleware around the API's app
        app = app.app
    reports = getattr(app.state, "diff_reports", None)
    return 0 if reports is None else int(reports.computed)


def _pages(api: Any, **query: object) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page: Any = api.json("/api/diff", **query, **({"cursor": cursor} if cursor else {}))
        out.append(page)
        cursor = page["next_cursor"]
        if cursor is None:
            return out


def test_pages_after_the_first_cost_no_second_diff(blank_store: Any) -> None:
    generate_session(blank_store, 1500, name="a")
    generate_session(blank_store, 1500, name="b", changes=frozenset({30, 70}))
    for api in in_process(blank_store):
        before = _computed(api)
        pages = _pages(api, a=1, b=2, equal="true", limit=100)
        assert len(pages) > 5 and _computed(api) == before + 1
        # The pages are those of one whole report.
        whole: Any = api.json("/api/diff", a=1, b=2, equal="true", limit=5000)
        assert _computed(api) == before + 1
        assert [x for p in pages for x in p["exchanges"]] == whole["exchanges"]
        assert all(p["counts"] == whole["counts"] for p in pages)
        # Other options are another report: one more diff, then its pages are free too.
        differing = _pages(api, a=1, b=2, limit=1)
        assert _computed(api) == before + 2 and len(differing) == 2
        assert [p["exchanges"][0] for p in differing] == [
            x for x in whole["exchanges"] if x["status"] != "equal"
        ]
        api.json("/api/diff", a=2, b=1)
        api.json("/api/diff", a=1, b=2, ignore="result")
        assert _computed(api) == before + 4


def test_a_session_that_changed_is_diffed_again(blank_store: Any) -> None:
    generate_session(blank_store, 300, name="a")
    engine = open_engine(blank_store)
    sid = create_session(engine, kind="stdio-wrap", target=["generated-server"], name="live")
    builder, writer = MessageBuilder(sid), SessionWriter(engine, sid)
    ts = 1_700_000_000_000_000_000

    def calls(first: int, last: int) -> None:
        nonlocal ts
        rows = []
        for i in range(first, last):
            for direction, channel, data in (
                ("c2s", "stdin", _CALL % (i, i)),
                ("s2c", "stdout", _RESULT % (i, i)),
            ):
                ts += 1000
                rows.extend(builder.feed(ts, direction, channel, data))
        writer.on_batch(rows, builder.facts.snapshot())

    calls(1, 20)
    for api in in_process(blank_store):
        before = _computed(api)
        first: Any = api.json("/api/diff", a=1, b=sid)
        api.json("/api/diff", a=1, b=sid)
        assert _computed(api) == before + 1
        calls(20, 40)  # the recording goes on: more messages
        grown: Any = api.json("/api/diff", a=1, b=sid)
        assert _computed(api) == before + 2
        assert sum(grown["counts"].values()) > sum(first["counts"].values())
        writer.on_end(0, "done", builder.facts.snapshot())  # ended: its status changed
        api.json("/api/diff", a=1, b=sid)
        api.json("/api/diff", a=1, b=sid, cursor="1")
        assert _computed(api) == before + 3
    assert get_session(engine, sid).status == "ended"
    engine.dispose()


def test_kept_reports_are_bounded(tmp_path: Path) -> None:
    db = tmp_path / "kept.db"
    for name in ("a", "b", "c"):
        generate_session(db, 200, name=name)
    engine = open_engine(db)
    s = {i: get_session(engine, i) for i in (1, 2, 3)}
    reports = DiffReports(kept=2, held=10_000)

    def page(a: int, b: int, equal: bool = False) -> dict[str, Any]:
        return reports.page(engine, s[a], s[b], [], False, equal=equal, start=0, limit=10)

    page(1, 2), page(1, 3), page(1, 2)
    assert reports.computed == 2
    page(2, 3)  # a third report: the one used least recently (1, 3) goes
    page(1, 2)
    assert reports.computed == 3
    page(1, 3)
    assert reports.computed == 4
    # A report listing more than `held` exchanges is not kept.
    small = DiffReports(kept=2, held=50)
    whole = small.page(engine, s[1], s[2], [], False, equal=True, start=0, limit=None)
    assert len(whole["exchanges"]) > 50
    small.page(engine, s[1], s[2], [], False, equal=True, start=0, limit=None)
    assert reports.computed == 4 and small.computed == 2
    engine.dispose()
