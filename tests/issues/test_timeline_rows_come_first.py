"""Opening a timeline: its rows are the page's first request, the heavy ones wait for them (issue #21).

Found measuring the timeline of a 100,000-message session: the rows were asked for only after
React had rendered, beside /findings (which lints a stale session), /conversations (reads and
parses every row) and /apps (read every tools/call and tools/list exchange, on every open,
uncached: seconds of server time each). Those held the server while the rows waited, and
/findings and /methods were asked twice (once more when the session's own answer arrived).

Here the order of the page's API requests is recorded: the rows page is the first API request,
its answer comes before any of the heavy requests is sent, and each of those is sent once. And
the Apps catalog of a session whose tools declare no view reads no tools/call row, once per size.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import event

from bench.ui_data import generate
from inspector.api import UiServer
from inspector.apps.store import catalog_of
from inspector.store import open_engine

HEAVY = ("/findings", "/conversations", "/apps", "/methods")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rows-first") / "rows.db"
    generate(path, 2_000, name="two thousand")
    return path


@pytest.fixture
def ui(db: Path) -> Iterator[UiServer]:
    server = UiServer(open_engine(db), port=0).start()
    yield server
    server.stop()


def test_the_rows_are_asked_for_first_and_the_heavy_requests_after_them(page: Page, ui: UiServer) -> None:
    events: list[tuple[str, str]] = []
    page.on("request", lambda r: "/api/" in r.url and events.append(("sent", r.url)))
    page.on("requestfinished", lambda r: "/api/" in r.url and events.append(("done", r.url)))
    page.goto(ui.url("/sessions/1"))
    expect(page.locator("[data-testid=row][data-seq='1']")).to_be_visible()
    expect(page.get_by_test_id("method-filter").locator("option", has_text="tools/call")).to_be_attached()
    page.wait_for_load_state("networkidle")
    sent = [url for kind, url in events if kind == "sent"]
    assert "/api/sessions/1/messages?" in sent[0], sent
    rows_done = next(i for i, (kind, url) in enumerate(events) if kind == "done" and "/messages?" in url)
    for path in HEAVY:
        at = [
            i for i, (kind, url) in enumerate(events) if kind == "sent" and url.split("?")[0].endswith(path)
        ]
        assert len(at) == 1, f"{path} asked {len(at)} times: {sent}"
        assert at[0] > rows_done, f"{path} was asked for before the rows had come: {events}"


def test_the_apps_catalog_reads_no_tools_call_when_no_tool_has_a_view(db: Path) -> None:
    engine = open_engine(db)
    statements: list[Any] = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[3]))
    try:
        cat = catalog_of(engine, 1, view_calls_only=True)
        assert cat.view_calls() == [] and cat.calls == []
        assert statements and not any("tools/call" in str(p) for p in statements), statements
        statements.clear()
        assert catalog_of(engine, 1, view_calls_only=True) is cat  # cached: only the size is read
        assert len([p for p in statements if p]) == 1  # (a connection may run a bare PRAGMA)
        # Every other caller (a view, an answer) still gets every tools/call.
        assert len(catalog_of(engine, 1).calls) > 100
    finally:
        engine.dispose()
