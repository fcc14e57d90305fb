"""The Skills tab in Chromium: a real recording of Skills traffic (tests/skills_recording.py: `serve`
with a good and a tampered skill, `call skills/list --fetch-skills`) shows the tab on the session
page, each skill with its files, the tampered SKILL.md marked as a digest mismatch and its other file
as not read; a session whose server declared no skills has no such tab."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.sessions import load
from tests.skills_recording import record_skills


@pytest.fixture(scope="module")
def skills_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[UiServer, int, int]]:
    db, client_session, _server_session = record_skills(tmp_path_factory.mktemp("skills"))
    plain = load(db, "demo", name="demo")
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server, client_session, plain
    server.stop()


def test_skills_tab_lists_skills_and_marks_mismatches(
    page: Page, skills_ui: tuple[UiServer, int, int]
) -> None:
    ui, sid, plain = skills_ui
    page.goto(ui.url(f"/sessions/{sid}"))
    page.get_by_test_id("skills-tab").click()
    expect(page).to_have_url(re.compile(rf"/sessions/{sid}/skills"))
    expect(page.get_by_test_id("skills-mismatches")).to_have_text("1 file not matching the listing")
    good = page.get_by_test_id("skill-pdf-processing")
    expect(good.get_by_test_id("skill-file")).to_have_count(2)
    expect(good.locator('[data-status="verified"]')).to_have_count(2)
    good.get_by_text("SKILL.md as recorded").click()
    expect(good.get_by_test_id("skill-manifest")).to_contain_text("Skill body.")
    bad = page.get_by_test_id("skill-tampered")
    expect(bad.locator('[data-status="mismatch"]')).to_have_count(1)
    expect(bad.locator('[data-status="unread"]')).to_have_count(1)
    expect(bad.get_by_test_id("skill-problem")).to_contain_text("digest mismatch")
    with page.expect_response(lambda r: r.url.endswith(f"/api/sessions/{plain}/skills")) as asked:
        page.goto(ui.url(f"/sessions/{plain}"))
        expect(page.get_by_test_id("session-title")).to_be_visible()
        page.get_by_role("link", name="Info").click()  # off the timeline the page asks (if not yet)
    assert asked.value.json()["declared"] is False
    expect(page.get_by_test_id("skills-tab")).to_have_count(0)
