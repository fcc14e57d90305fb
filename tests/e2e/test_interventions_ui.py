"""Interventions in a real Chromium (issue 17): the timeline's badges, the "interventions only"
filter, the injected row's link to its original, the detail, the lanes and the session's seed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from inspector.store.interventions import server_side
from tests.e2e.conftest import shot
from tests.intervened import INTERVENED, record_lines
from tests.sessions import load


@pytest.fixture(scope="module")
def iv_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[UiServer, int]]:
    db: Path = tmp_path_factory.mktemp("iv-ui") / "iv.db"
    sid = record_lines(db, INTERVENED)
    server_side_lines = [(d, raw, None) for d, raw, meta in INTERVENED if server_side(d, meta)]
    record_lines(db, server_side_lines, name="replayed", intercept=None)  # sid + 1: as the server lived it
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server, sid
    server.stop()


def _row(page: Page, seq: int):  # noqa: ANN202 (a Playwright locator)
    return page.locator(f"[data-testid=row][data-seq='{seq}']")


def test_timeline_marks_interventions_and_filters_them(page: Page, iv_ui: tuple[UiServer, int]) -> None:
    ui, sid = iv_ui
    page.goto(ui.url(f"/sessions/{sid}"))
    expect(page.get_by_test_id("row")).to_have_count(len(INTERVENED))
    # Not delivered: dimmed, struck, says what and who.
    dropped = _row(page, 12)
    expect(dropped).to_have_class(re.compile(r"\biv-undelivered\b"))
    expect(dropped.get_by_test_id("iv-badge")).to_have_text("not delivered · drop by rule blackhole")
    assert dropped.evaluate("e => getComputedStyle(e).opacity") == "0.6"
    struck = dropped.locator(".c-kind").evaluate("e => getComputedStyle(e).textDecorationLine")
    assert struck == "line-through"
    expect(_row(page, 13).get_by_test_id("iv-badge")).to_contain_text("respond by you")
    # Delayed: delivered, with its delay.
    expect(_row(page, 4).get_by_test_id("iv-badge")).to_have_text("delayed 200 ms · rule slow")
    expect(_row(page, 4)).not_to_have_class(re.compile(r"\biv-undelivered\b"))
    # Injected: a badge that leads to the original (same n).
    injected = _row(page, 11).get_by_test_id("iv-badge")
    expect(injected).to_have_text("injected")
    expect(injected).to_have_attribute("title", re.compile(r"injected by rule fail \(replace #3\)"))
    expect(_row(page, 5).get_by_test_id("iv-badge")).to_have_count(0)
    shot(page, "interventions-timeline")

    injected.click()
    expect(page).to_have_url(re.compile(rf"/sessions/{sid}/messages/10"))
    detail = page.get_by_test_id("detail")
    expect(detail.get_by_test_id("detail-intervention")).to_contain_text(
        "replaced by rule fail — not delivered"
    )
    expect(detail.get_by_test_id("detail-intervention")).to_contain_text(
        "The peer never received these bytes."
    )
    link = detail.get_by_test_id("iv-link")
    expect(link).to_have_text("sent instead #11 s2c error")
    link.click()
    expect(page).to_have_url(re.compile(rf"/sessions/{sid}/messages/11"))
    expect(page.get_by_test_id("detail-intervention")).to_contain_text(
        "sent by the inspector, not by the peer"
    )
    expect(page.get_by_test_id("jump-pair")).to_contain_text("#9")

    # The filter: only the rows the inspector touched, in the URL.
    page.goto(ui.url(f"/sessions/{sid}"))
    page.get_by_test_id("interventions-filter").click()
    expect(page).to_have_url(re.compile(r"iv=1"))
    expect(page.get_by_test_id("total")).to_have_text("9 matching")
    seqs = page.get_by_test_id("row").evaluate_all("rows => rows.map(r => Number(r.dataset.seq))")
    assert seqs == [4, 6, 7, 10, 11, 12, 13, 14, 16]
    shot(page, "interventions-filter")
    page.get_by_test_id("interventions-filter").click()
    expect(page.get_by_test_id("row")).to_have_count(len(INTERVENED))


def test_lanes_and_session_facts(page: Page, iv_ui: tuple[UiServer, int]) -> None:
    ui, sid = iv_ui
    page.goto(ui.url(f"/sessions/{sid}"))
    expect(page.get_by_test_id("session-intercept")).to_contain_text("seed 1234")
    expect(page.get_by_test_id("session-intercept")).to_contain_text("rules slow, fail, blackhole, lose")
    page.goto(ui.url(f"/sessions/{sid}/lanes?from=1&to=16"))
    dropped = page.locator("[data-testid=lane-msg][data-seq='12']")
    expect(dropped).to_have_class(re.compile(r"\biv-undelivered\b"))
    expect(dropped.get_by_test_id("lane-iv")).to_contain_text("dropped by rule blackhole")
    # A message never delivered stops at the inspector's lane; injected bytes start there.
    x2 = dropped.locator("line").get_attribute("x2")
    injected = page.locator("[data-testid=lane-msg][data-seq='11']")
    x1 = injected.locator("line").get_attribute("x1")
    assert x2 == x1 == "430"
    expect(injected.get_by_test_id("lane-iv")).to_contain_text("injected by rule fail")
    shot(page, "interventions-lanes")


def test_diff_marks_intervened_exchanges(page: Page, iv_ui: tuple[UiServer, int]) -> None:
    ui, sid = iv_ui
    page.goto(ui.url(f"/diff?a={sid}&b={sid + 1}&only=1"))
    expect(page.get_by_test_id("verdict")).to_contain_text(re.compile("unchanged|equal|same", re.I))
    badges = page.get_by_test_id("intervened-badge")
    expect(badges).to_have_count(4)  # equal, yet listed under "only differences"
    replaced = page.locator("[data-testid=diff-row]").nth(2)
    expect(replaced.get_by_test_id("intervened-badge")).to_have_attribute(
        "title", re.compile(r"replaced by rule fail \(not delivered\)")
    )
    replaced.click()
    expect(page.get_by_test_id("exchange-interventions")).to_contain_text(
        "replaced by rule fail (not delivered)"
    )
    shot(page, "interventions-diff")


def test_a_real_wrap_faults_session_in_the_timeline(page: Page, tmp_path: Path) -> None:
    """`wrap --faults` between the Python SDK client and server-everything, then the browser: the
    session tests/integration/test_interventions_recorded.py records (`_record`, on every run),
    exported as tests/data/sessions/faults_wrap_everything.jsonl (paths made neutral)."""
    db = tmp_path / "rec.db"
    sid = load(db, "faults_wrap_everything")
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    try:
        page.goto(server.url(f"/sessions/{sid}?iv=1"))
        expect(page.get_by_test_id("total")).to_have_text("6 matching")
        expect(page.get_by_test_id("session-intercept")).to_contain_text("seed 7")
        badges = page.get_by_test_id("iv-badge")
        expect(badges.filter(has_text="not delivered · replace by rule boom")).to_have_count(1)
        expect(badges.filter(has_text="not delivered · drop by rule lose")).to_have_count(1)
        expect(badges.filter(has_text="delayed 150 ms · rule slow")).to_have_count(1)
        expect(page.locator("[data-iv=injected]")).to_have_count(2)
        shot(page, "interventions-real-wrap")
    finally:
        server.stop()
