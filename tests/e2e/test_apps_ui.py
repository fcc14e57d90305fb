"""MCP Apps from a recording, in Chromium: tests/peers/apps_server.py (an SDK server exposing an App
through `mcp.server.apps`) recorded through the real `wrap` with the SDK client.

Opening the recorded `show_weather` call renders its view in an iframe sandboxed to `allow-scripts`:
the view shows the recorded input and result (sent by the host side of the Apps bridge), its
`forecast` call for Paris gets the recorded answer, the one for Atlantis (never recorded) gets an
error and shows as unanswered in the side panel, and its fetch of a loopback port this test listens
on is blocked by the view's CSP (no connect domain declared): the port sees no connection. The view
can read neither the host page nor its storage. The screenshot is docs/apps-view.png.

A page of a foreign origin can neither create a view (no token) nor fetch a view document with a
valid capability id (Origin refused), and a guessed or used id is a 404.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.api.recordings import APPS, record_apps
from tests.e2e.conftest import ROOT, clear, shot
from tests.e2e.foreign import foreign_page_outcome

DOCS_SHOT = ROOT / "docs" / "apps-view.png"


class Probe:
    """A loopback TCP listener that counts the connections made to it."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(scope="module")
def probe() -> Iterator[Probe]:
    p = Probe()
    yield p
    p.close()


@pytest.fixture(scope="module")
def apps_ui(tmp_path_factory: pytest.TempPathFactory, probe: Probe) -> Iterator[tuple[UiServer, int]]:
    db = tmp_path_factory.mktemp("apps") / "apps.db"
    sid = record_apps(db, probe=f"http://127.0.0.1:{probe.port}/probe")
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server, sid
    server.stop()


def test_recorded_app_renders_in_a_sandbox_and_is_answered_from_the_recording(
    context: BrowserContext, apps_ui: tuple[UiServer, int], probe: Probe
) -> None:
    ui, sid = apps_ui
    page = context.new_page()
    errors: list[str] = []
    csp: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def on_console(msg: ConsoleMessage) -> None:
        if "Content Security Policy" in msg.text:
            csp.append(msg.text)

    page.on("console", on_console)
    try:
        page.goto(ui.url(f"/sessions/{sid}"))
        page.get_by_test_id("apps-tab").click()
        expect(page.get_by_test_id("app-tools")).to_contain_text("ui://weather/view.html")
        expect(page.get_by_test_id("app-resources")).to_contain_text("text/html;profile=mcp-app")
        call = page.locator("[data-testid^=app-call-]").first
        seq = (call.get_attribute("data-testid") or "").removeprefix("app-call-")
        # The call's detail in the timeline opens the same view.
        page.goto(f"{ui.base_url}/sessions/{sid}/messages/{seq}")
        page.get_by_test_id("open-app-view").click()
        frame_el = page.get_by_test_id("app-frame")
        expect(frame_el).to_have_attribute("sandbox", "allow-scripts")
        assert frame_el.get_attribute("allow") is None  # no permission declared, none granted
        view = page.frame_locator("[data-testid=app-frame]")
        expect(view.locator("#result")).to_have_text("Sunny in Paris, 21 degrees")
        expect(view.locator("#input")).to_contain_text('"city":"Paris"')
        expect(view.locator("#forecast")).to_have_text("Tomorrow in Paris: light rain")
        expect(view.locator("#atlantis")).to_contain_text("error")
        expect(view.locator("#network")).to_contain_text("blocked")
        expect(view.locator("#isolation")).to_have_text("parent blocked, storage blocked")
        asks = page.get_by_test_id("app-ask")
        answered = asks.and_(page.locator("[data-method='tools/call'][data-answered=true]"))
        unanswered = asks.and_(page.locator("[data-method='tools/call'][data-answered=false]"))
        expect(answered).to_have_count(1)
        expect(answered).to_contain_text("answered from the recording")
        expect(unanswered).to_have_count(1)
        expect(unanswered).to_contain_text("Atlantis")
        expect(asks.and_(page.locator("[data-method='ui/open-link']"))).to_contain_text("example.com")
        # The host sent the tool input before the result, after the view said it was initialized.
        methods = [a.get_attribute("data-method") for a in asks.all()]
        order = [m for m in methods if m and m.startswith("ui/notifications/")]
        assert order[:3] == [
            "ui/notifications/initialized",
            "ui/notifications/tool-input",
            "ui/notifications/tool-result",
        ], methods
        expect(page.get_by_test_id("app-csp")).to_contain_text("connect-src 'none'")
        page.mouse.move(0, 0)
        DOCS_SHOT.write_bytes(shot(page, "apps-view").read_bytes())
    finally:
        clear(context)
    assert not errors, errors
    assert probe.connections == 0, "the view reached the network despite its CSP"
    # The only CSP report is the view's blocked fetch (the UI itself runs clean).
    assert csp and all(f"127.0.0.1:{probe.port}/probe" in c for c in csp), csp


def test_foreign_origin_cannot_make_or_load_a_view(
    browser: Browser, apps_ui: tuple[UiServer, int], tmp_path: Path
) -> None:
    ui, sid = apps_ui
    auth = {"authorization": f"Bearer {ui.token}"}
    with httpx.Client(base_url=ui.base_url, timeout=30, headers=auth) as c:
        call = c.get(f"/api/sessions/{sid}/apps").json()["calls"][0]["seq"]
        view_url = c.post(f"/api/sessions/{sid}/apps/views", json={"seq": call}).json()["view_url"]
    script = f"""
    const ui = {ui.base_url!r};
    const out = [];
    (async () => {{
      try {{
        const r = await fetch(ui + "/api/sessions/{sid}/apps/views", {{method: "POST",
          headers: {{"content-type": "application/json"}}, body: JSON.stringify({{seq: {call}}})}});
        out.push("create " + r.status);
      }} catch (e) {{ out.push("create blocked"); }}
      try {{ const r = await fetch(ui + {view_url!r}); out.push("view " + r.status); }}
      catch (e) {{ out.push("view blocked"); }}
      document.getElementById("out").textContent = out.join(", ") + " done";
    }})();
    """
    outcome = foreign_page_outcome(browser, tmp_path, script)
    assert "create blocked" in outcome and "view blocked" in outcome, outcome
    with httpx.Client(base_url=ui.base_url, timeout=30) as c:
        # No token: refused. A guessed id: 404.
        assert c.post(f"/api/sessions/{sid}/apps/views", json={"seq": call}).status_code == 401
        assert c.get("/app-view/" + "A" * 32).status_code == 404
        # The foreign fetch did not use up the capability (the check above could fail): it serves once,
        # with the view's own CSP and without the UI's.
        first = c.get(view_url)
        assert first.status_code == 200 and "Weather view" in first.text
        policy = first.headers["content-security-policy"]
        assert "connect-src 'none'" in policy and "sandbox allow-scripts" in policy
        assert "script-src 'self'" not in policy and "x-frame-options" not in first.headers
        assert c.get(view_url).status_code == 404


def test_live_mock_client_renders_the_view_and_its_calls_reach_the_server(
    context: BrowserContext, tmp_path: Path, probe: Probe
) -> None:
    """Client page: the same App peer, live: the view is read through the mock client, its result is
    the live call's, and its `forecast` calls (Atlantis too) are answered by the live server."""
    server = UiServer(open_engine(tmp_path / "live.db"), port=0, live_interval=0.05).start()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(server.url("/client"))
        page.get_by_label("command", exact=True).fill(" ".join(APPS))
        page.get_by_role("button", name="Connect").click()
        tools = page.get_by_label("tools")
        tools.get_by_role("button", name="show_weather", exact=True).click()
        page.locator("#root_city").fill("Oslo")
        page.locator("#root_probe").fill(f"http://127.0.0.1:{probe.port}/live")
        page.get_by_role("button", name="Call").click()
        expect(page.get_by_test_id("result")).to_contain_text("Sunny in Oslo")
        view = page.frame_locator("[data-testid=app-frame]")
        expect(view.locator("#result")).to_have_text("Sunny in Oslo, 21 degrees")
        expect(view.locator("#forecast")).to_have_text("Tomorrow in Oslo: light rain")
        expect(view.locator("#atlantis")).to_have_text("Tomorrow in Atlantis: light rain")
        expect(view.locator("#network")).to_contain_text("blocked")
        live = page.get_by_test_id("app-ask").and_(page.locator("[data-method='tools/call']"))
        expect(live).to_have_count(2)
        expect(live.first).to_contain_text("answered by the live server")
    finally:
        clear(context)
        server.stop()
    assert not errors, errors
    assert probe.connections == 0
