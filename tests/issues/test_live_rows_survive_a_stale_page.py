"""Live rows that arrive while a page of the timeline is being fetched are not lost to its older answer.

Found as a flaky e2e test (`test_a_wrap_started_elsewhere_appears_live`: the header said 6
messages, the timeline showed rows 1-4 and placeholders for good). The timeline asks for a page
when it is short of the total (a live session update announced more rows before the rows
themselves arrived). If the live rows came in while that request was out, its answer (read
from the database a moment earlier) replaced the page with fewer rows, and the page was marked
as fetched at the new total, so it was never asked for again.

Here the browser's live feed and the page request are held and released in that order (a mock
websocket and a held route, fed with the UI server's own answers), so the race happens every
time.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Route, WebSocketRoute, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.conftest import SCRIPTED
from tests.shim_process import ShimProcess
from tests.warm_peers import warm_wrap_argv


@pytest.fixture
def ui(tmp_path: Path) -> Iterator[UiServer]:
    db = tmp_path / "rec.db"
    shim = ShimProcess(warm_wrap_argv(db, *SCRIPTED, extra=("--name", "six rows")))
    for i in range(1, 4):
        shim.request(i, "tools/call", {"name": f"live-{i}"})
        shim.read_line()
    shim.close_stdin()
    assert shim.wait() == 0
    server = UiServer(open_engine(db), port=0).start()
    yield server
    server.stop()


def _wait_for(page: Page, condition: Callable[[], bool], timeout_ms: int = 20_000) -> None:
    for _ in range(timeout_ms // 50):
        if condition():
            return
        page.wait_for_timeout(50)  # lets Playwright dispatch the route and websocket handlers
    raise AssertionError("the page never made the expected request")


def _with_rows(body: dict[str, Any], rows: list[dict[str, Any]], total: int | None) -> str:
    return json.dumps({**body, "items": rows, "total": total, "next_cursor": None})


def test_live_rows_are_kept_when_an_older_page_answer_arrives_after_them(page: Page, ui: UiServer) -> None:
    sockets: list[WebSocketRoute] = []
    held: list[Route] = []
    page.route_web_socket(
        "**/api/live", lambda ws: sockets.append(ws)
    )  # the page's live feed is ours to drive
    page.route(
        "**/api/sessions/1/messages?*", lambda route: held.append(route)
    )  # page requests wait until released

    page.goto(ui.url("/sessions/1"))
    _wait_for(page, lambda: len(held) == 1)  # the first page, with the total
    first = held.pop()
    real = first.fetch().json()
    rows = real["items"]
    assert [r["seq"] for r in rows] == [1, 2, 3, 4, 5, 6]
    # The database as it was when only the first request had been answered.
    first.fulfill(body=_with_rows(real, rows[:2], 2), content_type="application/json")
    expect(page.locator("[data-testid=row][data-seq='2']")).to_contain_text("tools/call")
    _wait_for(page, lambda: len(sockets) == 1)
    live = sockets[0]

    # A session update says 4 before those rows arrive: the timeline asks for the page again...
    session = {"id": 1, "message_count": 4, "status": "recording"}
    live.send(json.dumps({"type": "session_updated", "session": session}))
    _wait_for(page, lambda: len(held) == 1)
    refetch = held.pop()
    # ...and while that request is out, rows 3 to 6 arrive live.
    live.send(json.dumps({"type": "messages", "session_id": 1, "items": rows[2:4]}))
    live.send(json.dumps({"type": "messages", "session_id": 1, "items": rows[4:6]}))
    expect(page.locator("[data-testid=row][data-seq='6']")).to_contain_text("tools/call")
    # The page's answer, read from the database before rows 5 and 6 were written, comes last.
    refetch.fulfill(body=_with_rows(refetch.fetch().json(), rows[:4], None), content_type="application/json")
    page.unroute("**/api/sessions/1/messages?*")
    page.wait_for_timeout(300)
    for seq in range(1, 7):
        expect(page.locator(f"[data-testid=row][data-seq='{seq}']")).to_contain_text(
            "tools/call", timeout=5_000
        )
