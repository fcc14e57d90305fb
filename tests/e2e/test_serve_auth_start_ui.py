"""Starting `serve --auth` from the UI's Mock server page in Chromium: the authorization options reach the
serve process (its /mcp answers 401 with the resource metadata; the chosen fault is on), the stdio
command line has none of them (authorization is HTTP only)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import shot


@pytest.fixture
def serve_ui(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warm_serve: None) -> Iterator[UiServer]:
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(tmp_path / "runtime"))
    server = UiServer(open_engine(tmp_path / "serve.db"), port=0, live_interval=0.05).start()
    yield server
    server.stop()


def test_start_a_mock_server_that_requires_authorization(page: Page, serve_ui: UiServer) -> None:
    page.goto(serve_ui.url("/serve"))
    page.get_by_label("Require OAuth").check()
    page.get_by_label("fault: step-up").check()
    page.get_by_role("button", name="Start mock server").click()
    card = page.locator(".serve-process[data-state='running']")
    expect(card).to_be_visible(timeout=60_000)
    expect(card).to_contain_text("authorization: --auth --auth-fault step-up")
    shot(page, "serve-start-auth")
    url = card.get_by_test_id("serve-url").inner_text().strip()
    stdio = card.get_by_test_id("serve-stdio").inner_text()
    assert "--auth" not in stdio

    refused = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert refused.status_code == 401
    assert "resource_metadata=" in refused.headers["www-authenticate"]
    origin = url.removesuffix("/mcp")
    metadata = httpx.get(f"{origin}/.well-known/oauth-protected-resource/mcp").json()
    assert metadata["scopes_supported"] == ["mcp", "mcp:tools"]  # the step-up fault is on
    page.get_by_role("button", name="Stop").click()
    expect(card).to_have_count(0, timeout=30_000)
