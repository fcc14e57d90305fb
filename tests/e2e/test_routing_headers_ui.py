"""The network view shows a request's 2026-07-28 routing headers decoded beside the body, with
agree/disagree marks (issue 18). A hand-made HTTP session: the spec's own examples (an `Mcp-Param-*`
header and a base64 `Mcp-Name`), then one request whose `Mcp-Name` disagrees with its body."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import shot
from tests.lint_recordings import store
from tests.lint_wire_recordings import clean, headers, sql


@pytest.fixture(scope="module")
def routing_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[UiServer, int]]:
    db: Path = tmp_path_factory.mktemp("routing-ui") / "routing.db"
    s = clean()
    s.post(sql(), headers("tools/call", "drop_tables", **{"mcp-param-region": "us-west1"}))
    sid = store(db, s, name="routing headers", kind="http-proxy")
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server, sid
    server.stop()


def test_network_view_shows_decoded_routing_headers_and_a_mismatch(
    page: Page, routing_ui: tuple[UiServer, int]
) -> None:
    ui, sid = routing_ui
    page.goto(ui.url(f"/sessions/{sid}/network"))
    exchanges = page.get_by_test_id("exchange")
    expect(exchanges).to_have_count(4)
    expect(page.get_by_test_id("routing-flag")).to_have_count(1)
    expect(exchanges.nth(3).get_by_test_id("routing-flag")).to_be_visible()

    exchanges.nth(2).click()  # prompts/get with Mcp-Name: =?base64?SGVsbG8sIOS4lueVjA==?=
    rows = page.get_by_test_id("routing-header")
    name = rows.filter(has_text="Mcp-Name")
    expect(name).to_contain_text("Hello, 世界")
    expect(name).to_contain_text("base64")
    expect(name).to_have_attribute("data-status", "agrees")

    exchanges.nth(3).click()  # tools/call whose Mcp-Name says drop_tables, body execute_sql
    name = page.get_by_test_id("routing-header").filter(has_text="Mcp-Name")
    expect(name).to_have_attribute("data-status", "disagrees")
    expect(name.get_by_test_id("routing-mark")).to_contain_text("✗")
    expect(name).to_contain_text("execute_sql")
    region = page.get_by_test_id("routing-header").filter(has_text="Mcp-Param-Region")
    expect(region).to_have_attribute("data-status", "agrees")
    shot(page, "network-routing-headers")


def test_message_detail_shows_the_routing_headers_of_a_request(
    page: Page, routing_ui: tuple[UiServer, int]
) -> None:
    ui, sid = routing_ui
    page.goto(ui.url(f"/sessions/{sid}/messages/7"))  # the tools/call whose Mcp-Name disagrees
    detail = page.get_by_test_id("detail")
    name = detail.get_by_test_id("routing-header").filter(has_text="Mcp-Name")
    expect(name).to_have_attribute("data-status", "disagrees")
    expect(name).to_contain_text("drop_tables")
    page.goto(ui.url(f"/sessions/{sid}/messages/8"))  # its answer: no routing headers of its own
    expect(page.get_by_test_id("detail")).to_be_visible()
    expect(page.get_by_test_id("routing-headers")).to_have_count(0)
