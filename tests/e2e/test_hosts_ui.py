"""The Hosts view in a real Chromium: the runs list, and one run's two servers merged into one
timeline by time, a lane per server, each server's stderr lines inline where they happened, and a
filter per server (tests/host_runs_data.py records the run through the real recorder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import shot
from tests.host_runs_data import join_run, record_runs


@pytest.fixture(scope="module")
def hosts_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[UiServer, dict[str, int], Path]]:
    db = tmp_path_factory.mktemp("hosts-ui") / "hosts.db"
    ids = record_runs(db)
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server, ids, db
    server.stop()


def test_a_host_runs_servers_share_one_timeline_with_their_stderr(
    page: Page, hosts_ui: tuple[UiServer, dict[str, int], Path]
) -> None:
    ui, ids, db = hosts_ui
    a1, a2 = ids["a1"], ids["a2"]
    page.goto(ui.url("/"))
    page.get_by_test_id("nav-hosts").click()
    runs = page.get_by_test_id("host-runs")
    expect(runs.locator("tbody tr")).to_have_count(3)
    row = page.get_by_test_id(f"host-run-{a1}")
    expect(row).to_contain_text("claude-ai")
    expect(row).to_contain_text("live")
    expect(row).to_contain_text("weather, files")
    row.get_by_role("link", name="claude-ai").click()

    expect(page.get_by_test_id("host-run-name")).to_have_text("claude-ai")
    expect(page.get_by_test_id(f"lane-title-{a1}")).to_have_text("weather")
    expect(page.get_by_test_id(f"lane-title-{a2}")).to_have_text("files")
    timeline = page.get_by_test_id("host-run-timeline")
    cells = timeline.locator("[data-session]")
    expect(cells).to_have_count(5)
    # Merged by time across the two servers, each stderr line where it happened.
    expect(cells).to_have_text(
        [
            "→ request initialize",
            "→ request initialize",
            "weather: starting",
            "files: ready",
            "← response initialize",
        ]
    )
    sessions = [cells.nth(i).get_attribute("data-session") for i in range(5)]
    assert sessions == [str(a1), str(a2), str(a1), str(a2), str(a1)]
    stderr = timeline.get_by_test_id("host-stderr")
    expect(stderr).to_have_count(2)
    # Each server in its own lane (column): the two stderr lines sit in different columns.
    x1 = stderr.nth(0).bounding_box()
    x2 = stderr.nth(1).bounding_box()
    assert x1 is not None and x2 is not None and x2["x"] > x1["x"] + 50
    shot(page, "hosts-run-timeline")

    # The filter per server: hide "weather", only "files" rows stay.
    page.get_by_test_id(f"lane-toggle-{a1}").uncheck()
    expect(cells).to_have_count(2)
    expect(timeline.get_by_test_id("host-stderr")).to_have_text(["files: ready"])
    page.get_by_test_id(f"lane-toggle-{a1}").check()
    expect(cells).to_have_count(5)


def test_a_live_run_shows_a_server_that_joins_it(
    page: Page, hosts_ui: tuple[UiServer, dict[str, int], Path]
) -> None:
    """The run is live (a2 records): a third server the same host starts joins its lanes, and its stderr
    line takes its place by time (before a row the page already shows)."""
    ui, ids, db = hosts_ui
    page.goto(ui.url(f"/hosts/{ids['a1']}"))
    cells = page.get_by_test_id("host-run-timeline").locator("[data-session]")
    expect(cells).to_have_count(5)
    sid = join_run(db)
    expect(page.get_by_test_id(f"lane-title-{sid}")).to_have_text("search")
    expect(page.get_by_test_id("host-run-timeline").get_by_test_id("host-stderr")).to_have_text(
        ["weather: starting", "files: ready", "search: joined"]
    )
