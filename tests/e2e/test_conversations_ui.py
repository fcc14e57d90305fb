"""Browser test: multi-round-trip conversations and retry pairs in the timeline and the lanes, and the
session header saying how a session without a session id was grouped (issue 18).

Recorded for real (tests/data/sessions/conversations_http.jsonl): the Python SDK 2.x client (the demo
driver, 2026-07-28) against the demo server through `mcp-inspect proxy`, then a hand-made client whose
answer the proxy's `disconnect` rule cut re-issuing its request. Read in Chromium. The file is the
`mcp-inspect export` of the sessions this module's fixture recorded until #36 (the same steps as
tests/integration/test_conversations.py, which records them on every run; the rules file's path made
neutral). To record it again: run those steps into a database (`demo`, `demo-no-discover`, `retry`,
in that order) and export the three sessions.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import list_sessions, open_engine
from tests.e2e.conftest import shot
from tests.sessions import load


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[UiServer, int, int, int]]:
    """The UI over a demo run, the same run without server/discover, and a retry pair (session ids)."""
    db = tmp_path_factory.mktemp("conversations-ui") / "rec.db"
    load(db, "conversations_http")
    engine = open_engine(db)
    ids = {s.name: s.id for s in list_sessions(engine) if s.message_count}
    engine.dispose()
    server = UiServer(open_engine(db), port=0).start()
    yield server, ids["demo"], ids["retry"], ids["demo-no-discover"]
    server.stop()


def test_conversations_grouped_in_timeline_and_lanes(
    recorded: tuple[UiServer, int, int, int], page: Page
) -> None:
    ui, sid, _retry, _other = recorded
    page.goto(ui.url("/"))  # the sessions list says how the session was grouped too
    expect(page.locator(f'tr[data-session-id="{sid}"]').get_by_test_id("list-grouping")).to_contain_text(
        "grouped by client identity inspector-demo-driver 0.1.0"
    )
    page.goto(f"{ui.base_url}/sessions/{sid}")
    expect(page.get_by_test_id("session-grouping")).to_contain_text(
        "grouped by client identity inspector-demo-driver 0.1.0, connection"
    )
    expect(page.get_by_test_id("session-grouping")).to_contain_text("idle gap 300 s")
    panel = page.get_by_test_id("conversations")
    expect(panel.locator("summary").first).to_have_text("3 multi-round-trip conversations")
    panel.locator("summary").first.click()
    book = panel.get_by_test_id("conversation").filter(has_text="book_table")
    expect(book).to_have_count(1)
    book.locator("summary").click()
    rounds = book.get_by_test_id("conv-round")
    expect(rounds).to_have_count(2)
    expect(rounds.nth(0)).to_contain_text("round 1 of 2")
    expect(rounds.nth(0)).to_contain_text("input_required")
    expect(rounds.nth(0)).to_contain_text("asks elicitation/create")
    expect(rounds.nth(1)).to_contain_text("answering inspector.demo._resolvers:ask_booking → complete")
    # The rows of one conversation carry its mark: both rounds visible, the final result marked.
    conv_id = book.get_attribute("data-id")
    rows = page.locator(f'[data-testid="row"][data-conv="{conv_id}"]')
    expect(rows).to_have_count(4)
    expect(rows.nth(0).get_by_test_id("conv-badge")).to_have_text(f"⟳#{conv_id} round 1 of 2")
    expect(rows.nth(3).get_by_test_id("conv-badge")).to_have_text(f"⟳#{conv_id} round 2 of 2 ✓ final")
    shot(page, "conversations-timeline")
    # The lanes draw each conversation as one bracket, each arrow with its round.
    page.get_by_role("link", name="Lanes").click()
    page.goto(f"{ui.base_url}/sessions/{sid}/lanes?from=1&to=60")
    expect(page.get_by_test_id("lane-conv")).to_have_count(3)
    expect(page.locator(f'[data-testid="lane-conv"][data-id="{conv_id}"]')).to_contain_text("2 rounds")
    expect(page.get_by_test_id("lane-round").filter(has_text="round 2/2")).to_have_count(6)
    shot(page, "conversations-lanes")


def test_retry_pair_linked_both_ways(recorded: tuple[UiServer, int, int, int], page: Page) -> None:
    ui, _sid, sid, _other = recorded
    page.goto(ui.url(f"/sessions/{sid}"))
    expect(page.get_by_test_id("conversations").locator("summary").first).to_have_text(
        "0 multi-round-trip conversations, 1 retry pair"
    )
    retried = page.get_by_test_id("retried-by")
    expect(retried).to_have_count(1)
    original_row = page.locator('[data-testid="row"]', has=retried)
    original = original_row.get_attribute("data-seq")
    retry_link = page.get_by_test_id("retry-of")
    expect(retry_link).to_have_text(f"retry of #{original}")
    retry_row = page.locator('[data-testid="row"]', has=retry_link)
    retry_seq = retry_row.get_attribute("data-seq")
    expect(retried).to_have_text(f"retried by #{retry_seq}")
    retry_link.click()  # opens the original
    expect(page).to_have_url(f"{ui.base_url}/sessions/{sid}/messages/{original}")


def test_diff_pairs_the_conversations_round_by_round(
    recorded: tuple[UiServer, int, int, int], page: Page
) -> None:
    ui, a, _retry, b = recorded
    page.goto(ui.url(f"/diff?a={a}&b={b}"))
    expect(page.get_by_test_id("count-changed")).to_have_text("0 changed")
    expect(page.get_by_test_id("count-missing")).to_have_text("1 missing")  # server/discover only
    page.get_by_test_id("only-diffs").uncheck()
    rows = page.get_by_test_id("diff-row")
    for name in ("ask_llm", "book_table", "list_client_roots"):
        for n in (1, 2):
            row = rows.filter(has_text=f"tools/call name={name} · round {n} of 2")
            expect(row).to_have_count(1)
            expect(row).to_contain_text("equal")
