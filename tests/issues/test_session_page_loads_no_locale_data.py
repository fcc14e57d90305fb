"""Opening a session's timeline loads no locale data (issue #21: a 1M session's first row < 300 ms).

Found in a CPU profile of a large session's first row: the session header's start time was
formatted with `toLocaleDateString()`. A page's first use of Intl loads its locale data,
20-40 ms of main-thread time in a fresh Chromium tab here, and the header renders while the
timeline's first rows wait for the main thread (the session's answer usually comes first).
Dates are now written out as `YYYY-MM-DD HH:MM:SS.mmm` (local time), without Intl; numbers
were already grouped without it (`format.ts grouped`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from tests.issues.conftest import five_hundred_ui

# Installed before the page's scripts: every locale-dependent formatting call, counted by name.
_COUNT_LOCALE_USE = """
window.__locale = [];
const note = (name) => window.__locale.push(name);
for (const [proto, names] of [
  [Date.prototype, ["toLocaleDateString", "toLocaleTimeString", "toLocaleString"]],
  [Number.prototype, ["toLocaleString"]],
]) {
  for (const name of names) {
    const original = proto[name];
    proto[name] = function (...a) { note(name); return original.apply(this, a); };
  }
}
for (const name of ["DateTimeFormat", "NumberFormat", "RelativeTimeFormat", "PluralRules", "Collator"]) {
  const Original = Intl[name];
  Intl[name] = function (...a) { note("Intl." + name); return new Original(...a); };
}
"""


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    yield from five_hundred_ui(tmp_path_factory, "locale")


def test_a_session_page_formats_its_dates_and_counts_without_intl(page: Page, ui: UiServer) -> None:
    page.add_init_script(_COUNT_LOCALE_USE)
    page.goto(ui.url("/sessions/1"))
    expect(page.locator("[data-testid=row][data-seq='1']")).to_be_attached()
    expect(page.get_by_test_id("session-count")).to_have_text("500")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.__locale") == []
    # The header's start time: written out, in local time, to the millisecond.
    started = page.locator("dl.facts dt:text-is('started') + dd").inner_text()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}", started), started
    expect(page.get_by_test_id("total")).to_have_text("500 messages")


def test_a_message_detail_formats_its_time_without_intl(page: Page, ui: UiServer) -> None:
    page.add_init_script(_COUNT_LOCALE_USE)
    page.goto(ui.url("/sessions/1/messages/2"))
    detail = page.get_by_test_id("detail")
    expect(detail.locator("h2")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.__locale") == []
    assert re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}", detail.inner_text())
