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
from playwright.sync_api import Browser, Page, expect

from bench.scale_live import feed_process
from inspector.api import UiServer
from inspector.capture.sessions import create_session
from inspector.store import open_engine
from tests.e2e.conftest import new_context, subscribed

RATE = 2000
SECONDS = 1.5
TOTAL = int(RATE * SECONDS)

SHOWN = """() => [...document.querySelectorAll('[data-testid=row]')].map(
  (el) => [Number(el.dataset.seq), Number(el.dataset.index)])"""


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


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = new_context(browser)
    yield context.new_page()
    context.close()


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
    # Scrolled back through from the top: every message once, row i showing message i + 1.
    rows = page.get_by_test_id("rows")
    height = rows.evaluate("el => el.clientHeight")
    seen: set[int] = set()
    top = 0
    while len(seen) < TOTAL:
        at = rows.evaluate(f"el => {{ el.scrollTop = {top}; return el.scrollTop }}")
        # The window of that scroll rendered (the scroll event's render comes a frame later: read
        # before it, the rows are the last window's, and a loaded machine skipped a view's rows).
        for index in (int(at // 26), min(TOTAL - 1, int((at + height - 1) // 26))):
            expect(page.locator(f"[data-testid=row][data-index='{index}']")).to_be_attached()
        expect(page.locator(".row.loading")).to_have_count(0)
        shown = page.evaluate(SHOWN)
        seqs = [s for s, _ in shown]
        assert len(seqs) == len(set(seqs)), f"a row shown twice at scrollTop {top}"
        assert all(s == i + 1 for s, i in shown), f"a row out of place at scrollTop {top}"
        seen.update(seqs)
        if top > TOTAL * 26:
            break
        top += height
    assert seen == set(range(1, TOTAL + 1)), sorted(set(range(1, TOTAL + 1)) - seen)[:10]
