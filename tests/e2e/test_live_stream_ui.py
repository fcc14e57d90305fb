"""A session streaming 2,000 messages a second into an open timeline (a recorder in another process).

The feed's rows reach the page in batches, applied once per animation frame.

The timeline follows the tail to the last row, answers clicks while the rows pour in, and, scrolled
back through afterwards, shows every message once, in its place (row i is message i + 1).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from bench.scale_live import feed_process
from inspector.api import UiServer
from inspector.capture.sessions import create_session
from inspector.store import open_engine
from tests.e2e.conftest import subscribed

RATE = 2000
SECONDS = 1.5
TOTAL = int(RATE * SECONDS)

# Scroll the timeline (`el`) from the top, a view's height at a time, until every row was shown (or the
# end): for each window [scrollTop asked, scrollTop got, [[seq, index] of every row shown] or null if it
# did not render in `wait` ms].
SCROLL_BACK = """async (el, {total, row, wait}) => {
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const height = el.clientHeight;
  const windows = [];
  const seen = new Set();
  for (let top = 0; seen.size < total; top += height) {
    el.scrollTop = top;
    const at = el.scrollTop;
    const ends = [Math.floor(at / row), Math.min(total - 1, Math.floor((at + height - 1) / row))];
    const deadline = performance.now() + wait;
    let shown = null;
    await frame();
    while (performance.now() < deadline) {
      await frame();
      const ready = ends.every((i) => document.querySelector(`[data-testid=row][data-index='${i}']`))
        && !document.querySelector('.row.loading');
      if (ready) {
        shown = [...document.querySelectorAll('[data-testid=row]')].map(
          (r) => [Number(r.dataset.seq), Number(r.dataset.index)]);
        break;
      }
    }
    windows.push([top, at, shown]);
    if (shown === null) break;
    shown.forEach(([seq]) => seen.add(seq));
    if (top > total * row) break;
  }
  return windows;
}"""


@pytest.fixture
def streaming(tmp_path: Path) -> Iterator[tuple[UiServer, Path, int]]:
    db = tmp_path / "live.db"
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["flooding-server"], name="flood")
    server = UiServer(engine, port=0, live_interval=0.1).start()
    try:
        yield server, db, sid
    finally:
        server.stop()
        engine.dispose()


def test_a_streaming_session_is_followed_answers_clicks_and_misses_no_row(
    page: Page, streaming: tuple[UiServer, Path, int]
) -> None:
    ui, db, sid = streaming
    page.goto(ui.url(f"/sessions/{sid}"))
    expect(page.get_by_test_id("follow")).to_be_checked()
    subscribed(ui, sid)  # rows written before the page's subscription are not pushed to it
    asked: list[float] = []
    page.on("request", lambda r: "/conversations" in r.url and asked.append(time.monotonic()))
    feeder = feed_process(db, sid, RATE, SECONDS)
    fed_from = time.monotonic()
    try:
        # The rows come in: the page answers a click on one of them while the stream goes on.
        expect(page.get_by_test_id("row").first).to_be_visible()
        started = time.monotonic()
        page.get_by_test_id("follow").click()  # stop following: the rows stay where they are
        expect(page.get_by_test_id("follow")).not_to_be_checked()
        row = page.locator("[data-testid=row]").nth(3)
        seq = row.get_attribute("data-seq")
        row.click()
        expect(page.get_by_test_id("detail").locator("h2")).to_contain_text(f"#{seq}")
        answered = time.monotonic() - started
        assert feeder.poll() is None or answered < 5, "the stream ended before the click was checked"
        assert answered < 5, f"the clicks took {answered:.1f} s to stop following and open a message"
        page.keyboard.press("Escape")
        page.keyboard.press("G")  # follow the tail again (the click stopped following)
        expect(page.get_by_test_id("follow")).to_be_checked()
        assert feeder.wait(60) == 0
        # The conversations (derived from every row by the API) are not asked again on every count
        # change while the session grows: at most once per 3 s (they were asked ~10 times a second).
        streamed = time.monotonic() - fed_from
        during = [t for t in asked if t >= fed_from]
        assert len(during) <= 2 + streamed / 3, (len(during), round(streamed, 1))
    finally:
        if feeder.poll() is None:
            feeder.kill()
    # The last row reaches the final message.
    expect(page.locator(f"[data-testid=row][data-seq='{TOTAL}']")).to_be_visible()
    expect(page.get_by_test_id("total")).to_have_text(f"{TOTAL:,} messages")
    # Scrolled back through from the top: every message once, row i showing message i + 1. The page
    # scrolls itself window by window (one round trip, not five per window): each window is read once
    # it rendered (the scroll event's render comes a frame later: read before it, the rows are the last
    # window's, and a loaded machine skipped a view's rows), i.e. the rows at its first and last index
    # are attached and none is still loading, within 15 s.
    windows = page.get_by_test_id("rows").evaluate(SCROLL_BACK, {"total": TOTAL, "row": 26, "wait": 15_000})
    seen: set[int] = set()
    for top, at, shown in windows:
        assert shown is not None, f"the window at scrollTop {top} ({at}) did not render in 15 s"
        seqs = [s for s, _ in shown]
        assert len(seqs) == len(set(seqs)), f"a row shown twice at scrollTop {top}"
        assert all(s == i + 1 for s, i in shown), f"a row out of place at scrollTop {top}"
        seen.update(seqs)
    assert seen == set(range(1, TOTAL + 1)), sorted(set(range(1, TOTAL + 1)) - seen)[:10]
