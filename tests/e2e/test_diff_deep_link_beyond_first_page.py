"""A diff deep link (`/diff?a=&b=&open=N`) to an exchange beyond the first page the diff view loads
(the API lists 1,000 exchanges a page) opened nothing: the view looked for exchange N only among the
rows it had, and the link showed the top of the report with no row open. Now the view loads pages
until the exchange is among them, opens it and scrolls to it (issue 21's left-alone list)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from bench.scale_lint import generate_session
from inspector.api import UiServer
from inspector.store import open_engine


@pytest.fixture(scope="module")
def pair_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    db: Path = tmp_path_factory.mktemp("e2e-diff-deep") / "pair.db"
    generate_session(db, 9000, name="a")
    generate_session(db, 9000, name="b", changes=frozenset({40, 1500}))
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server
    server.stop()


def _listed(ui: UiServer) -> list[dict[str, Any]]:
    answer = httpx.get(
        f"{ui.base_url}/api/diff",
        params={"a": 1, "b": 2, "equal": "true", "limit": 5000},
        headers={"Authorization": f"Bearer {ui.token}"},
        timeout=120,
    )
    assert answer.status_code == 200, answer.text
    return list(answer.json()["exchanges"])


def test_a_link_to_an_exchange_on_a_later_page_opens_it(page: Page, pair_ui: UiServer) -> None:
    listed = _listed(pair_ui)
    assert len(listed) > 2100  # three pages of the view's 1,000
    target = listed[2050]
    page.goto(pair_ui.url(f"/diff?a=1&b=2&open={target['index']}"))
    opened = page.locator("[data-testid=diff-row][aria-expanded=true]")
    expect(opened).to_have_count(1, timeout=30_000)
    expect(opened).to_have_attribute("data-summary", target["summary"])
    expect(opened).to_be_in_viewport()
    # The pages before it were loaded in order: every exchange up to it is listed once.
    rows = page.get_by_test_id("diff-row")
    assert rows.count() >= 2051
    assert rows.nth(2050).get_attribute("aria-expanded") == "true"


def test_a_link_within_the_first_page_still_loads_only_it(page: Page, pair_ui: UiServer) -> None:
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/diff?" in r.url else None)
    target = _listed(pair_ui)[10]
    page.goto(pair_ui.url(f"/diff?a=1&b=2&open={target['index']}"))
    opened = page.locator("[data-testid=diff-row][aria-expanded=true]")
    expect(opened).to_have_attribute("data-summary", target["summary"], timeout=30_000)
    page.wait_for_timeout(300)
    assert len([u for u in asked if "cursor=" in u]) == 0
