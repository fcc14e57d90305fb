"""The Connect workspace at 2026-07-28, in Chromium, against the demo server over stdio and Streamable
HTTP: subscribing to a resource and opting in to list changes open `subscriptions/listen` streams,
the demo's `edit_note` update arrives on the stream and is shown like a handshake-era update, and
every listen request, acknowledgement and update is in the recorded session.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from tests.e2e.conftest import shot
from tests.e2e.in_thread import demo_http
from tests.e2e.test_client_features_ui import SLOW, _recorded, _sent, _tab, _tool
from tests.e2e.test_client_ui import DEMO, client_ui  # noqa: F401 - the fixture

NOTE = "demo://notes/shopping"
KEY = "io.modelcontextprotocol/subscriptionId"


@contextlib.contextmanager
def _target(transport: str) -> Iterator[str | None]:
    if transport == "stdio":
        yield None
        return
    with demo_http() as url:
        yield url


@pytest.mark.parametrize("transport", ["stdio", "streamable-http"])
def test_listen_at_2026(page: Page, client_ui: UiServer, tmp_path: Path, transport: str) -> None:  # noqa: F811
    with _target(transport) as url:
        page.goto(client_ui.url("/client"))
        if url is None:
            page.get_by_label("command", exact=True).fill(DEMO)
        else:
            page.get_by_label("URL (HTTP)").check()
            page.get_by_label("url", exact=True).fill(url)
        page.get_by_label("protocol version").select_option("2026-07-28")
        page.get_by_role("button", name="Connect").click()
        expect(page).to_have_url(re.compile(r"/client/c\d+$"), timeout=SLOW)
        panel = page.get_by_test_id("listen")
        expect(panel).to_contain_text("No listen stream")

        _tab(page, "Resources")
        page.get_by_label("resource uri").fill(NOTE)
        page.get_by_role("button", name="Subscribe").click()
        sub = page.locator(f"[data-testid=subscription][data-uri='{NOTE}']")
        expect(sub).to_contain_text("0 updates")
        expect(sub.locator(".badge")).to_have_text("subscribed")
        stream = page.get_by_test_id("listen-stream")
        expect(stream).to_have_attribute("data-state", "open")
        expect(stream).to_contain_text(f"updates of {NOTE}")

        panel.get_by_label("listen for tools list changes").check()
        expect(stream).to_contain_text("tools list changes", timeout=SLOW)
        expect(stream).to_contain_text(f"updates of {NOTE}")

        _tab(page, "Tools")
        _tool(page, "edit_note")
        page.locator("#root_name").fill("shopping")
        page.locator("#root_text").fill("- green tea")
        page.get_by_role("button", name="Call").click()
        expect(page.get_by_test_id("result")).to_contain_text(f"{NOTE} changed")
        _tab(page, "Resources")
        expect(sub.get_by_test_id("updates")).to_have_text("1 updates", timeout=SLOW)
        expect(stream).to_contain_text("1 notifications")
        sub.get_by_role("button", name="Read again").click()
        expect(page.locator(".pane .json").last).to_contain_text("green tea")
        shot(page, f"client-listen-2026-{transport}")

        sub.get_by_role("button", name="Unsubscribe").click()
        expect(sub.locator(".badge")).to_have_text("not subscribed", timeout=SLOW)
        expect(stream).not_to_contain_text("updates of")
        expect(stream).to_contain_text("tools list changes")

    def notes(rows: list[dict[str, Any]], method: str) -> list[Any]:
        return [r for r in rows if r["direction"] == "s2c" and r["method"] == method]

    # The client is still connected (recording off its path): wait (bounded) for the last rows.
    rows = _recorded(
        tmp_path / "client.db",
        ready=lambda rows: (
            len(_sent(rows, "subscriptions/listen")) >= 3
            and len(notes(rows, "notifications/subscriptions/acknowledged")) >= 3
            and len(notes(rows, "notifications/resources/updated")) >= 1
        ),
    )
    listens = _sent(rows, "subscriptions/listen")
    assert [r["params"]["notifications"] for r in listens] == [
        {"resourceSubscriptions": [NOTE]},
        {"toolsListChanged": True, "resourceSubscriptions": [NOTE]},
        {"toolsListChanged": True},
    ]
    s2c = [orjson.loads(r["body"]) for r in rows if r["direction"] == "s2c" and r["kind"] == "notification"]
    acks = [n for n in s2c if n["method"] == "notifications/subscriptions/acknowledged"]
    assert [a["params"]["_meta"][KEY] for a in acks] == [r["id"] for r in listens]
    (update,) = [n for n in s2c if n["method"] == "notifications/resources/updated"]
    assert update["params"]["uri"] == NOTE and update["params"]["_meta"][KEY] == listens[1]["id"]
    assert "resources/subscribe" not in {r["method"] for r in rows}
