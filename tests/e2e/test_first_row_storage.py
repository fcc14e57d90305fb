"""A timeline's first row waits for no storage round trip (issue #21, first row < 300 ms).

Traced on a 1,000,000-message session (Chromium, a warm tab): before row 1, the page's first use of
localStorage (theme.js, on every load: the theme) and of sessionStorage (the token from the URL,
written at once) each took 25-45 ms of wall time on the main thread at load 9-11, for 2 ms of CPU:
a synchronous round trip to the browser process. The theme is now kept in a `theme` cookie that the
server writes into the page's <html data-theme> (public/prime.js reads localStorage only without it,
once); the token is held in memory and written to sessionStorage when the page is idle or left. The
page's head also has one classic script instead of two (one request less before the parser goes on).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from bench.ui_data import generate
from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import new_context, watch_console


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    path: Path = tmp_path_factory.mktemp("first-row-storage") / "rows.db"
    generate(path, 1_000, name="one thousand")
    server = UiServer(open_engine(path), port=0).start()
    yield server
    server.stop()


# Installed before the page's scripts: every use of localStorage or sessionStorage before row 1.
_STORAGE_BEFORE_FIRST_ROW = """
window.__storage = [];
let shown = false;
new MutationObserver((_, obs) => {
  if (document.querySelector("[data-testid=row][data-seq='1']")) { shown = true; obs.disconnect(); }
}).observe(document, { subtree: true, childList: true });
for (const name of ["localStorage", "sessionStorage"]) {
  const own = Object.getOwnPropertyDescriptor(window, name) ? window : Window.prototype;
  const d = Object.getOwnPropertyDescriptor(own, name);
  Object.defineProperty(window, name, { configurable: true, enumerable: true, get() {
    if (!shown) window.__storage.push(name);
    return d.get.call(window);
  } });
}
"""


def test_a_timelines_first_row_uses_no_storage(page: Page, ui: UiServer) -> None:
    page.context.add_init_script(_STORAGE_BEFORE_FIRST_ROW)
    page.goto(ui.url("/sessions/1"))  # the first visit: no theme cookie yet, so localStorage is read
    expect(page.locator("[data-testid=row][data-seq='1']")).to_be_attached()
    assert "localStorage" in page.evaluate("window.__storage")
    page.close()

    again = page.context.new_page()
    errors: list[str] = []
    watch_console(again, errors)
    again.goto(ui.url("/sessions/1"))
    expect(again.locator("[data-testid=row][data-seq='1']")).to_be_attached()
    assert again.evaluate("window.__storage") == []
    assert {c["name"]: c["value"] for c in again.context.cookies()}.get("theme") == "system"
    expect(again.locator("html")).to_have_attribute("data-theme", "light")
    expect(again.get_by_test_id("total")).to_have_text("1,000 messages")
    # The token from the URL is kept for the tab's next pages (written when idle, or when left).
    again.goto(ui.base_url + "/sessions/1/messages/450")
    expect(again.locator("[data-testid=row][data-seq='450']")).to_have_class(re.compile(r"\bselected\b"))
    assert errors == []


def test_a_token_is_kept_when_the_tab_moves_on_at_once(page: Page, ui: UiServer) -> None:
    page.goto(ui.url("/sessions/1"))
    page.wait_for_function("document.querySelector(\"[data-testid=row][data-seq='1']\") !== null", polling=1)
    page.goto(ui.base_url + "/sessions/1/messages/3")  # no token in this URL: it comes from sessionStorage
    expect(page.locator("[data-testid=row][data-seq='3']")).to_have_class(re.compile(r"\bselected\b"))


def test_the_theme_cookie_is_written_into_the_page(ui: UiServer) -> None:
    def html_tag(cookie: str | None) -> str:
        headers = {"cookie": f"theme={cookie}"} if cookie is not None else {}
        r = httpx.get(ui.base_url + "/sessions/1", headers=headers)
        assert r.status_code == 200 and "no-store" in r.headers["cache-control"]
        found = re.search(r"<html[^>]*>", r.text)
        assert found, r.text
        return found.group(0)

    assert html_tag("dark") == '<html data-theme="dark" lang="en">'
    assert html_tag("light") == '<html data-theme="light" lang="en">'
    assert html_tag("system") == '<html data-theme="system" lang="en">'
    assert html_tag(None) == '<html lang="en">'
    assert html_tag('dark"><script>alert(1)</script>') == '<html lang="en">'  # only the known values


@pytest.mark.parametrize("system", ["light", "dark"])
def test_the_theme_comes_from_the_cookie_then_from_the_system(
    browser: Browser, ui: UiServer, system: str
) -> None:
    context = new_context(browser, system)
    try:
        page = context.new_page()
        page.goto(ui.url("/sessions/1"))
        expect(page.locator("html")).to_have_attribute("data-theme", system)
        other = "dark" if system == "light" else "light"
        page.get_by_test_id("theme-toggle").click()
        expect(page.locator("html")).to_have_attribute("data-theme", other)
        assert {c["name"]: c["value"] for c in context.cookies()}["theme"] == other
        page.reload()
        expect(page.locator("html")).to_have_attribute("data-theme", other)
        # A choice kept in localStorage by an older build (no cookie yet) is still honoured, and moved.
        context.clear_cookies()
        page.evaluate(f"localStorage.setItem('theme', '{system}')")
        page.reload()
        expect(page.locator("html")).to_have_attribute("data-theme", system)
        assert {c["name"]: c["value"] for c in context.cookies()}["theme"] == system
    finally:
        context.close()
