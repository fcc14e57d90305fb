"""Browsing recorded sessions in a real Chromium: sessions list, timeline, filters, detail, pair, keys."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import BrowserContext, Page, expect

from inspector.api import UiServer
from tests.e2e.conftest import shot


def _method_count(ui: UiServer, **query: str) -> int:
    params = {**query, "count": "true", "limit": "1", "token": ui.token}
    return int(httpx.get(f"{ui.base_url}/api/sessions/1/messages", params=params).json()["total"])


def test_open_with_token_and_see_the_demo_session(context: BrowserContext, ui: UiServer) -> None:
    for theme in ("light", "dark"):
        page = context.new_page()
        page.emulate_media(color_scheme=theme)
        page.goto(ui.url("/"))
        expect(page).to_have_url(f"{ui.base_url}/")  # the token left the address bar (sessionStorage)
        row = page.locator("[data-session-id='1']")
        expect(row).to_contain_text("demo")
        expect(row.get_by_test_id("state")).to_have_text("ended")
        expect(row).to_contain_text("inspector-demo")
        expect(page.locator("html")).to_have_attribute("data-theme", theme)
        shot(page, f"sessions-{theme}")
        page.close()


def test_without_the_token_the_ui_asks_for_it(context: BrowserContext, ui: UiServer) -> None:
    page = context.new_page()
    page.goto(f"{ui.base_url}/")
    expect(page.get_by_text("Access token needed")).to_be_visible()
    page.get_by_placeholder("token").fill(ui.token)
    page.get_by_role("button", name="Open").click()
    expect(page.locator("[data-session-id='1']")).to_be_visible()


def test_timeline_filter_by_method_open_a_message_and_jump_to_its_pair(page: Page, ui: UiServer) -> None:
    page.goto(ui.url("/sessions/1"))
    expect(page.locator("[data-testid=row][data-seq='1']")).to_contain_text("initialize")
    page.get_by_test_id("method-filter").select_option("tools/call")
    expect(page).to_have_url(re.compile(r"method=tools%2Fcall"))
    expected = _method_count(ui, method="tools/call")
    expect(page.get_by_test_id("total")).to_have_text(f"{expected} matching")
    rows = page.get_by_test_id("row")
    expect(rows).to_have_count(expected)
    for text in rows.locator(".c-method").all_inner_texts():
        assert "tools/call" in text, text
    response = page.locator("[data-testid=row].rk-response").nth(2)
    seq = int(response.get_attribute("data-seq") or 0)
    response.click()
    detail = page.get_by_test_id("detail")
    expect(detail.locator("h2")).to_contain_text(f"#{seq} response tools/call")
    expect(page).to_have_url(re.compile(rf"/sessions/1/messages/{seq}\?method=tools%2Fcall"))
    jump = detail.get_by_test_id("jump-pair")
    pair_seq = int(re.search(r"#(\d+)", jump.inner_text()).group(1))  # type: ignore[union-attr]
    assert pair_seq < seq
    jump.click()
    expect(page).to_have_url(re.compile(rf"/sessions/1/messages/{pair_seq}\?"))
    expect(detail.locator("h2")).to_contain_text(f"#{pair_seq} request tools/call")
    expect(page.locator(f"[data-testid=row][data-seq='{pair_seq}']")).to_have_class(re.compile(r"\bopen\b"))
    shot(page, "timeline-filtered-detail-light")
    page.get_by_role("button", name="Raw").click()
    expect(detail.locator(".cm-content")).to_contain_text('"jsonrpc"')


def test_keyboard_j_k_enter_escape_and_slash_search(page: Page, ui: UiServer) -> None:
    page.goto(ui.url("/sessions/1"))
    expect(page.locator("[data-testid=row][data-seq='1']")).to_be_visible()
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("k")
    expect(page.locator("[data-testid=row].selected")).to_have_attribute("data-seq", "2")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/sessions/1/messages/2$"))
    expect(page.get_by_test_id("detail").locator("h2")).to_contain_text("#2 response initialize")
    page.keyboard.press("j")  # with the detail open, moving opens the next message
    expect(page).to_have_url(re.compile(r"/sessions/1/messages/3$"))
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("detail")).to_have_count(0)
    page.keyboard.press("/")
    expect(page.get_by_test_id("search")).to_be_focused()
    page.keyboard.type("Lisbon")
    expected = _method_count(ui, q="Lisbon")
    expect(page.get_by_test_id("total")).to_have_text(f"{expected} matching")
    expect(page).to_have_url(re.compile(r"q=Lisbon"))
    expect(page.get_by_test_id("row")).to_have_count(expected)


def test_theme_toggle_is_remembered(page: Page, ui: UiServer) -> None:
    page.goto(ui.url("/sessions/1/messages/14"))
    expect(page.get_by_test_id("detail")).to_be_visible()
    page.get_by_test_id("theme-toggle").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.get_by_test_id("detail").locator("h2")).to_contain_text("#14")
    shot(page, "timeline-detail-dark")


def test_session_info_and_lanes_views(page: Page, ui: UiServer) -> None:
    page.goto(ui.url("/sessions/1/info"))
    expect(page.get_by_text("Server capabilities")).to_be_visible()
    page.goto(ui.url("/sessions/1/lanes?from=1&to=60"))
    lanes = page.get_by_test_id("lane-msg")
    expect(lanes.first).to_be_visible()
    assert lanes.count() >= 40
    # Server-to-client requests (sampling, elicitation, roots) are drawn as such.
    expect(page.locator("[data-testid=lane-msg].server-request").first).to_be_visible()
    shot(page, "lanes-light")
    page.locator("[data-testid=lane-msg][data-seq='5']").click()
    expect(page).to_have_url(re.compile(r"/sessions/1/messages/5$"))


def test_network_view_of_an_http_session(page: Page, ui: UiServer) -> None:
    page.goto(ui.url("/sessions/3/network"))
    exchanges = page.get_by_test_id("exchange")
    expect(exchanges).to_have_count(3)
    exchanges.nth(1).click()
    detail = page.get_by_test_id("exchange-detail")
    expect(detail).to_contain_text("POST /mcp → 200")
    expect(detail).to_contain_text("ev-1, ev-2")
    expect(detail).to_contain_text("Bearer [secret:authorization]")
    expect(detail).not_to_contain_text("s3cret")
    shot(page, "network-light")
    detail.get_by_role("link", name="notifications/progress").click()
    expect(page.get_by_test_id("detail").locator("h2")).to_contain_text("notification notifications/progress")


def test_a_range_of_the_timeline_in_lanes_shows_out_of_order_answers(
    context: BrowserContext, ui: UiServer
) -> None:
    page = context.new_page()
    page.emulate_media(color_scheme="dark")
    page.goto(ui.url("/sessions/4"))
    page.locator("[data-testid=row][data-seq='1'] .c-seq").click()
    page.locator("[data-testid=row][data-seq='6'] .c-seq").click(modifiers=["Shift"])
    page.get_by_role("button", name="Lanes #1–#6").click()
    expect(page).to_have_url(re.compile(r"/sessions/4/lanes\?from=1&to=6$"))
    late = page.locator("[data-testid=lane-msg][data-seq='6']")
    expect(late).to_have_class(re.compile(r"\blate\b"))
    expect(late).to_contain_text("out of order")
    expect(page.locator("[data-testid=lane-msg][data-seq='5']")).not_to_have_class(re.compile(r"\blate\b"))
    expect(page.locator("[data-testid=lane-msg][data-seq='3']")).to_have_class(re.compile(r"server-request"))
    expect(page.get_by_text("1 answered out of order")).to_be_visible()
    shot(page, "lanes-out-of-order-dark")
