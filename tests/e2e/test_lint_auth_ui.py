"""The authorization rules in a real Chromium, like the other rules: a timeline badge on the broken
leg and the message detail's finding linking the authorization spec section."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import shot
from tests.lint_auth_recordings import AUTHORIZE, good_flow
from tests.lint_recordings import store


@pytest.fixture(scope="module")
def auth_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[UiServer, int, int]]:
    db: Path = tmp_path_factory.mktemp("lint-auth-ui") / "lint.db"
    flow, seqs = good_flow(authorize={k: v for k, v in AUTHORIZE.items() if k != "code_challenge"})
    sid = store(db, flow, name="no pkce", kind="http-proxy")
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server, sid, seqs["authorize_req"]
    server.stop()


def test_auth_finding_in_timeline_and_detail(page: Page, auth_ui: tuple[UiServer, int, int]) -> None:
    ui, sid, seq = auth_ui
    page.goto(ui.url(f"/sessions/{sid}"))
    badge = page.locator(f"[data-testid=row][data-seq='{seq}'] [data-testid=lint-badge]")
    expect(badge).to_have_attribute("data-severity", "error")
    expect(badge).to_contain_text("auth-no-pkce")
    expect(page.get_by_test_id("lint-badge")).to_have_count(1)

    page.goto(ui.url(f"/sessions/{sid}/messages/{seq}"))
    finding = page.get_by_test_id("detail").get_by_test_id("finding")
    expect(finding).to_have_count(1)
    expect(finding).to_have_attribute("data-rule", "auth-no-pkce")
    expect(finding).to_contain_text("code_challenge")
    expect(finding.locator("a")).to_have_attribute(
        "href",
        re.compile(
            r"modelcontextprotocol\.io/specification/2025-11-25/basic/authorization#authorization-code-protection"
        ),
    )
    shot(page, "lint-auth-detail")
