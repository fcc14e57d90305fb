"""The version matrix in a real Chromium: start a run against the demo server from /versions (a real
subprocess per revision, spawned by the UI server), see the rows that differ highlighted, and open
the two-session diff of two revisions with the differing paths marked on each side."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import shot
from tests.warm_peers import demo_argv


@pytest.fixture(scope="module")
def versions_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    db: Path = tmp_path_factory.mktemp("e2e-versions") / "versions.db"
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server
    server.stop()


def test_matrix_from_the_ui_and_diff_of_two_revisions(page: Page, versions_ui: UiServer) -> None:
    page.goto(versions_ui.url("/"))
    page.get_by_test_id("nav-versions").click()
    expect(page).to_have_url(re.compile(r"/versions$"))
    # A process per revision, each forked warm (tests/warm_peers.py) as `python -m inspector.demo`.
    page.get_by_test_id("versions-command").fill(shlex.join(demo_argv()))
    # Two revisions keep the test short: one of each era.
    for rev in ("2024-11-05", "2025-03-26", "2025-06-18"):
        page.get_by_label(rev).uncheck()
    page.get_by_test_id("versions-start").click()
    expect(page).to_have_url(re.compile(r"/versions\?run=\w+"), timeout=120_000)
    matrix = page.get_by_test_id("matrix")
    cols = matrix.get_by_test_id("matrix-col")
    expect(cols).to_have_count(2)
    expect(cols.get_by_test_id("outcome")).to_have_text(["accepted", "accepted"])

    expect(matrix.locator("[data-testid=matrix-row][data-differs='1']").first).to_be_visible()
    cache = matrix.locator("[data-testid=matrix-row][data-key='tools/list cacheScope']")
    expect(cache).to_have_attribute("data-differs", "1")
    expect(cache).to_have_class(re.compile(r"\bdiffers\b"))
    expect(cache.locator("td[data-revision='2025-11-25']")).to_have_text("—")
    expect(cache.locator("td[data-revision='2026-07-28']")).to_have_text("1")
    same = matrix.locator("[data-testid=matrix-row][data-key='tools/list tools[].outputSchema']")
    expect(same).to_have_attribute("data-differs", "0")
    # The highlight is visible, not just a class: differing rows get a background, equal ones none.
    assert cache.evaluate("e => getComputedStyle(e).backgroundColor") != same.evaluate(
        "e => getComputedStyle(e).backgroundColor"
    )
    page.get_by_test_id("only-differing").check()
    expect(same).to_have_count(0)
    expect(cache).to_be_visible()
    shot(page, "versions-matrix")

    # The same run is listed among past runs.
    expect(page.get_by_test_id("past-runs").locator("option")).to_have_count(2)

    expect(page.get_by_test_id("diff-a")).to_have_value("2025-11-25")
    expect(page.get_by_test_id("diff-b")).to_have_value("2026-07-28")
    page.get_by_test_id("open-diff").click()
    expect(page).to_have_url(re.compile(r"/diff\?a=\d+&b=\d+&la=2025-11-25&lb=2026-07-28"))
    expect(page.get_by_test_id("verdict")).to_have_text("behaviour changed")
    expect(page.get_by_test_id("diff-original")).to_contain_text("versions 2025-11-25")
    expect(page.get_by_test_id("diff-replay")).to_contain_text("versions 2026-07-28")
    page.get_by_test_id("only-diffs").check()
    diff_rows = page.get_by_test_id("diff-row")
    diff_rows.filter(has_text="tools/list").click()
    detail = page.get_by_test_id("exchange-detail")
    expect(detail.get_by_test_id("change-path").filter(has_text="cacheScope")).to_have_text(
        "result.cacheScope"
    )
    # Side by side, titled with the revisions; the added field is marked on the 2026-07-28 side only.
    expect(detail.get_by_test_id("side-original")).to_contain_text("2025-11-25")
    expect(detail.get_by_test_id("side-replay")).to_contain_text("2026-07-28")
    hit = detail.get_by_test_id("side-replay").locator(
        '[data-testid=diff-hit][data-path=\'["result","cacheScope"]\']'
    )
    expect(hit).to_have_attribute("data-mark", "added")
    expect(hit).to_contain_text('"private"')
    expect(
        detail.get_by_test_id("side-original").locator("[data-testid=diff-hit][data-mark=added]")
    ).to_have_count(0)
    shot(page, "versions-diff")


def test_bad_target_is_refused_with_a_clear_message(page: Page, versions_ui: UiServer) -> None:
    page.goto(versions_ui.url("/versions"))
    page.get_by_test_id("versions-command").fill("/no/such/server --flag")
    page.get_by_test_id("versions-start").click()
    expect(page.get_by_test_id("versions-error")).to_contain_text("is not an executable file")
