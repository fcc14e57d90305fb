"""The diff view opens with the runs-compared summary (issue #39 item 5) in a real Chromium: its
bucket chips and latency table show the API's `summary` (what `mcp-inspect diff --json` prints),
cell by cell, and a chip lists only its bucket's exchanges. The screenshot is docs/runs-compared.png."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests import compared_sessions as cs
from tests.two_sessions import imported

DOCS_SHOT = Path(__file__).resolve().parents[2] / "docs" / "runs-compared.png"


@pytest.fixture(scope="module")
def compared_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    db = imported(tmp_path_factory.mktemp("e2e-compared") / "c.db", cs.session_file())
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server
    server.stop()


def _ms(v: float | None) -> str:
    # as the view prints them (web/src/diff/RunsCompared.tsx `ms` and `delta`)
    return "–" if v is None else f"{v:.0f}" if v >= 1000 else f"{v:.1f}"


def _delta(v: float | None) -> str:
    return "–" if v is None else ("+" if v > 0 else "−" if v < 0 else "±") + _ms(abs(v))


def test_the_summary_is_the_apis_and_its_chips_filter_the_list(page: Page, compared_ui: UiServer) -> None:
    answer = httpx.get(
        f"{compared_ui.base_url}/api/diff",
        params={"a": 1, "b": 2},
        headers={"Authorization": f"Bearer {compared_ui.token}"},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    summary: dict[str, Any] = answer.json()["summary"]
    assert summary["buckets"] == cs.BUCKETS
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(compared_ui.url("/diff?a=1&b=2"))
    for bucket, n in summary["buckets"].items():
        expect(page.get_by_test_id(f"bucket-{bucket}")).to_have_attribute("data-count", str(n))
        expect(page.get_by_test_id(f"bucket-{bucket}")).to_contain_text(f"{n} {bucket}")
    rows = page.get_by_test_id("latency-row")
    expect(rows).to_have_count(len(summary["latency"]))
    for i, want in enumerate(summary["latency"]):
        row = rows.nth(i)
        assert (row.get_attribute("data-method"), row.get_attribute("data-name") or None) == (
            want["method"],
            want["name"],
        )
        cells = row.locator("td").all_inner_texts()
        assert cells == [
            want["name"] or want["method"],
            str(want["a_count"]),
            str(want["b_count"]),
            _ms(want["a_p50_ms"]),
            _ms(want["b_p50_ms"]),
            _delta(want["p50_delta_ms"]),
            _ms(want["a_p95_ms"]),
            _ms(want["b_p95_ms"]),
            _delta(want["p95_delta_ms"]),
        ], want
    listed = page.get_by_test_id("diff-row")
    expect(listed).to_have_count(sum(summary["buckets"].values()))
    DOCS_SHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS_SHOT))
    # A chip lists its bucket only (the unchanged one too, though "only differences" hides equal
    # exchanges); pressed again, or Esc, lists everything again.
    page.get_by_test_id("bucket-regressed").click()
    expect(listed).to_have_count(summary["buckets"]["regressed"])
    expect(page.locator("[data-testid=diff-row][data-bucket=regressed]")).to_have_count(2)
    expect(page.get_by_test_id("bucket-badge")).to_have_count(2)
    page.get_by_test_id("only-diffs").check()
    page.get_by_test_id("bucket-unchanged").click()
    expect(page).to_have_url(re.compile(r"[?&]bucket=unchanged"))
    expect(page.locator("[data-testid=diff-row][data-bucket=unchanged]")).to_have_count(3)
    expect(listed).to_have_count(3)
    page.keyboard.press("Escape")
    expect(listed).to_have_count(sum(summary["buckets"].values()) - summary["buckets"]["unchanged"])
