"""The storage view and pins in a real Chromium: pin a session from the sessions list, see it kept
in the storage view, and see the next-to-go list the retention policy (from a config file) makes."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import text

from inspector.api import UiServer
from inspector.store import open_engine
from tests.api.recordings import generate_session
from tests.e2e.conftest import shot

DAY = 86_400 * 10**9


@pytest.fixture
def storage_ui(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[UiServer, dict[str, int]]]:
    db = tmp_path / "storage.db"
    ids = {name: generate_session(db, 200, name=name) for name in ("oldest", "older", "today")}
    engine = open_engine(db)
    with engine.begin() as conn:
        for name, days in (("oldest", 45), ("older", 40)):
            conn.execute(
                text("UPDATE session SET started_ns = :t WHERE id = :s"),
                {"t": time.time_ns() - days * DAY, "s": ids[name]},
            )
    config = tmp_path / "config.toml"
    config.write_text('[retention]\nmax_age = "30d"\n')
    monkeypatch.setenv("MCP_INSPECTOR_CONFIG", str(config))
    server = UiServer(engine, port=0, live_interval=0.1).start()
    yield server, ids
    server.stop()


def test_pin_a_session_and_see_it_kept_in_the_storage_view(
    page: Page, storage_ui: tuple[UiServer, dict[str, int]]
) -> None:
    ui, ids = storage_ui
    page.goto(ui.url("/"))
    page.get_by_test_id("nav-storage").click()
    expect(page).to_have_url(re.compile(r"/storage$"))
    nxt = page.get_by_test_id("next")
    expect(nxt.locator("tbody tr")).to_have_count(2)
    expect(nxt.locator(f"tr[data-session-id='{ids['oldest']}']")).to_contain_text("age")
    expect(page.get_by_test_id("policy")).to_contain_text("30d")
    expect(page.get_by_test_id("policy")).to_contain_text("config file")

    # Pin the oldest from the sessions list.
    page.get_by_role("link", name="mcp-inspector").click()
    row = page.get_by_test_id("sessions").locator(f"tr[data-session-id='{ids['oldest']}']")
    row.get_by_test_id("pin").click()
    expect(row.get_by_test_id("pin")).to_have_attribute("aria-pressed", "true")

    page.get_by_test_id("nav-storage").click()
    by_size = page.get_by_test_id("by-size")
    expect(
        by_size.locator(f"tr[data-session-id='{ids['oldest']}']").get_by_test_id("retention")
    ).to_have_text("kept (pinned)")
    expect(nxt.locator("tbody tr")).to_have_count(1)
    expect(nxt.locator(f"tr[data-session-id='{ids['older']}']")).to_be_visible()
    expect(by_size.locator(f"tr[data-session-id='{ids['older']}']").get_by_test_id("retention")).to_have_text(
        "goes next (age)"
    )
    shot(page, "storage-view")

    # Pinning from the storage view itself empties the list.
    nxt.locator(f"tr[data-session-id='{ids['older']}']").get_by_test_id("pin").click()
    expect(page.get_by_test_id("nothing-next")).to_be_visible()
