"""A session's first rows show below its header and stay where they first showed (issue #21).

Seen while profiling a large session's first row: the page asked for the session (its header: name,
state, facts) only once the app had rendered, so the first render showed a "Loading session" line
and the timeline's rows under it; some 100 ms later the session came, the header took its ~190 px,
and every row moved down. The page's head script (web/src/first/prime.ts) now asks for the session
beside the timeline's first page while the bundle loads, and the app's first render waits for both (up to 80 ms, as it did for the
rows): the header is in the same render as the rows.

The entry script is held back here (as a large bundle on a slow load would be), so both answers are
in before the app runs: with the fix the header is in the first render every time; before it, never.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from tests.e2e.conftest import hold_the_entry
from tests.issues.conftest import five_hundred_ui

# Installed before the page's scripts: where row 1 was when it first showed, and whether the
# session's header was there with it.
_FIRST_SIGHT = """
new MutationObserver((_, obs) => {
  const row = document.querySelector("[data-testid=row][data-seq='1']");
  if (!row) return;
  window.__first = {
    top: row.getBoundingClientRect().top,
    title: document.querySelector("[data-testid=session-title]")?.textContent ?? null,
    loading: document.body.textContent.includes("Loading session"),
  };
  obs.disconnect();
}).observe(document, { subtree: true, childList: true });
"""


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    yield from five_hundred_ui(tmp_path_factory, "rows-stay")


def test_the_header_is_in_the_first_render_and_the_rows_do_not_move(page: Page, ui: UiServer) -> None:
    page.add_init_script(_FIRST_SIGHT)
    hold_the_entry(page)
    page.goto(ui.url("/sessions/1"))
    row = page.locator("[data-testid=row][data-seq='1']")
    expect(row).to_be_visible()
    expect(page.get_by_test_id("session-title")).to_contain_text("five hundred")
    page.wait_for_load_state("networkidle")
    first = page.evaluate("window.__first")
    assert first["title"] is not None and "five hundred" in first["title"], first
    assert not first["loading"], first
    box = row.bounding_box()
    assert box is not None and box["y"] == pytest.approx(first["top"], abs=0.5), (box, first)


def test_a_session_that_is_not_there_still_says_so(page: Page, ui: UiServer) -> None:
    # The head script's request for it is refused (404): the page's own request says why, as before.
    page.goto(ui.url("/sessions/99"))
    expect(page.get_by_test_id("error")).to_contain_text("99")
