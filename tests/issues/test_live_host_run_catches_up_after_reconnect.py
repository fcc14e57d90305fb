"""Regression (ci23): a live host run's page missed a server that joined the run while the page's
live feed was not connected (before its first connection, or between two). The feed fetches again
what happened while it was away, but the run's page asked only for its known servers' new rows, not
for the run's servers: the new one's `session_created` had gone to nobody, and its lane never came.
Now a (re)connection reloads the run too.

Deterministic: the page's first websocket is held by a route (the page believes it open, no event
reaches it), the server joins, then the route closes that socket; the feed reconnects, to the real
server this time, and the new lane must show."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.host_runs_data import join_run, record_runs


@pytest.fixture
def hosts(tmp_path: Path) -> Iterator[tuple[UiServer, dict[str, int], Path]]:
    db = tmp_path / "hosts.db"
    ids = record_runs(db)
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server, ids, db
    server.stop()


def test_a_server_that_joins_while_the_feed_is_away_gets_its_lane(
    page: Page, hosts: tuple[UiServer, dict[str, int], Path]
) -> None:
    ui, ids, db = hosts
    held: list[WebSocketRoute] = []

    def feed(ws: WebSocketRoute) -> None:
        if not held:
            held.append(ws)  # the first connection: open for the page, nothing behind it
        else:
            ws.connect_to_server()

    page.route_web_socket("**/api/live", feed)
    page.goto(ui.url(f"/hosts/{ids['a1']}"))
    expect(page.get_by_test_id("host-run-timeline").locator("[data-session]")).to_have_count(5)
    for _ in range(200):  # the route's handler runs while Playwright is called: wait in the page
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page opened no live feed"

    sid = join_run(db)

    expect(page.get_by_test_id(f"lane-title-{sid}")).to_have_count(0)  # the feed is away: not yet
    held[0].close()  # the feed drops; it reconnects, to the server this time
    expect(page.get_by_test_id(f"lane-title-{sid}")).to_have_text("search")
    expect(page.get_by_test_id("host-run-timeline").get_by_test_id("host-stderr")).to_have_text(
        ["weather: starting", "files: ready", "search: joined"]
    )
