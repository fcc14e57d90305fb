"""Working with the server in the Connect workspace, in Chromium: ping, log level and log pane,
subscriptions and updates, completions as you type, progress bars, cancel, tasks; against
server-everything (stdio) and the demo server (Streamable HTTP). Every step is in the recorded session.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import list_sessions, open_engine
from tests.conftest import EVERYTHING_BIN
from tests.e2e.conftest import shot
from tests.e2e.in_thread import demo_http
from tests.e2e.test_client_ui import client_ui  # noqa: F401 - the fixture
from tests.recorded import rows_until

SLOW = 60_000  # ms, for steps that wait on the server


def _recorded(
    db: Path,
    sent: tuple[str, ...] = (),
    received: tuple[str, ...] = (),
    ready: Callable[[list[dict]], bool] | None = None,  # type: ignore[type-arg]
) -> list[dict]:  # type: ignore[type-arg]
    """The mock client's rows (as dicts) once (bounded) every method in `sent` (c2s) and `received`
    (s2c) is stored and `ready` holds for them: the client is still connected, and records off its
    path, so its last rows land a moment after the page showed their effect."""
    engine = open_engine(db)
    (session,) = [s for s in list_sessions(engine) if s.kind == "mock-client"]
    assert session.id is not None

    def dicts(rows: list[Any]) -> list[dict]:  # type: ignore[type-arg]
        return [
            {
                "direction": m.direction,
                "method": m.method,
                "kind": m.kind,
                "body": m.body,
                "meta": m.meta or {},
            }
            for m in rows
        ]

    def done(rows: list[Any]) -> bool:
        have = {(m.direction, m.method) for m in rows}
        return (
            all(("c2s", m) in have for m in sent)
            and all(("s2c", m) in have for m in received)
            and (ready is None or ready(dicts(rows)))
        )

    return dicts(rows_until(engine, session.id, done, f"sent {sent}, received {received}"))


def _sent(rows: list[dict], method: str) -> list[dict]:  # type: ignore[type-arg]
    return [orjson.loads(r["body"]) for r in rows if r["method"] == method and r["direction"] == "c2s"]


def _tab(page: Page, name: str) -> None:
    page.get_by_role("tab", name=re.compile(rf"^{name}")).click()


def _tool(page: Page, name: str) -> None:
    page.get_by_label("tools").get_by_role("button", name=name, exact=True).click()


def _cancel_running_call(page: Page, method: str = "tools/call") -> None:
    item = page.locator(
        f".client-side [data-testid=inflight][data-method='{method}'][data-state=pending]"
    ).first
    expect(item.get_by_test_id("progress")).to_be_visible(timeout=SLOW)
    expect(item.locator(".timer")).not_to_have_text("0.0 s")
    item.get_by_label("cancel reason").fill("user got bored")
    item.get_by_role("button", name="Cancel").click()
    cancelled = page.locator(f"[data-testid=inflight][data-method='{method}'][data-state=cancelled]").first
    expect(cancelled).to_contain_text("notifications/cancelled sent: user got bored")
    expect(page.locator(".tool-call .error")).to_contain_text("was cancelled", timeout=SLOW)


def test_everything_over_stdio(page: Page, client_ui: UiServer, tmp_path: Path) -> None:  # noqa: F811
    page.goto(client_ui.url("/client"))
    page.get_by_label("command", exact=True).fill(f"{EVERYTHING_BIN} stdio")
    page.get_by_role("button", name="Connect").click()
    expect(page).to_have_url(re.compile(r"/client/c\d+$"), timeout=SLOW)

    page.get_by_role("button", name="Ping").click()
    expect(page.get_by_test_id("ping-latency")).to_have_text(re.compile(r"^\d+\.\d ms$"))

    _tab(page, "Log")
    page.get_by_label("server log level").select_option("info")
    page.get_by_role("button", name="Set level").click()
    expect(page.get_by_test_id("level-status")).to_contain_text("level info (logging/setLevel)")

    # Subscribe, then make the server send updates (its toggle-subscriber-updates tool).
    uri = "demo://resource/dynamic/text/1"
    _tab(page, "Resources")
    page.get_by_label("resource uri").fill(uri)
    page.get_by_role("button", name="Subscribe").click()
    sub = page.locator(f"[data-testid=subscription][data-uri='{uri}']")
    expect(sub).to_contain_text("subscribed")
    _tab(page, "Tools")
    _tool(page, "toggle-subscriber-updates")
    page.get_by_role("button", name="Call").click()
    expect(page.get_by_test_id("result")).to_contain_text("Started")
    _tab(page, "Resources")
    expect(sub.get_by_test_id("updates")).not_to_have_text("0 updates", timeout=SLOW)
    sub.get_by_role("button", name="Read again").click()
    expect(page.locator(".pane .json").last).to_contain_text(uri)
    shot(page, "client-features-subscription")
    sub.get_by_role("button", name="Unsubscribe").click()
    expect(sub).to_contain_text("not subscribed")
    _tab(page, "Tools")
    _tool(page, "toggle-subscriber-updates")
    page.get_by_role("button", name="Call").click()
    expect(page.get_by_test_id("result")).to_contain_text("Stopped")

    # Completions as you type; the second argument's suggestions depend on the first (context).
    _tab(page, "Prompts")
    page.get_by_label("prompts").get_by_role("button", name="completable-prompt").click()
    page.get_by_label("department", exact=True).fill("E")
    page.get_by_label("suggestions for department").get_by_role("button", name="Engineering").click()
    expect(page.get_by_label("department", exact=True)).to_have_value("Engineering")
    page.get_by_label("name", exact=True).focus()
    names = page.get_by_label("suggestions for name")
    for person in ("Alice", "Bob", "Charlie"):
        expect(names.get_by_role("button", name=person)).to_be_visible()
    shot(page, "client-features-completion")
    names.get_by_role("button", name="Bob").click()
    page.get_by_role("button", name="Get").click()
    expect(page.locator(".pane .json").last).to_contain_text(
        "Please promote Bob to the head of the Engineering team"
    )

    # A long-running tool shows its progress bar on the call and in the in-flight list.
    _tab(page, "Tools")
    _tool(page, "trigger-long-running-operation")
    page.locator("#root_duration").fill("4")
    page.locator("#root_steps").fill("8")
    page.get_by_role("button", name="Call").click()
    expect(page.locator(".tool-call [data-testid=progress] progress")).to_be_visible(timeout=SLOW)
    expect(page.locator(".client-side [data-testid=inflight] progress")).to_be_visible()
    shot(page, "client-features-progress")
    expect(page.get_by_test_id("result")).to_contain_text("Long running operation completed", timeout=SLOW)

    # Cancel an in-flight call: notifications/cancelled goes out and the call ends as cancelled.
    page.locator("#root_duration").fill("120")
    page.locator("#root_steps").fill("120")
    page.get_by_role("button", name="Call").click()
    _cancel_running_call(page)
    shot(page, "client-features-cancelled")

    # A task: the tool requires task execution; follow it in the Tasks tab until it completes.
    _tool(page, "simulate-research-query")
    expect(page.get_by_label(re.compile("run as a task"))).to_be_checked()
    page.locator("#root_topic").fill("tides")
    page.get_by_role("button", name="Call").click()
    expect(page.get_by_test_id("result")).to_contain_text("working")
    _tab(page, "Tasks")
    task = page.get_by_test_id("task").first
    expect(task).to_have_attribute("data-status", "completed", timeout=SLOW)
    task.get_by_role("button", name="Get result (tasks/result)").click()
    expect(task.get_by_test_id("result")).to_contain_text("Research Report: tides")
    shot(page, "client-features-task")

    # The log pane shows the server's notifications/message (and filters by level).
    _tab(page, "Log")
    entries = page.get_by_test_id("log-entry")
    expect(entries.filter(has_text="Received Subscribe Resource request").first).to_be_visible()
    page.get_by_label("show from level").select_option("emergency")
    expect(entries.filter(has_text="Received Subscribe Resource request")).to_have_count(0)
    page.get_by_label("show from level").select_option("debug")
    shot(page, "client-features-log")

    expect_sent = ("ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe",
                   "completion/complete", "tasks/get", "tasks/result", "notifications/cancelled")  # fmt: skip
    rows = _recorded(tmp_path / "client.db", expect_sent)
    for method in expect_sent:
        assert _sent(rows, method), method
    (cancel,) = _sent(rows, "notifications/cancelled")
    assert cancel["params"]["reason"] == "user got bored"
    context = [c["params"].get("context") for c in _sent(rows, "completion/complete")]
    assert {"arguments": {"department": "Engineering"}} in context
    assert any(c["params"].get("task") is not None for c in _sent(rows, "tools/call"))
    received = {r["method"] for r in rows if r["direction"] == "s2c"}
    assert {"notifications/message", "notifications/resources/updated", "notifications/progress"} <= received


def test_demo_over_streamable_http(page: Page, client_ui: UiServer, tmp_path: Path) -> None:  # noqa: F811
    with demo_http() as url:
        page.goto(client_ui.url("/client"))
        page.get_by_label("URL (HTTP)").check()
        page.get_by_label("url", exact=True).fill(url)
        page.get_by_role("button", name="Connect").click()
        expect(page).to_have_url(re.compile(r"/client/c\d+$"), timeout=SLOW)

        # The template form completes the note name, reads it, and subscribes to it.
        _tab(page, "Resources")
        page.get_by_label("resources").get_by_role("button", name="note").click()
        page.get_by_label("name", exact=True).fill("sh")
        page.get_by_label("suggestions for name").get_by_role("button", name="shopping").click()
        page.get_by_role("button", name="Read demo://notes/shopping").click()
        expect(page.locator(".pane .json").last).to_contain_text("oat milk")
        page.get_by_role("button", name="Subscribe").click()
        sub = page.locator("[data-testid=subscription][data-uri='demo://notes/shopping']")
        expect(sub).to_contain_text("0 updates")

        _tab(page, "Tools")
        _tool(page, "edit_note")
        page.locator("#root_name").fill("shopping")
        page.locator("#root_text").fill("- green tea")
        page.get_by_role("button", name="Call").click()
        expect(page.get_by_test_id("result")).to_contain_text("subscribers notified")
        _tab(page, "Resources")
        expect(sub.get_by_test_id("updates")).to_have_text("1 updates")
        sub.get_by_role("button", name="Read again").click()
        expect(page.locator(".pane .json").last).to_contain_text("green tea")

        _tab(page, "Log")
        page.get_by_label("server log level").select_option("debug")
        page.get_by_role("button", name="Set level").click()
        expect(page.get_by_test_id("level-status")).to_contain_text("level debug")

        _tab(page, "Tools")
        _tool(page, "count_slowly")
        page.locator("#root_n").fill("1000")
        page.locator("#root_delay_s").fill("0.05")
        page.get_by_role("button", name="Call").click()
        _cancel_running_call(page)
        page.get_by_role("button", name="Ping").click()
        expect(page.get_by_test_id("ping-latency")).to_have_text(re.compile(r" ms$"))
        _tab(page, "Log")
        expect(page.get_by_test_id("log-entry").filter(has_text="tick 1").first).to_be_visible()
        shot(page, "client-features-demo-http-log")

    expect_sent = ("resources/subscribe", "completion/complete", "logging/setLevel", "ping")
    expect_received = ("notifications/resources/updated", "notifications/progress", "notifications/message")
    rows = _recorded(tmp_path / "client.db", (*expect_sent, "notifications/cancelled"), expect_received)
    for method in expect_sent:
        assert _sent(rows, method), method
    (cancel,) = _sent(rows, "notifications/cancelled")
    assert cancel["params"]["reason"] == "user got bored"
    received = {r["method"] for r in rows if r["direction"] == "s2c"}
    assert {"notifications/resources/updated", "notifications/progress", "notifications/message"} <= received
