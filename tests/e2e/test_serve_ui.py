"""The mock server workspace in Chromium: a real Python SDK client connects to `mcp-inspect serve`,
the user builds an elicitation form request in the UI and sends it, and the client's answer appears."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp import types
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import shot
from tests.integration.serve_helpers import client_answers, serve_http
from tests.recorded import poll_until


class ClientThread:
    """A Python SDK client on its own event loop, connected until `stop()`."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.asked: list[Any] = []
        self.connected = threading.Event()
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    async def _elicit(self, ctx: Any, params: Any) -> types.ElicitResult:
        self.asked.append(params.requested_schema)
        return types.ElicitResult(action="accept", content={"city": "Oslo", "nights": 3})

    async def _main(self) -> None:
        async with mcp.Client(self.url, mode="legacy", elicitation_callback=self._elicit):
            self.connected.set()
            await anyio.to_thread.run_sync(self.done.wait)

    def _run(self) -> None:
        try:
            anyio.run(self._main)
        except BaseException as exc:  # reported by the test
            self.error = exc
            self.connected.set()

    def stop(self) -> None:
        self.done.set()
        self.thread.join(30)


@pytest.fixture
def serve_ui(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warm_serve: None
) -> Iterator[tuple[UiServer, Path]]:
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(tmp_path / "runtime"))
    db = tmp_path / "serve.db"
    server = UiServer(open_engine(db), port=0, live_interval=0.05).start()
    yield server, db
    server.stop()


def test_send_an_elicitation_form_built_in_the_ui(page: Page, serve_ui: tuple[UiServer, Path]) -> None:
    ui, db = serve_ui
    with serve_http(db, warm=True) as url:
        client = ClientThread(url)
        try:
            assert client.connected.wait(60) and client.error is None, client.error
            page.goto(ui.url("/serve"))
            page.locator(".served-list a", has_text="mcp").click()
            expect(page.get_by_text("Client capabilities")).to_be_visible()

            page.get_by_role("button", name="Elicitation", exact=True).click()
            page.get_by_label("Field 1 name").fill("city")
            page.get_by_role("button", name="Add field").click()
            page.get_by_label("Field 2 name").fill("nights")
            page.get_by_label("Field 2 type").select_option("integer")
            page.get_by_label("Elicitation message").fill("Where to?")
            page.get_by_role("button", name="Send elicitation/create").click()

            answer = page.locator(".sent-item[data-method='elicitation/create']")
            expect(answer.locator(".client-answer")).to_contain_text("Oslo")
            expect(answer).to_contain_text("follows the spec")
            expect(answer.locator(".latency")).to_contain_text("ms")
            shot(page, "serve-elicitation")
        finally:
            client.stop()
    assert client.asked == [
        {
            "type": "object",
            "properties": {
                "city": {"type": "string", "title": "city"},
                "nights": {"type": "integer", "title": "nights"},
            },
            "required": ["city"],
        }
    ]
    assert client_answers(db)["elicitation/create"] == [
        {"action": "accept", "content": {"city": "Oslo", "nights": 3}}
    ]


class SamplingClient(ClientThread):
    """A Python SDK client that answers sampling requests with a fixed reply."""

    async def _sample(self, ctx: Any, params: Any) -> types.CreateMessageResult:
        self.asked.append(params.system_prompt)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="Bonjour from the client"),
            model="m-1",
        )

    async def _main(self) -> None:
        async with mcp.Client(self.url, mode="legacy", sampling_callback=self._sample):
            self.connected.set()
            await anyio.to_thread.run_sync(self.done.wait)


def test_start_a_mock_server_from_the_ui_and_sample_its_client(
    page: Page, serve_ui: tuple[UiServer, Path], tmp_path: Path
) -> None:
    ui, db = serve_ui
    page.goto(ui.url("/serve"))
    start = page.get_by_role("button", name="Start mock server")

    page.get_by_label("Scenario file", exact=True).check()
    page.get_by_label("Scenario file path").fill(str(tmp_path / "missing.yaml"))
    start.click()
    expect(page.get_by_role("alert")).to_contain_text("no scenario file at")

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        page.get_by_label("Built-in scenario (every feature)").check()
        page.get_by_label("Port").fill(str(taken.getsockname()[1]))
        start.click()
        expect(page.get_by_role("alert")).to_contain_text("cannot listen on", timeout=60_000)

    page.get_by_label("Port").fill("")
    page.get_by_label("2025-11-25").check()
    start.click()
    card = page.locator(".serve-process[data-state='running']")
    expect(card).to_be_visible(timeout=60_000)
    shot(page, "serve-start")
    url = card.get_by_test_id("serve-url").inner_text().strip()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
    stdio = card.get_by_test_id("serve-stdio").inner_text()
    assert "serve --stdio --db" in stdio and str(db) in stdio and "--protocol-version 2025-11-25" in stdio
    pid = int(card.get_attribute("data-pid") or 0)

    client = SamplingClient(url)
    try:
        assert client.connected.wait(60) and client.error is None, client.error
        # No reload: the live feed announces the new mock-server session (the list poll is 15 s).
        link = page.locator(".served-list a", has_text="mcp")
        expect(link).to_be_visible(timeout=10_000)
        link.click()
        page.get_by_role("button", name="Sampling", exact=True).click()
        page.get_by_label("System prompt").fill("Be brief.")
        page.get_by_role("button", name="Send sampling/createMessage").click()
        answer = page.locator(".sent-item[data-method='sampling/createMessage']")
        expect(answer.locator(".client-answer")).to_contain_text("Bonjour from the client")
        traffic = page.get_by_test_id("serve-traffic")
        # The handshake's rows may also land after the page opened (recording lags under load): find the answer.
        answered = traffic.locator("li[data-direction='c2s']", has_text="Bonjour from the client")
        expect(answered).to_have_count(1)
        shot(page, "serve-started-from-ui")
    finally:
        client.stop()
    assert client.asked == ["Be brief."]
    # The mock server started from the UI is still running (and recording off its path): wait (bounded).
    answers = poll_until(
        lambda: client_answers(db),
        lambda a: bool(a["sampling/createMessage"]),
        "the client's sampling answer",
    )
    assert answers["sampling/createMessage"][0]["content"]["text"] == "Bonjour from the client"

    page.get_by_role("link", name="all clients").click()
    page.locator(".serve-process").get_by_role("button", name="Stop").click()
    expect(page.locator(".serve-process")).to_have_count(0)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
