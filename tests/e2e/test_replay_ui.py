"""Replay, diff and mock server in a real Chromium: the replay dialog against the demo's variant
(a real subprocess spawned by the UI server), the diff view with its highlighted paths, "Diff
with…", and the mock-server commands. Screenshots in light and dark go to tests/artifacts/."""

from __future__ import annotations

import contextlib
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

from inspector.api import UiServer
from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, open_engine
from tests.e2e.conftest import shot
from tests.sessions import load
from tests.warm_peers import demo_argv

VARIANT_CHANGES = ["tools/list", "tools/call name=weather", "tools/call name=fail"]


@pytest.fixture(scope="module")
def replay_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of this module's own (replays write into it); session 1 is the demo (recorded
    through the shim, tests/data/sessions/demo.jsonl)."""
    db = tmp_path_factory.mktemp("e2e-replay") / "replay.db"
    assert load(db, "demo", name="demo") == 1
    return db


@pytest.fixture(scope="module")
def replay_ui(replay_db: Path) -> Iterator[UiServer]:
    server = UiServer(open_engine(replay_db), port=0, live_interval=0.1).start()
    yield server
    server.stop()


def _page(context: BrowserContext, theme: str) -> Iterator[Page]:
    """A tab of the shared context (tests/e2e/conftest.py, `context`) in `theme`."""
    page = context.new_page()
    page.emulate_media(color_scheme=theme)  # type: ignore[arg-type]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    page.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture(params=["light", "dark"])
def themed(context: BrowserContext, request: pytest.FixtureRequest) -> Iterator[tuple[Page, str]]:
    for page in _page(context, request.param):
        yield page, request.param


def _fill_the_dialog(page: Page, ui: UiServer, theme: str) -> Locator:
    """The session's replay dialog, prefilled with the recorded command, filled in for the variant."""
    page.goto(ui.url("/sessions/1"))
    expect(page.get_by_test_id("session-title")).to_contain_text("demo")
    expect(page.locator("html")).to_have_attribute("data-theme", theme)
    page.get_by_test_id("replay-open").click()
    dialog = page.get_by_test_id("replay-dialog")
    expect(dialog).to_be_visible()
    command = dialog.get_by_test_id("replay-command")
    # Prefilled with the recorded server command; the variant is "the next version" of that server.
    expect(command).to_have_value(re.compile(r"-m inspector\.demo$"))
    # The variant: a process of its own, forked warm (tests/warm_peers.py).
    command.fill(shlex.join(demo_argv("--variant")))
    dialog.get_by_test_id("replay-ignore").fill("**.nothingLikeThis")
    shot(page, f"replay-dialog-{theme}")
    return dialog


def _replay_the_variant(page: Page, ui: UiServer, theme: str) -> None:
    dialog = _fill_the_dialog(page, ui, theme)
    dialog.get_by_test_id("replay-start").click()
    expect(page).to_have_url(re.compile(r"/diff\?a=1&b=\d+&ignore=\*\*\.nothingLikeThis"), timeout=60_000)


def _the_diff_shows_the_variants_changes(page: Page, theme: str) -> None:
    expect(page.locator("html")).to_have_attribute("data-theme", theme)
    expect(page.get_by_test_id("verdict")).to_have_text("behaviour changed")
    expect(page.get_by_test_id("count-changed")).to_have_text("3 changed")
    expect(page.get_by_test_id("count-missing")).to_have_text("0 missing")
    rows = page.get_by_test_id("diff-row")
    expect(rows.first).to_be_visible()
    assert rows.count() > 20  # every exchange, equal ones included
    page.get_by_test_id("only-diffs").check()
    expect(page).to_have_url(re.compile(r"only=1"))
    expect(rows).to_have_count(3)
    expect(rows.locator(".c-side:nth-child(2)")).to_contain_text(VARIANT_CHANGES)
    for row in rows.all():
        expect(row).to_have_attribute("data-status", "changed")

    rows.filter(has_text="weather").click()
    detail = page.get_by_test_id("exchange-detail")
    expect(detail.get_by_test_id("change-path").filter(has_text="temperature_c")).to_have_text(
        "result.structuredContent.temperature_c"
    )
    for side, value in (("side-original", "20.5"), ("side-replay", "21.5")):
        path = '["result","structuredContent","temperature_c"]'
        hit = detail.get_by_test_id(side).locator(f"[data-testid=diff-hit][data-path='{path}']")
        expect(hit).to_be_visible()
        expect(hit).to_have_text(f'"temperature_c": {value},')
        expect(hit).to_have_attribute("data-mark", "changed")
        expect(hit).to_have_css("box-shadow", re.compile(r"inset"))
    shot(page, f"diff-weather-{theme}")

    # The fail tool is gone from tools/list: removed on the original side, nothing to mark on the replay side.
    rows.filter(has_text="tools/list").click()
    original = detail.get_by_test_id("side-original").get_by_test_id("diff-hit")
    expect(original).to_have_count(1)
    expect(original).to_have_attribute("data-mark", "removed")
    expect(original).to_contain_text('"fail"')
    expect(detail.get_by_test_id("side-replay").get_by_test_id("diff-hit")).to_have_count(0)
    shot(page, f"diff-tools-list-{theme}")


def test_replay_from_the_dialog_lands_on_the_diff_with_highlighted_paths(
    context: BrowserContext, replay_ui: UiServer
) -> None:
    # One replay (the variant's server is a process the UI server starts), seen in both themes: the
    # dialog and the diff it lands on in light, then the dialog and that diff in a dark tab.
    with contextlib.contextmanager(_page)(context, "light") as page:
        _replay_the_variant(page, replay_ui, "light")
        landed = page.url
        _the_diff_shows_the_variants_changes(page, "light")
    with contextlib.contextmanager(_page)(context, "dark") as page:
        _fill_the_dialog(page, replay_ui, "dark")
        page.keyboard.press("Escape")
        expect(page.get_by_test_id("replay-dialog")).to_have_count(0)
        page.goto(landed)
        _the_diff_shows_the_variants_changes(page, "dark")


def test_diff_view_keyboard_and_diff_with_dialog(page: Page, replay_ui: UiServer) -> None:
    # A replay session from the first test, or made here when this test runs alone.
    page.goto(replay_ui.url("/?kind=replay"))
    if page.locator("[data-session-id]").count() == 0:
        _replay_the_variant(page, replay_ui, "light")
        page.goto(f"{replay_ui.base_url}/?kind=replay")
    replay_row = page.locator("[data-session-id]").first
    replay_id = replay_row.get_attribute("data-session-id")
    replay_row.get_by_role("link").click()
    expect(page.get_by_test_id("diff-parent")).to_be_visible()  # a replay links to its original
    page.get_by_test_id("diff-with-open-dialog").click()
    dialog = page.get_by_test_id("diff-with-dialog")
    expect(dialog.get_by_test_id("diff-with-select")).to_have_value("1")  # its original is proposed
    dialog.get_by_test_id("diff-with-open").click()
    expect(page).to_have_url(re.compile(rf"/diff\?a=1&b={replay_id}$"))
    expect(page.get_by_test_id("count-changed")).to_have_text("3 changed")
    expect(page.get_by_test_id("diff-original")).to_contain_text("demo")
    expect(page.get_by_test_id("diff-replay")).to_contain_text(f"#{replay_id} replay of #1")
    shot(page, "diff-all-light")
    # Keys: d = only differences, j/k move, Enter opens, Esc closes.
    page.keyboard.press("d")
    expect(page.get_by_test_id("diff-row")).to_have_count(3)
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"open=\d+"))
    expect(page.get_by_test_id("exchange-detail")).to_contain_text("result.structuredContent.temperature_c")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("exchange-detail")).to_have_count(0)
    # A diff of a session with itself is unchanged; an unknown session is a clear error.
    page.goto(f"{replay_ui.base_url}/diff?a=1&b=1")
    expect(page.get_by_test_id("verdict")).to_have_text("behaviour unchanged")
    page.goto(f"{replay_ui.base_url}/diff?a=1&b=987")
    expect(page.get_by_test_id("diff-error")).to_contain_text("987")


def test_replay_dialog_shows_bad_targets_and_failed_jobs(page: Page, replay_ui: UiServer) -> None:
    page.goto(replay_ui.url("/sessions/1"))
    expect(page.get_by_test_id("session-title")).to_contain_text("demo")
    page.keyboard.press("Shift+R")  # the key for "Replay…"
    dialog = page.get_by_test_id("replay-dialog")
    dialog.get_by_test_id("replay-command").fill("no-such-server-xyz --flag")
    dialog.get_by_test_id("replay-start").click()
    expect(dialog.get_by_test_id("replay-error")).to_contain_text("no-such-server-xyz")
    dialog.get_by_label("URL (Streamable HTTP, or …/sse)").check()
    dialog.get_by_test_id("replay-url").fill("ftp://example/mcp")
    dialog.get_by_test_id("replay-start").click()
    expect(dialog.get_by_test_id("replay-error")).to_contain_text("http:// or https://")
    dialog.get_by_test_id("replay-url").fill("http://127.0.0.1:9/mcp")
    dialog.get_by_test_id("replay-start").click()
    state = dialog.get_by_test_id("replay-state")
    expect(state).to_have_attribute("data-state", "failed", timeout=60_000)
    expect(state).to_contain_text("could not run")
    shot(page, "replay-failed-light")
    expect(state.get_by_role("link", name=re.compile(r"Open the replay session #\d+"))).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)


def test_mock_server_dialog_shows_the_commands(
    themed: tuple[Page, str], replay_ui: UiServer, replay_db: Path
) -> None:
    page, theme = themed
    page.goto(replay_ui.url("/sessions/1"))
    page.get_by_test_id("mock-open").click()
    dialog = page.get_by_test_id("mock-dialog")
    db = str(replay_db.resolve())
    expect(dialog.get_by_test_id("mock-stdio")).to_have_text(
        re.compile(rf"mcp-inspect mock-server 1 --db {re.escape(db)}$")
    )
    expect(dialog.get_by_test_id("mock-http")).to_have_text(
        re.compile(r"mock-server 1 --db .* --http 127\.0\.0\.1:\d+$")
    )
    port = re.search(r":(\d+)$", dialog.get_by_test_id("mock-http").inner_text()).group(1)  # type: ignore[union-attr]
    expect(dialog.get_by_test_id("mock-url")).to_have_text(f"http://127.0.0.1:{port}/mcp")
    expect(dialog.get_by_test_id("mock-config")).to_contain_text('"mcpServers"')
    expect(dialog.get_by_test_id("mock-config")).to_contain_text('"mock-server"')
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    dialog.get_by_test_id("mock-stdio-copy").click()
    expect(dialog.get_by_test_id("mock-stdio-copy")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == dialog.get_by_test_id("mock-stdio").inner_text()
    shot(page, f"mock-server-{theme}")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)


def _written(db: Path, name: str, lines: list[tuple[str, dict[str, object]]]) -> int:
    """A finished session written through the recorder's builder and the store's writer."""
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["server"], name=name)
    builder = MessageBuilder(sid)
    rows: list[dict[str, object]] = []
    for i, (direction, obj) in enumerate(lines):
        channel = "stdin" if direction == "c2s" else "stdout"
        rows += builder.feed(
            1_700_000_000_000_000_000 + i * 1_000_000, direction, channel, json.dumps(obj).encode() + b"\n"
        )
    writer = SessionWriter(engine, sid)
    writer.on_batch(rows, builder.facts.snapshot())
    writer.on_end(0, "client-eof", builder.facts.snapshot())
    engine.dispose()
    return sid


def _call(i: int, name: str) -> tuple[str, dict[str, object]]:
    params = {"name": name, "_meta": {"progressToken": "t"}}
    return "c2s", {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}


def _result(i: int, text: str) -> tuple[str, dict[str, object]]:
    return "s2c", {"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": text}]}}


def _progress(n: int) -> tuple[str, dict[str, object]]:
    params = {"progressToken": "t", "progress": n}
    return "s2c", {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}


def test_missing_extra_and_notification_changes_are_shown_on_their_side(
    page: Page, replay_ui: UiServer, replay_db: Path
) -> None:
    a = _written(
        replay_db,
        "before",
        [
            _call(1, "a"),
            _result(1, "A"),
            _call(2, "gone"),
            _result(2, "bye"),
            _call(3, "slow"),
            _progress(1),
            _result(3, "ok"),
        ],
    )
    b = _written(
        replay_db,
        "after",
        [
            _call(1, "a"),
            _result(1, "B"),
            _call(2, "new"),
            _result(2, "hi"),
            _call(3, "slow"),
            _progress(1),
            _progress(2),
            _result(3, "ok"),
        ],
    )
    page.goto(replay_ui.url(f"/diff?a={a}&b={b}"))
    for status, n in (("equal", 0), ("changed", 2), ("missing", 1), ("extra", 1)):
        expect(page.get_by_test_id(f"count-{status}")).to_have_text(f"{n} {status}")
    rows = page.get_by_test_id("diff-row")
    expect(rows).to_have_count(4)
    statuses = [r.get_attribute("data-status") for r in rows.all()]
    assert statuses == ["changed", "missing", "extra", "changed"]  # an extra follows what it replaces
    detail = page.get_by_test_id("exchange-detail")

    rows.nth(1).click()  # gone: the whole original side is marked removed, the replay has nothing
    expect(detail.get_by_test_id("side-original").get_by_test_id("diff-hit")).to_have_attribute(
        "data-mark", "removed"
    )
    expect(detail.get_by_test_id("side-original")).to_contain_text('"gone"')
    expect(detail.get_by_test_id("side-replay")).to_contain_text("not in this session")
    rows.nth(2).click()  # new: only in the replay
    expect(detail.get_by_test_id("side-replay").get_by_test_id("diff-hit")).to_have_attribute(
        "data-mark", "added"
    )
    expect(detail.get_by_test_id("side-original")).to_contain_text("not in this session")

    rows.nth(3).click()  # slow: one more progress notification in the replay
    expect(detail.get_by_test_id("change-path")).to_have_text("notifications[notifications/progress]")
    expect(detail.get_by_test_id("changes")).to_contain_text("1 → 2 received")
    notes = '["notifications","notifications/progress"]'
    for side, count in (("side-original", 1), ("side-replay", 2)):
        hit = detail.get_by_test_id(side).locator(f"[data-testid=diff-hit][data-path='{notes}']")
        expect(hit.locator(".jv-number", has_text=re.compile(r"^\d$"))).to_have_count(count)
    shot(page, "diff-missing-extra-light")
