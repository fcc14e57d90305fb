"""Lint findings in a real Chromium: badges in the timeline, the findings filter chips, the detail's findings."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import shot
from tests.lint_recordings import violations


@pytest.fixture(scope="module")
def lint_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[UiServer, int, dict[str, int]]]:
    db: Path = tmp_path_factory.mktemp("lint-ui") / "lint.db"
    sid, seqs = violations(db)
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server, sid, seqs
    server.stop()


def test_badges_and_findings_filter(page: Page, lint_ui: tuple[UiServer, int, dict[str, int]]) -> None:
    ui, sid, seqs = lint_ui
    page.goto(ui.url(f"/sessions/{sid}"))
    error_row = page.locator(f"[data-testid=row][data-seq='{seqs['unknown-response-id']}']")
    expect(error_row.get_by_test_id("lint-badge")).to_have_attribute("data-severity", "error")
    expect(error_row.get_by_test_id("lint-badge")).to_contain_text("unknown-response-id")
    for rule in ("server-capability-not-declared", "list-changed-not-declared"):
        badge = page.locator(f"[data-testid=row][data-seq='{seqs[rule]}'] [data-testid=lint-badge]")
        expect(badge).to_have_attribute("data-severity", "warning")
    expect(page.get_by_test_id("lint-badge")).to_have_count(3)
    shot(page, "lint-badges")

    page.get_by_test_id("findings-error").click()
    expect(page).to_have_url(re.compile(r"findings=error"))
    rows = page.get_by_test_id("row")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-seq", str(seqs["unknown-response-id"]))
    expect(page.get_by_test_id("total")).to_have_text("1 matching")

    page.get_by_test_id("findings-warning").click()
    expect(page).to_have_url(re.compile(r"findings=warning"))
    expect(rows).to_have_count(3)
    assert sorted(int(r.get_attribute("data-seq") or 0) for r in rows.all()) == sorted(seqs.values())

    page.get_by_test_id("findings-warning").click()  # off again
    expect(page).not_to_have_url(re.compile(r"findings="))
    expect(rows.first).to_have_attribute("data-seq", "1")


def test_message_detail_shows_findings_with_spec_section(
    page: Page, lint_ui: tuple[UiServer, int, dict[str, int]]
) -> None:
    ui, sid, seqs = lint_ui
    seq = seqs["list-changed-not-declared"]
    page.goto(ui.url(f"/sessions/{sid}/messages/{seq}"))
    finding = page.get_by_test_id("detail").get_by_test_id("finding")
    expect(finding).to_have_count(1)
    expect(finding).to_have_attribute("data-rule", "list-changed-not-declared")
    expect(finding).to_contain_text("tools.listChanged")
    link = finding.locator("a")
    expect(link).to_have_attribute(
        "href", re.compile(r"modelcontextprotocol\.io/specification/2025-11-25/basic/lifecycle")
    )
    shot(page, "lint-detail")
