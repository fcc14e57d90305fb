"""Volatile values in the web diff, in a real Chromium, after real replays started from the UI.

The clock peer (tests/peers/clock_server.py) answers with the time to the
nanosecond; its recording (greet Ada, now, now) is replayed from the replay
dialog against the same server (every answer differs only in clock-like
parts: volatile) and against it with another greeting word (one real change).
A volatile exchange is shown muted with a "volatile" badge and its tooltip,
counted apart ("1 changed", "2 volatile"), does not turn the verdict to
"behaviour changed", and "Treat volatile as changes" (the checkbox, the `v`
key, or the replay dialog's option) re-reads the diff in strict mode.
Before this the diff view showed them as plain "changed" exchanges and the
verdict followed the API's lenient default with no way to switch.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.api.recordings import CLOCK
from tests.e2e.conftest import shot
from tests.sessions import load

TIP = "differs only in clock-like parts: times, dates, ids, counters"


@pytest.fixture(scope="module")
def clock_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """A UI server on a database of this module's own (replays write into it); session 1: the clock
    (`record_clock`'s recording through the real shim, exported as tests/data/sessions/clock.jsonl)."""
    db: Path = tmp_path_factory.mktemp("e2e-volatile") / "clock.db"
    assert load(db, "clock") == 1
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server
    server.stop()


def _replay_from_the_dialog(page: Page, ui: UiServer, command: list[str], strict: bool = False) -> None:
    page.goto(ui.url("/sessions/1"))
    expect(page.get_by_test_id("session-title")).to_contain_text("clock")
    page.get_by_test_id("replay-open").click()
    dialog = page.get_by_test_id("replay-dialog")
    dialog.get_by_test_id("replay-command").fill(shlex.join(command))
    if strict:
        dialog.get_by_test_id("replay-strict-volatile").check()
    dialog.get_by_test_id("replay-start").click()
    expect(page).to_have_url(re.compile(r"/diff\?a=1&b=\d+"), timeout=60_000)


def _counts(page: Page, changed: int, volatile: str) -> None:
    expect(page.get_by_test_id("count-changed")).to_have_text(f"{changed} changed")
    expect(page.get_by_test_id("count-volatile")).to_have_text(volatile)


def _background(locator: Locator) -> str:
    return str(locator.evaluate("e => getComputedStyle(e).backgroundColor"))


def test_volatile_exchanges_are_muted_counted_apart_and_toggle_to_changes(
    page: Page, clock_ui: UiServer
) -> None:
    _replay_from_the_dialog(page, clock_ui, CLOCK)  # the same server: only the clock moved
    expect(page.get_by_test_id("verdict")).to_have_text("behaviour unchanged")
    _counts(page, 0, "3 volatile")
    expect(page.get_by_test_id("count-volatile")).to_have_attribute("title", re.compile(TIP))
    rows = page.get_by_test_id("diff-row")
    volatile = page.locator("[data-testid=diff-row][data-status=volatile]")
    expect(volatile).to_have_count(3)
    expect(rows.filter(has_text="tools/call name=now")).to_have_count(2)
    badge = volatile.first.locator(".c-status .badge").first
    expect(badge).to_have_text("volatile")
    expect(badge).to_have_attribute("title", TIP)
    equal_badge = page.locator("[data-testid=diff-row][data-status=equal] .badge").first
    # Muted like an equal exchange, not the colour of a change.
    assert _background(badge) == _background(equal_badge)
    shot(page, "diff-volatile-light")

    # Its change is listed with the badge; the JSON marks it muted ("volatile"), not as a change.
    volatile.filter(has_text="tools/call name=now").first.click()
    detail = page.get_by_test_id("exchange-detail")
    expect(detail.get_by_test_id("volatile-badge").first).to_have_attribute("title", TIP)
    hits = detail.get_by_test_id("side-replay").get_by_test_id("diff-hit")
    expect(hits.first).to_have_attribute("data-mark", "volatile")

    # The toggle re-reads the diff in strict mode: the same exchanges now count as changes.
    page.get_by_test_id("strict-volatile").check()
    expect(page).to_have_url(re.compile(r"strict=1"))
    expect(page.get_by_test_id("verdict")).to_have_text("behaviour changed")
    _counts(page, 3, "of which 3 volatile")
    expect(page.locator("[data-testid=diff-row][data-status=changed]")).to_have_count(3)
    expect(page.locator("[data-testid=diff-row] [data-testid=volatile-badge]")).to_have_count(3)
    expect(hits.first).to_have_attribute("data-mark", "changed")
    shot(page, "diff-volatile-strict-light")
    rows.first.focus()  # keys go to the view, not to the checkbox
    page.keyboard.press("v")  # and back, by key
    expect(page).not_to_have_url(re.compile(r"strict=1"))
    expect(page.get_by_test_id("verdict")).to_have_text("behaviour unchanged")
    _counts(page, 0, "3 volatile")


def test_a_real_change_beside_volatile_ones_and_the_dialogs_strict_option(
    page: Page, clock_ui: UiServer
) -> None:
    env = shutil.which("env")
    assert env is not None
    _replay_from_the_dialog(page, clock_ui, [env, "GREETING=Howdy", *CLOCK], strict=True)
    expect(page).to_have_url(re.compile(r"strict=1"))
    expect(page.get_by_test_id("strict-volatile")).to_be_checked()
    expect(page.get_by_test_id("verdict")).to_have_text("behaviour changed")
    _counts(page, 3, "of which 2 volatile")
    page.get_by_test_id("strict-volatile").uncheck()
    _counts(page, 1, "2 volatile")
    expect(page.get_by_test_id("verdict")).to_have_text("behaviour changed")  # the word changed
    changed = page.locator("[data-testid=diff-row][data-status=changed]")
    expect(changed).to_have_count(1)
    expect(changed).to_contain_text("tools/call name=greet")
    expect(page.locator("[data-testid=diff-row][data-status=volatile]")).to_have_count(2)
    changed.click()
    detail = page.get_by_test_id("exchange-detail")
    expect(detail.get_by_test_id("changes")).to_contain_text("Howdy")
    expect(detail.get_by_test_id("volatile-badge")).to_have_count(0)
    expect(detail.get_by_test_id("side-replay").get_by_test_id("diff-hit").first).to_have_attribute(
        "data-mark", "changed"
    )
    page.get_by_test_id("only-diffs").check()
    expect(page.get_by_test_id("diff-row")).to_have_count(3)  # volatile ones are differences too
    shot(page, "diff-volatile-and-changed-light")
