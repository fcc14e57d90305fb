"""Full-text search in a real Chromium: search every session from the sessions list, hits grouped by
session, a hit opens the timeline at that row; more pages; the timeline's own `q` filter still works
with other filters; a page from another origin cannot read the search route."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.api.test_search_api import search_session
from tests.e2e.conftest import shot
from tests.e2e.foreign import foreign_page_outcome


@pytest.fixture(scope="module")
def search_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[UiServer, int, int]]:
    db = tmp_path_factory.mktemp("search-ui") / "search.db"
    first = search_session(db, "alpha", 1500, rare_at=7, large=True)
    second = search_session(db, "bravo", 1500, rare_at=1400)
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server, first, second
    server.stop()


def test_search_all_sessions_and_open_a_hit_in_the_timeline(
    page: Page, search_ui: tuple[UiServer, int, int]
) -> None:
    ui, first, second = search_ui
    page.goto(ui.url("/"))
    box = page.get_by_test_id("sessions-message-search")
    box.fill("zanzibar")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/search\?q=zanzibar$"))
    expect(page.get_by_test_id("search-group")).to_have_count(2)
    expect(page.get_by_test_id("search-total")).to_have_text("2 messages")
    groups = page.get_by_test_id("search-group")
    expect(groups.nth(0)).to_contain_text("alpha")
    expect(groups.nth(1)).to_contain_text("bravo")
    expect(page.locator("mark").first).to_have_text("zanzibar")
    shot(page, "search-all-sessions")
    hit = page.locator(f"[data-testid=search-hit][data-session='{second}']")
    expect(hit).to_have_attribute("data-seq", "2800")
    hit.click()
    expect(page).to_have_url(re.compile(rf"/sessions/{second}/messages/2800$"))
    expect(page.get_by_test_id("detail").locator("h2")).to_contain_text("#2800 response")
    expect(page.locator("[data-testid=row][data-seq='2800']")).to_be_visible()
    expect(page.get_by_test_id("detail")).to_contain_text("zanzibar")


def test_pages_of_hits_a_large_body_and_no_result(page: Page, search_ui: tuple[UiServer, int, int]) -> None:
    ui, first, _ = search_ui
    page.goto(ui.url("/search?q=answer"))
    expect(page.get_by_test_id("search-hit")).to_have_count(50)
    expect(page.get_by_test_id("search-total")).to_have_text("1000+ messages")
    page.get_by_test_id("search-more").click()
    expect(page.get_by_test_id("search-hit")).to_have_count(100)
    box = page.get_by_test_id("search-input")
    box.fill("kumquat")
    box.press("Enter")
    expect(page.get_by_test_id("search-hit")).to_have_count(1)
    expect(page.get_by_test_id("search-hit")).to_have_attribute("data-session", str(first))
    box.fill("nothing-like-this")
    box.press("Enter")
    expect(page.get_by_text("No message holds every word")).to_be_visible()
    # One session only (?session=N).
    page.goto(f"{ui.base_url}/search?q=zanzibar&session={first}")
    expect(page.get_by_test_id("search-hit")).to_have_count(1)
    expect(page.get_by_test_id("search-hit")).to_have_attribute("data-seq", "14")


def test_the_timeline_text_filter_still_works_with_other_filters(
    page: Page, search_ui: tuple[UiServer, int, int]
) -> None:
    ui, first, _ = search_ui
    page.goto(ui.url(f"/sessions/{first}?q=zanzibar"))
    expect(page.get_by_test_id("total")).to_have_text("1 matching")
    expect(page.locator("[data-testid=row][data-seq='14']")).to_be_visible()
    # The direction filter's URL parameter is `dir` (parseFilter); "answer 7" is the server's answer.
    page.goto(f"{ui.base_url}/sessions/{first}?q=answer%207&dir=s2c")
    expect(page.get_by_test_id("total")).to_have_text("1 matching")
    expect(page.locator("[data-testid=row]")).to_have_count(1)
    page.goto(f"{ui.base_url}/sessions/{first}?q=answer%207&dir=c2s")
    # Only once the page has loaded (a store that has not loaded yet also shows 0).
    expect(page.get_by_text("No message matches these filters.")).to_be_visible()
    expect(page.get_by_test_id("total")).to_have_text("0 matching")


FOREIGN = """
(async () => {
  const out = [];
  try {
    const r = await fetch(API + '/api/search?q=zanzibar', {headers: {authorization: 'Bearer ' + TOKEN}});
    out.push('header status ' + r.status);
  } catch (e) { out.push('header blocked'); }
  try {
    const r = await fetch(API + '/api/search?q=zanzibar&token=' + TOKEN);
    out.push('read ' + (await r.text()).length);
  } catch (e) { out.push('read blocked'); }
  document.getElementById('out').textContent = out.join('; ') + '; done';
})();
"""


def test_a_page_from_another_origin_cannot_read_search_results(
    browser: Browser, search_ui: tuple[UiServer, int, int], tmp_path: Path
) -> None:
    ui = search_ui[0]
    script = FOREIGN.replace("API", json.dumps(ui.base_url)).replace("TOKEN", json.dumps(ui.token))
    outcome = foreign_page_outcome(browser, tmp_path, script)
    assert "header blocked" in outcome and "read blocked" in outcome, outcome
