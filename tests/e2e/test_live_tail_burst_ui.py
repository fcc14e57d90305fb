"""Thousands of messages arriving faster than the feed's looks, into a timeline following the tail.

Each burst is one recorder commit of 3,000 messages, more than one look of the feed sends: the
feed sends the newest rows (a `truncated` event), and the timeline shows the last message from
them, without fetching the pages in between. While the bursts come the page stays usable: a
click opens a message, G follows the tail again, and no frame takes a second.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocket, expect

from bench.scale_live import REQ, RESP
from inspector.api import UiServer
from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import open_engine
from inspector.store.writer import StoreWriter
from tests.e2e.conftest import subscribed

BURST = 3000
BURSTS = 3

LONGEST_FRAME = """
window.__longest = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
}).observe({type: 'long-animation-frame', buffered: false});
"""


@pytest.fixture
def streaming(tmp_path: Path) -> Iterator[tuple[UiServer, Path, int]]:
    db = tmp_path / "live.db"
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["flooding-server"], name="bursts")
    server = UiServer(engine, port=0, live_interval=0.1).start()
    try:
        yield server, db, sid
    finally:
        server.stop()
        engine.dispose()


def test_bursts_past_one_look_show_their_last_row_at_once_and_the_page_stays_usable(
    page: Page, streaming: tuple[UiServer, Path, int]
) -> None:
    ui, db, sid = streaming
    pushed: list[dict[str, Any]] = []  # the `messages` events the page received

    def on_ws(ws: WebSocket) -> None:
        def frame(payload: str | bytes) -> None:
            text = payload if isinstance(payload, str) else payload.decode()
            if text.startswith('{"type":"messages"'):
                event = json.loads(text)
                pushed.append({"truncated": event["truncated"], "last": event["items"][-1]["seq"]})

        ws.on("framereceived", frame)

    pages_asked: list[str] = []
    page.on("websocket", on_ws)
    page.on("request", lambda r: "/messages?" in r.url and pages_asked.append(r.url))
    page.add_init_script(LONGEST_FRAME)
    page.goto(ui.url(f"/sessions/{sid}"))
    expect(page.get_by_test_id("follow")).to_be_checked()
    subscribed(ui, sid)  # rows written before the page's subscription are not pushed to it
    engine = open_engine(db)
    writer = StoreWriter(engine)
    builder = MessageBuilder(sid)
    try:
        for k in range(1, BURSTS + 1):
            rows: list[Any] = []
            while builder.seq < k * BURST:
                i = builder.seq
                rows += builder.feed(time.time_ns(), "c2s", "stdin", REQ % (i, i % 7, i))
                rows += builder.feed(time.time_ns(), "s2c", "stdout", RESP % (i, i))
            asked_before = len(pages_asked)
            writer.on_batch(rows, {})
            # The burst's last message shows at the tail, from the feed's newest rows.
            expect(page.locator(f"[data-testid=row][data-seq='{k * BURST}']")).to_be_visible(timeout=10_000)
            assert any(p["truncated"] and p["last"] == k * BURST for p in pushed), pushed[-3:]
            # Not the pages in between: at most the tail's own page or two.
            assert len(pages_asked) - asked_before <= 3, pages_asked[asked_before:]
            if k == 2:  # usable meanwhile: a click opens a message, G follows the tail again
                row = page.locator("[data-testid=row]").nth(2)
                seq = row.get_attribute("data-seq")
                row.click()
                expect(page.get_by_test_id("follow")).not_to_be_checked()
                expect(page.get_by_test_id("detail").locator("h2")).to_contain_text(f"#{seq}")
                page.keyboard.press("Escape")
                page.keyboard.press("G")
                expect(page.get_by_test_id("follow")).to_be_checked()
    finally:
        writer.close()
        engine.dispose()
    expect(page.get_by_test_id("total")).to_have_text(f"{BURSTS * BURST:,} messages")
    # Scrolled to a row the feed skipped: its page is fetched and shown in its place.
    page.get_by_test_id("follow").click()
    skipped = BURST + BURST // 2
    page.get_by_test_id("rows").evaluate(f"el => {{ el.scrollTop = {(skipped - 1) * 26} }}")
    expect(
        page.locator(f"[data-testid=row][data-seq='{skipped}'][data-index='{skipped - 1}']")
    ).to_be_visible()
    longest = page.evaluate("window.__longest")
    assert longest < 1000, f"a frame took {longest:.0f} ms"
