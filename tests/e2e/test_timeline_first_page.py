"""A timeline's first page is asked for before the app's bundle runs (issue #21, first row < 300 ms).

Measured on a 1,000,000-message session: the page's own request took 6 ms, the first row came
after ~600 ms, most of it the bundle's loading and evaluation, then two React renders (the first
one without rows). The head script (web/src/first/prime.ts, a classic script before the bundle:
the CSP allows no inline script) now asks for the first page of an unfiltered timeline while the bundle loads; the app takes
that answer instead of asking again, and renders once with the rows. The build's hashed assets are
kept by the browser without revalidation (a load no longer waits on the server for each script).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from bench.ui_data import generate
from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import clear, hold_the_entry, watch_console


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("first-page") / "rows.db"
    generate(path, 1_000, name="one thousand")
    return path


@pytest.fixture(scope="module")
def ui(db: Path) -> Iterator[UiServer]:
    server = UiServer(open_engine(db), port=0).start()
    yield server
    server.stop()


def _messages_requests(page: Page, events: list[tuple[str, str]]) -> None:
    page.on("request", lambda r: events.append(("sent", r.url)))
    page.on("requestfinished", lambda r: events.append(("done", r.url)))


def _bundle_done(events: list[tuple[str, str]]) -> int:
    return next(
        i
        for i, (kind, url) in enumerate(events)
        if kind == "done" and re.search(r"/assets/index-[^/]+\.js$", url)
    )


def test_the_first_page_is_asked_for_while_the_bundle_loads_and_only_once(page: Page, ui: UiServer) -> None:
    errors: list[str] = []
    watch_console(page, errors)
    events: list[tuple[str, str]] = []
    _messages_requests(page, events)
    hold_the_entry(page)
    page.goto(ui.url("/sessions/1"))
    expect(page.locator("[data-testid=row][data-seq='1']")).to_be_visible()
    expect(page.get_by_test_id("total")).to_have_text("1,000 messages")
    page.wait_for_load_state("networkidle")
    pages = [
        i for i, (kind, url) in enumerate(events) if kind == "sent" and "/api/sessions/1/messages?" in url
    ]
    assert len(pages) == 1, [url for kind, url in events if kind == "sent"]
    assert "after_seq=0&limit=200&count=true" in events[pages[0]][1]
    assert pages[0] < _bundle_done(events), f"the first page waited for the bundle: {events}"
    assert page.evaluate("window.__earlyPage") is None  # taken by the timeline
    assert errors == []


def test_a_deep_link_asks_early_for_its_rows_page(page: Page, ui: UiServer) -> None:
    events: list[tuple[str, str]] = []
    _messages_requests(page, events)
    hold_the_entry(page)
    page.goto(ui.url("/sessions/1/messages/450"))
    expect(page.locator("[data-testid=row][data-seq='450']")).to_have_class(re.compile(r"\bselected\b"))
    at = [i for i, (kind, url) in enumerate(events) if kind == "sent" and "/api/sessions/1/messages?" in url]
    sent = [events[i][1] for i in at]
    assert sent and "after_seq=400&limit=200&count=true" in sent[0], sent
    assert sum("after_seq=400&" in url for url in sent) == 1, sent
    assert at[0] < _bundle_done(events), f"the row's page waited for the bundle: {events}"


def test_a_filtered_timeline_is_not_asked_for_early_unfiltered(page: Page, ui: UiServer) -> None:
    events: list[tuple[str, str]] = []
    _messages_requests(page, events)
    page.goto(ui.url("/sessions/1?kind=response"))
    expect(page.locator("[data-testid=row][data-index='0'][data-seq='2']")).to_be_visible()
    sent = [url for kind, url in events if kind == "sent" and "/api/sessions/1/messages?" in url]
    assert sent and all("kind=response" in url for url in sent), sent


def test_a_refused_early_page_falls_back_to_the_apps_own_request(page: Page, ui: UiServer) -> None:
    # A stale token in the tab: the head script's request is refused; the app asks for the token.
    page.goto(ui.url("/sessions/1").split("#")[0] + "#token=wrong")
    expect(page.get_by_role("heading", name="Access token needed")).to_be_visible()
    page.get_by_placeholder("token").fill(ui.token)
    page.get_by_role("button", name="Open").click()
    expect(page.locator("[data-testid=row][data-seq='1']")).to_be_visible()


def test_hashed_assets_are_kept_without_revalidation(ui: UiServer) -> None:
    index = httpx.get(ui.base_url + "/").text
    script = re.search(r'src="(/assets/index-[^"]+\.js)"', index)
    assert script, index
    r = httpx.get(ui.base_url + script.group(1))
    assert r.status_code == 200
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert httpx.get(ui.base_url + "/assets/nothing-here.js").headers.get("cache-control") is None
    assert "no-store" in httpx.get(ui.base_url + "/").headers["cache-control"]


# Installed before the page's scripts: what the page does before row 1 is in the DOM.
_BEFORE_FIRST_ROW = """
window.__before = { intl: 0, layoutReads: 0 };
let shown = false;
new MutationObserver((_, obs) => {
  if (document.querySelector("[data-testid=row][data-seq='1']")) {
    shown = true;
    window.__rowsAtFirst = document.querySelectorAll("[data-testid=row]").length;
    obs.disconnect();
  }
}).observe(document, { subtree: true, childList: true });
const toLocale = Number.prototype.toLocaleString;
Number.prototype.toLocaleString = function (...a) { if (!shown) window.__before.intl++; return toLocale.apply(this, a); };
const NumberFormat = Intl.NumberFormat;
Intl.NumberFormat = function (...a) { if (!shown) window.__before.intl++; return new NumberFormat(...a); };
for (const name of ["clientHeight", "scrollTop"]) {
  const d = Object.getOwnPropertyDescriptor(Element.prototype, name);
  Object.defineProperty(Element.prototype, name, { ...d, get() {
    if (!shown && this.dataset && this.dataset.testid === "rows") window.__before.layoutReads++;
    return d.get.call(this);
  } });
}
"""


def test_the_first_rows_render_without_reading_the_layout_or_loading_intl(page: Page, ui: UiServer) -> None:
    """The trace of a timeline's open: its first rows' task also forced the page's first style and
    layout (the row list's height read at mount, then a second render) and loaded the locale data of
    Intl for the total (`toLocaleString`, 40-110 ms in a fresh page). The first render now shows the
    rows in view of the window's height; the ResizeObserver measures the list afterwards, and the
    overscan rows follow."""
    page.add_init_script(_BEFORE_FIRST_ROW)
    hold_the_entry(page)  # (as below: the rows are in the app's first render, not after a measurement)
    page.goto(ui.url("/sessions/1"))
    expect(page.locator("[data-testid=row][data-seq='1']")).to_be_attached()
    assert page.evaluate("window.__before") == {"intl": 0, "layoutReads": 0}
    first = page.evaluate("window.__rowsAtFirst")
    viewport = page.viewport_size
    assert viewport is not None and 0 < first <= viewport["height"] // 26 + 1
    expect(page.get_by_test_id("total")).to_have_text("1,000 messages")
    # Measured, the list renders its overscan (30 rows below the view) and scrolls as before.
    expect(page.locator("[data-testid=row][data-index='45']")).to_be_attached()
    page.get_by_test_id("rows").evaluate("(el) => { el.scrollTop = el.scrollHeight; }")
    expect(page.locator("[data-testid=row][data-seq='1000']")).to_be_visible()


def test_a_later_tab_renders_first_only_the_rows_in_view(context: BrowserContext, ui: UiServer) -> None:
    """The first render cannot read the layout (above); a timeline's list starts ~280 px down the
    window, so taking the window's height rendered a third more rows than are in view. The height the
    page around the list took is kept (localStorage) when the list is measured: a later tab's first
    render holds the rows in view, neither more nor fewer."""
    try:
        first = context.new_page()
        first.goto(ui.url("/sessions/1"))
        expect(first.get_by_test_id("total")).to_have_text("1,000 messages")
        in_view = first.get_by_test_id("rows").evaluate("(el) => el.clientHeight") / 26
        first.close()
        later = context.new_page()
        later.add_init_script(_BEFORE_FIRST_ROW)
        hold_the_entry(later)  # the first page is in before the app renders, however loaded the machine
        later.goto(ui.url("/sessions/1"))
        expect(later.locator("[data-testid=row][data-seq='1']")).to_be_attached()
        rendered = later.evaluate("window.__rowsAtFirst")
        assert math.ceil(in_view) <= rendered <= math.ceil(in_view) + 1, (rendered, in_view)
        viewport = later.viewport_size
        assert viewport is not None and rendered < viewport["height"] // 26
        expect(later.locator("[data-testid=row][data-index='45']")).to_be_attached()  # then the overscan
    finally:
        clear(context)


# What only a view the first render does not show holds (its test ids and texts: strings the minifier
# keeps): the entry that runs before a timeline's first rows must not hold them.
_LATER_VIEWS = {
    "the Intercept panel": "intercept-panel",
    "the replay dialog": "replay-dialog",
    "the Apps tab": "Recorded calls with a view",
    "a session's Info tab": "Session facts",
}


def test_the_entry_holds_no_view_the_first_render_does_not_need(ui: UiServer) -> None:
    """The session page's tabs and dialogs are loaded when first opened: their hooks (the intercept
    state, the session's Apps, the diff link) live in modules of their own, so the entry keeps only
    what the session page and its timeline render."""
    index = httpx.get(ui.base_url + "/").text
    entry = re.search(r'<script type="module"[^>]* src="(/assets/index-[^"]+\.js)"', index)
    assert entry, index
    code = httpx.get(ui.base_url + entry.group(1)).text
    assert re.search(r"\"data-testid\":[`\"]rows[`\"]", code), "the timeline is not in the entry"
    held = [view for view, mark in _LATER_VIEWS.items() if mark in code]
    assert held == [], f"the entry holds {held}"


def _loaded_at_start(html: str) -> tuple[list[str], list[str], list[str]]:
    """The module scripts (entry and preloads), the stylesheets and the classic scripts (the head
    script, web/src/first/prime.ts) a built page names."""
    scripts = re.findall(r'<script type="module"[^>]* src="(/assets/[^"]+)"', html)
    scripts += re.findall(r'<link rel="modulepreload"[^>]* href="(/assets/[^"]+)"', html)
    classic = re.findall(r'<script src="(/assets/[^"]+)"', html)
    return scripts, re.findall(r'<link rel="stylesheet"[^>]* href="(/assets/[^"]+)"', html), classic


def test_the_page_names_its_scripts_in_its_headers_and_each_is_fetched_once(page: Page, ui: UiServer) -> None:
    """The page's response names what it loads in a `Link` header, so the browser asks for the entry
    as the headers come instead of once the page's body is in and parsed; the browser uses those
    preloads (same URL, same CORS mode) rather than fetching the scripts a second time."""
    answer = httpx.get(ui.base_url + "/sessions/1")
    scripts, styles, classic = _loaded_at_start(answer.text)
    assert scripts and styles and len(classic) == 1, answer.text
    link = answer.headers["link"]
    for url in scripts:
        assert f"<{url}>; rel=modulepreload; crossorigin" in link
    for url in styles:
        assert f"<{url}>; rel=preload; as=style; crossorigin" in link
    assert f"<{classic[0]}>; rel=preload; as=script" in link
    # The head script has a hashed name: the browser keeps it without asking again.
    kept = httpx.get(ui.base_url + classic[0])
    assert kept.status_code == 200 and "immutable" in kept.headers["cache-control"]
    assert answer.headers["cache-control"] == "no-store"
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url.removeprefix(ui.base_url)))
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if "preload" in m.text else None)
    page.goto(ui.url("/sessions/1"))
    expect(page.locator("[data-testid=row][data-seq='1']")).to_be_visible()
    page.wait_for_load_state("networkidle")
    loaded = scripts + styles + classic
    assert {url: fetched.count(url) for url in loaded} == {url: 1 for url in loaded}
    assert warnings == []


def test_a_page_without_a_build_is_a_clear_503(tmp_path: Path) -> None:
    server = UiServer(open_engine(tmp_path / "empty.db"), port=0, static_dir=tmp_path / "no-build").start()
    try:
        answer = httpx.get(server.base_url + "/sessions/1")
    finally:
        server.stop()
    assert answer.status_code == 503
    assert "make web" in answer.text
