"""The timeline's correctness at scale in Chromium (issue #21): page boundaries, deep links into the
middle, a filter combined with a text search (checked against the API), and live rows arriving while
the view is scrolled away from the tail."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from bench.ui_data import generate
from inspector.api import UiServer
from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, open_engine

BIG = 12_000  # 60 pages of 200
LIVE = 5_000
PAGE = 200  # the timeline's page (web/src/timeline/rowStore.ts)
ROW = 26  # its row height (web/src/views/Timeline.tsx)
REQ = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"live%d"}}\n'


class Live:
    """A recording session written through the recorder's own builder and writer."""

    def __init__(self, db: Path) -> None:
        self.engine = open_engine(db)
        self.sid = create_session(self.engine, kind="stdio-wrap", target=["live-server"], name="live")
        self.builder = MessageBuilder(self.sid)
        self.writer = SessionWriter(self.engine, self.sid)
        self.ts = 1_700_000_000_000_000_000
        self.n = 0

    def append(self, count: int) -> None:
        rows: list[Any] = []
        for _ in range(count):
            self.n += 1
            self.ts += 1_000_000
            rows += self.builder.feed(self.ts, "c2s", "stdin", REQ % (self.n, self.n))
        self.writer.on_batch(rows, None)

    def end(self) -> None:
        self.writer.on_end(0, "test over", self.builder.facts.snapshot())
        self.engine.dispose()


@pytest.fixture(scope="module")
def scale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[UiServer, int, Live]]:
    db = tmp_path_factory.mktemp("timeline-scale") / "scale.db"
    big = generate(db, BIG, name="12k")
    live = Live(db)
    live.append(LIVE)
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server, big, live
    server.stop()
    live.end()


def api(server: UiServer, path: str, **params: Any) -> Any:
    r = httpx.get(
        server.base_url + path, params=params, headers={"authorization": f"Bearer {server.token}"}, timeout=30
    )
    r.raise_for_status()
    return r.json()


def scroll_to_index(page: Page, index: int) -> None:
    page.get_by_test_id("rows").evaluate(f"el => {{ el.scrollTop = {index * ROW} }}")


def test_rows_at_page_boundaries_and_the_last_row_have_their_seq(page: Page, scale: Any) -> None:
    server, sid, _ = scale
    page.goto(server.url(f"/sessions/{sid}"))
    expect(page.get_by_test_id("total")).to_have_text(f"{BIG:,} messages")
    for index in (PAGE - 1, PAGE, PAGE + 1, 30 * PAGE - 1, 30 * PAGE):
        scroll_to_index(page, index - 2)
        row = page.locator(f"[data-testid=row][data-index='{index}']")
        expect(row).to_have_attribute("data-seq", str(index + 1))
        expect(row.locator(".c-seq")).to_have_text(str(index + 1))
    page.get_by_test_id("rows").evaluate("el => { el.scrollTop = el.scrollHeight }")
    last = page.locator(f"[data-testid=row][data-index='{BIG - 1}']")
    expect(last).to_have_attribute("data-seq", str(BIG))
    assert page.locator(f"[data-testid=row][data-index='{BIG}']").count() == 0
    # Filtered, row i is the API's i-th match, on both sides of a page boundary and at the end.
    page.goto(server.url(f"/sessions/{sid}?method=tools/call"))
    total = api(server, f"/api/sessions/{sid}/messages", method="tools/call", limit=1, count="true")["total"]
    expect(page.get_by_test_id("total")).to_have_text(f"{total:,} matching")
    for index in (PAGE - 1, PAGE, PAGE + 1, total - 1):
        want = api(server, f"/api/sessions/{sid}/messages", method="tools/call", offset=index, limit=1)
        scroll_to_index(page, index - 2)
        row = page.locator(f"[data-testid=row][data-index='{index}']")
        expect(row).to_have_attribute("data-seq", str(want["items"][0]["seq"]))
        expect(row).to_contain_text("tools/call")


def test_a_deep_link_to_a_middle_row_opens_scrolled_to_it_and_selected(page: Page, scale: Any) -> None:
    server, sid, _ = scale
    seq = BIG // 2 + 1
    page.goto(server.url(f"/sessions/{sid}/messages/{seq}"))
    row = page.locator(f"[data-testid=row][data-seq='{seq}']")
    expect(row).to_be_in_viewport()
    expect(row).to_have_class(re.compile(r"\bselected\b"))
    expect(row).to_have_class(re.compile(r"\bopen\b"))
    expect(page.get_by_test_id("detail").locator("h2")).to_contain_text(f"#{seq}")
    # Under a filter: the row sits at its position among the matches.
    middle = api(server, f"/api/sessions/{sid}/messages", method="tools/call", offset=700, limit=1)
    seq = middle["items"][0]["seq"]
    page.goto(server.url(f"/sessions/{sid}/messages/{seq}?method=tools/call"))
    row = page.locator(f"[data-testid=row][data-seq='{seq}']")
    expect(row).to_be_in_viewport()
    expect(row).to_have_attribute("data-index", "700")
    expect(row).to_have_class(re.compile(r"\bselected\b"))


def test_a_filter_with_a_text_search_shows_exactly_the_matching_rows(page: Page, scale: Any) -> None:
    server, sid, _ = scale
    want = api(
        server, f"/api/sessions/{sid}/messages", method="tools/call", q="tool3", limit=5000, count="true"
    )
    seqs = [r["seq"] for r in want["items"]]
    assert 100 < want["total"] == len(seqs) < 1000  # several pages, all checked
    page.goto(server.url(f"/sessions/{sid}"))
    expect(page.locator("[data-testid=row][data-seq='1']")).to_be_visible()
    page.get_by_test_id("method-filter").select_option("tools/call")
    page.get_by_test_id("search").fill("tool3")
    page.get_by_test_id("search").press("Enter")
    expect(page).to_have_url(re.compile(r"q=tool3"))
    expect(page.get_by_test_id("total")).to_have_text(f"{len(seqs):,} matching")
    shown: dict[int, int] = {}
    for top in range(0, len(seqs), 20):
        scroll_to_index(page, top)
        expect(
            page.locator(f"[data-testid=row][data-index='{min(top + 10, len(seqs) - 1)}']")
        ).to_be_attached()
        for index, seq in page.locator("[data-testid=row]").evaluate_all(
            "rows => rows.map(r => [Number(r.dataset.index), Number(r.dataset.seq)])"
        ):
            shown[index] = seq
    assert [shown[i] for i in range(len(seqs))] == seqs
    assert max(shown) == len(seqs) - 1


def test_live_rows_while_scrolled_to_the_middle_leave_the_view_and_show_at_the_tail(
    page: Page, scale: Any
) -> None:
    server, _, live = scale
    page.goto(server.url(f"/sessions/{live.sid}"))
    expect(page.get_by_test_id("session-state")).to_have_text("recording")
    expect(page.get_by_test_id("follow")).to_be_checked()
    expect(page.locator(f"[data-testid=row][data-seq='{LIVE}']")).to_be_visible()
    # The person scrolls up with the wheel: following stops there.
    rows = page.get_by_test_id("rows")
    rows.hover()
    while rows.evaluate("el => el.scrollTop") > (LIVE // 2) * ROW:
        page.mouse.wheel(0, -20_000)
    expect(page.get_by_test_id("follow")).not_to_be_checked()
    top = rows.evaluate("el => el.scrollTop")
    first = rows.evaluate(
        "el => [...el.querySelectorAll('[data-testid=row]')].find(r => r.getBoundingClientRect().top"
        " >= el.getBoundingClientRect().top).dataset.seq"
    )
    live.append(300)
    expect(page.get_by_test_id("total")).to_have_text(f"{LIVE + 300:,} messages")
    page.wait_for_timeout(300)  # a render after the rows arrived
    assert rows.evaluate("el => el.scrollTop") == top
    assert page.locator(f"[data-testid=row][data-seq='{first}']").is_visible()
    rows.evaluate("el => { el.scrollTop = el.scrollHeight }")
    tail = page.locator(f"[data-testid=row][data-seq='{LIVE + 300}']")
    expect(tail).to_be_visible()
    expect(tail).to_contain_text("tools/call")


def test_live_rows_under_a_filter_show_as_the_server_matches_them(page: Page, scale: Any) -> None:
    # The server alone says which new rows match a filtered timeline (no copy of its filter in the UI).
    server, _, live = scale
    before = api(server, f"/api/sessions/{live.sid}/messages", method="tools/call", limit=1, count="true")[
        "total"
    ]
    page.goto(server.url(f"/sessions/{live.sid}?method=tools/call"))
    expect(page.get_by_test_id("total")).to_have_text(f"{before:,} matching")
    live.append(40)
    expect(page.get_by_test_id("total")).to_have_text(f"{before + 40:,} matching")
    rows = page.get_by_test_id("rows")
    rows.evaluate("el => { el.scrollTop = el.scrollHeight }")
    expect(page.locator(f"[data-testid=row][data-seq='{live.n}']")).to_be_visible()
