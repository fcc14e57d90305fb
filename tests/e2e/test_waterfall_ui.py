"""The Waterfall tab in a real Chromium (issue #39 item 3): the spans drawn are the API's (`GET
/api/sessions/{id}/waterfall`), a server's sampling request drawn inside the tool call that sent it,
progress ticks on their request; brushing a range zooms to it, and its link shows the window's
messages in the timeline, filtered; the timeline's strip brushes the table's time filter too. The
screenshot is docs/waterfall.png."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx
from playwright.sync_api import Page, expect

from inspector.api import UiServer

ROOT = Path(__file__).resolve().parents[2]
DOCS_SHOT = ROOT / "docs" / "waterfall.png"


def _api(ui: UiServer, path: str, **params: int) -> dict:
    with httpx.Client(base_url=ui.base_url, timeout=30, headers={"authorization": f"Bearer {ui.token}"}) as c:
        answer = c.get(path, params=params)
    assert answer.status_code == 200, answer.text[:300]
    return answer.json()


def _range(page: Page) -> tuple[int, int]:
    query = parse_qs(urlparse(page.url).query)
    return int(query["from"][0]), int(query["to"][0])


def test_the_waterfall_draws_the_apis_spans_and_brushes_the_timeline(page: Page, ui: UiServer) -> None:
    found = _api(ui, "/api/sessions/1/waterfall")  # the demo: sampling, elicitation, roots, progress
    spans = found["lanes"][0]["spans"]
    nested = [s for s in spans if s["parent_seq"] is not None]
    page.set_viewport_size({"width": 1400, "height": 860})
    page.goto(ui.url("/sessions/1"))
    page.get_by_test_id("waterfall-tab").click()
    expect(page).to_have_url(re.compile(r"/sessions/1/waterfall"))
    drawn = page.get_by_test_id("wf-span")
    expect(drawn).to_have_count(len(spans) - len(nested))
    assert [int(s) for s in drawn.evaluate_all("els => els.map(e => e.dataset.seq)")] == [
        s["seq"] for s in spans if s["parent_seq"] is None
    ]
    # each nested request inside its parent's bar
    inner = page.get_by_test_id("wf-nested")
    expect(inner).to_have_count(len(nested))
    for s in nested:
        child = page.locator(f"[data-testid=wf-nested][data-seq='{s['seq']}']")
        assert child.get_attribute("data-parent") == str(s["parent_seq"])
        parent = page.locator(f"[data-testid=wf-span][data-seq='{s['parent_seq']}']").bounding_box()
        box = child.bounding_box()
        assert (
            parent
            and box
            and parent["x"] - 1 <= box["x"]
            and box["x"] + box["width"] <= parent["x"] + parent["width"] + 1
        )
    expect(page.get_by_test_id("wf-tick")).to_have_count(sum(len(s["progress"]) for s in spans))

    # docs/waterfall.png: the tool calls from count_slowly (progress) to list_client_roots (roots),
    # ask_llm's sampling and book_table's elicitation inside them; a window in the URL.
    by_seq = {s["seq"]: s for s in spans}
    lo, hi = by_seq[18]["start_ns"] - 2_000_000, by_seq[35]["end_ns"] + 6_000_000
    page.set_viewport_size({"width": 1400, "height": 520})
    page.goto(f"{ui.base_url}/sessions/1/waterfall?from={lo}&to={hi}")
    expect(page.get_by_test_id("wf-nested")).to_have_count(3)
    expect(page.get_by_test_id("wf-tick")).to_have_count(3)
    DOCS_SHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS_SHOT))

    # Brush across the sampling call's bar (its start to its end): the window zooms to it, from the
    # spans at hand (every span of the larger window came one by one: no request).
    asked: list[str] = []
    page.on("request", lambda r: "/waterfall" in r.url and asked.append(r.url))
    sampling = next(s for s in nested if s["method"] == "sampling/createMessage")
    bar = page.locator(f"[data-testid=wf-span][data-seq='{sampling['parent_seq']}']").bounding_box()
    assert bar
    y = bar["y"] + bar["height"] / 2
    page.mouse.move(bar["x"] - 4, y)
    page.mouse.down()
    page.mouse.move(bar["x"] + bar["width"] / 2, y, steps=3)
    page.mouse.move(bar["x"] + bar["width"] + 4, y, steps=3)
    page.mouse.up()
    expect(page).to_have_url(re.compile(r"from=\d+&to=\d+"))
    lo, hi = _range(page)
    window = _api(ui, "/api/sessions/1/waterfall", from_ns=lo, to_ns=hi)
    expect(page.get_by_test_id("wf-span")).to_have_count(
        len([s for s in window["lanes"][0]["spans"] if s["parent_seq"] is None])
    )
    wide = page.locator(f"[data-testid=wf-span][data-seq='{sampling['parent_seq']}']").bounding_box()
    assert wide and wide["width"] > 0.3 * (1400 - 300)  # zoomed: the call fills a good part of the plot
    assert asked == []
    with page.expect_request(lambda r: "/waterfall" in r.url):  # past what is at hand: asked for
        for _ in range(3):
            page.get_by_test_id("wf-zoom-out").click()
    expect(page).not_to_have_url(re.compile(rf"from={lo}&"))
    lo, hi = _range(page)

    # The window's messages in the timeline: the table filtered to the range.
    page.get_by_test_id("wf-to-timeline").click()
    expect(page).to_have_url(re.compile(rf"/sessions/1\?from={lo}&to={hi}$"))
    want = _api(ui, "/api/sessions/1/messages", from_ns=lo, to_ns=hi)["items"]
    rows = page.get_by_test_id("row")
    expect(rows).to_have_count(len(want))
    assert [int(s) for s in rows.evaluate_all("els => els.map(e => e.dataset.seq)")] == [
        r["seq"] for r in want
    ]

    # The timeline's strip: a click clears the range (every row), a drag sets one (fewer rows).
    strip = page.get_by_test_id("wf-strip")
    expect(page.get_by_test_id("wf-strip-range")).to_be_visible()
    box = strip.bounding_box()
    assert box
    strip.click(position={"x": 5, "y": 5})
    expect(page).not_to_have_url(re.compile(r"from="))
    expect(page.get_by_test_id("total")).to_contain_text("52 messages")
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + 10)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.99, box["y"] + 10, steps=4)
    page.mouse.up()
    expect(page).to_have_url(re.compile(r"from=\d+&to=\d+"))
    lo, hi = _range(page)
    total = len(_api(ui, "/api/sessions/1/messages", from_ns=lo, to_ns=hi, limit=1000)["items"])
    assert 0 < total < 52
    expect(page.get_by_test_id("total")).to_contain_text(f"{total} matching")
