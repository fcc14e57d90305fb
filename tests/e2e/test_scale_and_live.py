"""A 100,000-message session in the browser, and a recording from another process appearing live."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.api.recordings import generate_session
from tests.conftest import SCRIPTED
from tests.e2e.conftest import BIG, shot
from tests.shim_process import ShimProcess
from tests.warm_peers import warm_wrap_argv


@pytest.fixture(scope="module")
def big_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """A UI server on a database of one session (#1) of BIG generated messages."""
    db = tmp_path_factory.mktemp("e2e-big") / "big.db"
    assert generate_session(db, BIG, name="hundred thousand") == 1
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server
    server.stop()


def test_a_100k_session_opens_and_scrolls_to_the_end(page: Page, big_ui: UiServer) -> None:
    page.goto(big_ui.url("/sessions/1"))
    expect(page.locator("[data-testid=row][data-seq='1']")).to_be_visible()
    expect(page.get_by_test_id("total")).to_have_text(f"{BIG:,} messages")
    rendered = page.get_by_test_id("row").count()
    assert rendered < 200, f"{rendered} rows in the DOM: the list is not virtualised"
    rows = page.get_by_test_id("rows")
    rows.evaluate("el => { el.scrollTop = el.scrollHeight / 2 }")
    expect(page.locator("[data-testid=row][data-seq='50000']")).to_be_visible()
    rows.evaluate("el => { el.scrollTop = el.scrollHeight }")
    expect(page.locator(f"[data-testid=row][data-seq='{BIG}']")).to_be_visible()
    expect(page.locator(f"[data-testid=row][data-seq='{BIG}']")).to_contain_text(re.compile(r"\d"))
    shot(page, "timeline-100k-end-light")


def test_a_deep_link_into_a_big_session_scrolls_to_the_message(page: Page, big_ui: UiServer) -> None:
    page.goto(big_ui.url("/sessions/1/messages/73210"))
    expect(page.get_by_test_id("detail").locator("h2")).to_contain_text("#73210")
    row = page.locator("[data-testid=row][data-seq='73210']")
    expect(row).to_be_visible()
    expect(row).to_have_class(re.compile(r"\bopen\b"))


def test_a_wrap_started_elsewhere_appears_live(page: Page, ui: UiServer, e2e_db: Path) -> None:
    page.goto(ui.url("/"))
    expect(page.locator("[data-session-id='1']")).to_be_visible()
    shim = ShimProcess(warm_wrap_argv(e2e_db, *SCRIPTED, extra=("--name", "live from a terminal")))
    try:
        row = page.locator("tr", has_text="live from a terminal")
        expect(row.get_by_test_id("state")).to_have_text("recording")
        row.get_by_role("link").click()
        expect(page.get_by_test_id("session-state")).to_have_text("recording")
        expect(page.get_by_test_id("follow")).to_be_checked()
        for i in range(1, 4):
            shim.request(i, "tools/call", {"name": f"live-{i}"})
            shim.read_line()
            expect(page.locator(f"[data-testid=row][data-seq='{2 * i}']")).to_contain_text("tools/call")
        shot(page, "live-recording-light")
        shim.close_stdin()
        assert shim.wait() == 0
    finally:
        if shim.proc.poll() is None:
            shim.proc.kill()
    expect(page.get_by_test_id("session-state")).to_have_text("ended")
    expect(page.get_by_test_id("session-count")).to_have_text("6")
