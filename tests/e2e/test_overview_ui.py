"""The Overview tab in a real Chromium (issue #39): its numbers are the API's (`GET
/api/sessions/{id}/stats`, the computation `mcp-inspect stats` prints), cell by cell; the histogram,
errors over time, slowest calls (a link to the message on the timeline), findings by rule and the
tools/list's cost are drawn; in the dark theme too. The screenshot is docs/overview.png."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from playwright.sync_api import BrowserContext, Page, expect

from inspector.api import UiServer

ROOT = Path(__file__).resolve().parents[2]
DOCS_SHOT = ROOT / "docs" / "overview.png"


def _ms(value: float | None) -> str:
    # as the tab prints them (web/src/overview/Overview.tsx `ms`)
    if value is None:
        return "–"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def _api_stats(ui: UiServer, session_id: int) -> dict:
    with httpx.Client(base_url=ui.base_url, timeout=30, headers={"authorization": f"Bearer {ui.token}"}) as c:
        answer = c.get(f"/api/sessions/{session_id}/stats")
    assert answer.status_code == 200, answer.text[:300]
    return answer.json()


def test_the_overview_shows_the_apis_numbers_and_links_into_the_timeline(page: Page, ui: UiServer) -> None:
    stats = _api_stats(ui, 1)  # the demo: errors, an isError result, names, a tools/list
    page.goto(ui.url("/sessions/1"))
    page.get_by_test_id("overview-tab").click()
    expect(page).to_have_url(re.compile(r"/sessions/1/overview"))
    rows = page.get_by_test_id("overview-stats-row")
    expect(rows).to_have_count(len(stats["methods"]))
    for i, want in enumerate(stats["methods"]):
        row = rows.nth(i)
        assert row.get_attribute("data-method") == want["method"]
        assert (row.get_attribute("data-name") or None) == want["name"]
        cells = {
            col: row.locator(f"[data-col={col}]").inner_text()
            for col in ("count", "errors", "p50_ms", "p95_ms", "max_ms", "bytes_in", "bytes_out")
        }
        assert cells == {
            "count": str(want["count"]),
            "errors": str(want["errors"]),
            "p50_ms": _ms(want["p50_ms"]),
            "p95_ms": _ms(want["p95_ms"]),
            "max_ms": _ms(want["max_ms"]),
            "bytes_in": str(want["bytes_in"]),
            "bytes_out": str(want["bytes_out"]),
        }, want
    # one histogram per method with answered calls; the time chart; findings by rule; the tools' cost
    expect(page.get_by_test_id("overview-histograms").locator("svg[role=img]")).to_have_count(
        len(stats["histogram"]["methods"])
    )
    expect(page.get_by_test_id("overview-over-time")).to_contain_text(
        f"failed ({sum(stats['timeline']['errors'])})"
    )
    expect(page.get_by_test_id("overview-findings").or_(page.get_by_text("No findings."))).to_be_visible()
    listing = stats["tools_list"]
    expect(page.get_by_test_id("overview-tools-total")).to_contain_text(
        f"{len(listing['tools'])} tools: {listing['bytes']} bytes, about {listing['tokens']} tokens"
    )
    links = page.get_by_test_id("overview-slow-link")
    expect(links).to_have_count(len(stats["slowest"]))
    # docs/overview.png: the whole tab in one tall viewport (it scrolls inside the page)
    page.set_viewport_size({"width": 1400, "height": 2000})
    expect(page.get_by_test_id("overview-tools")).to_be_in_viewport()
    DOCS_SHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS_SHOT))
    slowest = stats["slowest"][0]
    links.first.click()
    expect(page).to_have_url(re.compile(rf"/sessions/1/messages/{slowest['seq']}$"))
    expect(page.locator(f"[data-testid=row][data-seq='{slowest['seq']}']")).to_be_visible()


def test_the_overview_in_the_dark_theme_and_on_an_http_session(context: BrowserContext, ui: UiServer) -> None:
    stats = _api_stats(ui, 3)  # HTTP rows by hand
    page = context.new_page()
    page.emulate_media(color_scheme="dark")
    page.goto(ui.url("/sessions/3/overview"))
    expect(page.get_by_test_id("overview-stats-row")).to_have_count(len(stats["methods"]))
    # the bars take the theme's colours (CSS variables), not a fixed palette
    bar = page.locator(".overview svg .bar").first
    expect(bar).to_be_visible()
    fill = bar.evaluate("e => getComputedStyle(e).fill")
    accent = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()")
    assert accent and fill.replace(" ", "") == _rgb(accent), (fill, accent)


def _rgb(hex_colour: str) -> str:
    h = hex_colour.lstrip("#")
    return "rgb({},{},{})".format(*(int(h[i : i + 2], 16) for i in (0, 2, 4)))
