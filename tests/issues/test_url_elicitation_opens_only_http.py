"""Regression: a URL elicitation could make the mock client's page open any URL.

The Connect workspace offered "Open and accept" / "Open URL" for whatever `url` a server sent in a
URL-mode `elicitation/create` or a -32042 error, `javascript:`, `data:` and `file:` included (a
`javascript:` URL runs in the opener's context, `data:` renders attacker HTML). Only http(s) URLs
with a host are opened now: the API flags the rest (`openable: false`, an `elicitation.url-scheme`
problem on the inbox item) and the page shows them as text and refuses to open them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.api.conftest import Api, serve
from tests.api.test_client_api import _connect, _ok, _pending, _request
from tests.e2e.conftest import new_context, watch_console

SCRIPT_URL = "javascript:document.title='pwned'"
DATA_URL = "data:text/html,<script>alert(1)</script>"
SERVER = """
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
pending = None
for line in sys.stdin:
    m = json.loads(line)
    method = m.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": m["params"]["protocolVersion"],
              "capabilities": {"tools": {}}, "serverInfo": {"name": "hostile-urls", "version": "1"}}})
    elif method == "tools/list":
        tools = [{"name": n, "inputSchema": {"type": "object", "properties": {}}} for n in ("sign_in", "vault")]
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"tools": tools}})
    elif method == "tools/call" and m["params"]["name"] == "vault":
        need = [{"mode": "url", "elicitationId": "v-1", "url": DATA_URL, "message": "Unlock the vault"}]
        send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32042, "message": "URL elicitation required",
              "data": {"elicitations": need}}})
    elif method == "tools/call":
        pending = m["id"]
        params = {"mode": "url", "message": "Sign in", "url": SCRIPT_URL, "elicitationId": "s-1"}
        send({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create", "params": params})
    elif m.get("id") == "e1" and method is None:
        action = (m.get("result") or {}).get("action")
        send({"jsonrpc": "2.0", "id": pending, "result": {"content": [{"type": "text", "text": f"chose {action}"}]}})
    elif "id" in m and method:
        send({"jsonrpc": "2.0", "id": m["id"], "result": {}})
"""
CAPS = {"elicitation": {"form": {}, "url": {}}}


@pytest.fixture
def server_command(tmp_path: Path) -> list[str]:
    script = tmp_path / "hostile_urls.py"
    script.write_text(f"SCRIPT_URL = {SCRIPT_URL!r}\nDATA_URL = {DATA_URL!r}\n{SERVER}")
    return [sys.executable, str(script)]


@pytest.fixture
def fresh_api(tmp_path: Path) -> Iterator[Api]:
    yield from serve(tmp_path / "fresh.db")


def test_the_api_flags_urls_that_must_not_be_opened(fresh_api: Api, server_command: list[str]) -> None:
    cid = _connect(fresh_api, {"command": server_command}, "2025-11-25", capabilities=CAPS)["id"]
    failed = _request(fresh_api, cid, "tools/call", {"name": "vault", "arguments": {}})
    assert failed["error"]["code"] == -32042
    (vault,) = _ok(fresh_api.http.get(f"/api/clients/{cid}"))["elicitations"]
    assert vault["url"] == DATA_URL and vault["openable"] is False

    with ThreadPoolExecutor(1) as pool:
        call: Future[dict[str, Any]] = pool.submit(
            _request, fresh_api, cid, "tools/call", {"name": "sign_in", "arguments": {}}
        )
        item = _pending(fresh_api, cid, "elicitation/create")
        assert any("url-scheme" in p and "javascript:" in p for p in item["problems"]), item["problems"]
        key = quote(item["key"], safe="")
        _ok(fresh_api.http.post(f"/api/clients/{cid}/inbox/{key}", json={"result": {"action": "decline"}}))
        assert "chose decline" in str(call.result(timeout=30))
    sign_in = next(
        e
        for e in _ok(fresh_api.http.get(f"/api/clients/{cid}"))["elicitations"]
        if e["elicitation_id"] == "s-1"
    )
    assert sign_in["openable"] is False and sign_in["state"] == "declined"


@pytest.fixture
def client_ui(tmp_path: Path) -> Iterator[UiServer]:
    server = UiServer(open_engine(tmp_path / "client.db"), port=0, live_interval=0.05).start()
    yield server
    server.stop()


def test_the_page_shows_but_never_opens_a_javascript_or_data_url(
    browser: Browser, client_ui: UiServer, server_command: list[str]
) -> None:
    context = new_context(browser)
    errors: list[str] = []
    try:
        page = context.new_page()
        watch_console(page, errors)
        page.goto(client_ui.url("/client"))
        page.get_by_label("command", exact=True).fill(" ".join(server_command))
        page.get_by_role("button", name="Connect").click()
        tools = page.get_by_label("tools")

        tools.get_by_role("button", name="sign_in").click()
        page.get_by_role("button", name="Call").click()
        item = page.locator(".inbox-item[data-method='elicitation/create']")
        expect(item.get_by_test_id("elicit-url")).to_have_text(SCRIPT_URL)  # shown as text
        expect(item.get_by_test_id("url-refused")).to_be_visible()
        item.get_by_label("I want to open this URL").check()
        opener = item.get_by_role("button", name="Open and accept")
        expect(opener).to_be_disabled()  # even with consent
        item.get_by_role("button", name="Decline").click()
        expect(page.get_by_test_id("result")).to_contain_text("chose decline")

        tools.get_by_role("button", name="vault").click()
        page.get_by_role("button", name="Call").click()
        card = page.locator(".url-elicitation[data-id='v-1']")
        expect(card).to_contain_text(DATA_URL)
        expect(card.get_by_test_id("url-refused")).to_be_visible()
        card.get_by_label("I want to open this URL").check()
        expect(card.get_by_role("button", name="Open URL")).to_be_disabled()

        assert page.title() != "pwned" and len(context.pages) == 1  # nothing ran, no window opened
    finally:
        context.close()
    assert not errors, errors
