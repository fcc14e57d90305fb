"""OAuth through the web UI in Chromium, against the authorization-protected server built with the
official Python SDK's server auth support (tests/peers/oauth_server.py), its consent page on.

- Connect with "Authorize (OAuth)": the authorization page opens in a new tab, the person approves,
  the browser comes back to the inspector's /oauth/callback, the tool call works; once the token has
  expired the next call refreshes it.
- The guided debugger: each step one at a time (its request and response, what the spec expects,
  the spec link), the consent page in a new tab; docs/oauth-debugger.png is made here.
- A failing variant (the AS metadata names another issuer) shows the failed expectation.
- A page from another origin can neither drive the flows nor complete a pending authorization.

The recordings hold no token, code, verifier or secret (tests/secrets_scan.py).
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from inspector.api import UiServer
from inspector.auth import pkce
from inspector.store import list_sessions, open_engine
from tests.e2e.conftest import ROOT, clear, shot
from tests.e2e.in_thread import served
from tests.peers import oauth_server
from tests.secrets_scan import secret_leaks

DOCS_SHOT = ROOT / "docs" / "oauth-debugger.png"
GUIDED_STEPS = [
    "unauthorized",
    "resource-metadata",
    "as-metadata",
    "registration",
    "pkce",
    "authorization-request",
    "token-request",
    "authenticated-request",
]


@pytest.fixture
def auth_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "auth.json"
    monkeypatch.setenv("MCP_INSPECTOR_AUTH_FILE", str(path))
    return path


@pytest.fixture
def verifiers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The PKCE verifiers the flows make (observed, not changed), to look for in the recording."""
    made: list[str] = []
    real = pkce.new_verifier

    def observed() -> str:
        made.append(real())
        return made[-1]

    monkeypatch.setattr(pkce, "new_verifier", observed)
    return made


@pytest.fixture
def auth_ui(tmp_path: Path, auth_file: Path) -> Iterator[UiServer]:
    server = UiServer(open_engine(tmp_path / "auth.db"), port=0, live_interval=0.05).start()
    yield server
    server.stop()


@pytest.fixture
def oauth_peer() -> Iterator[Callable[..., str]]:
    """Start the peer (tests/peers/oauth_server.py) with these arguments, served on a thread of this
    process (its own socket; the SDK is imported once, not at each start); its MCP URL."""
    with ExitStack() as started:

        def start(*args: str) -> str:
            app, sock, url = oauth_server.build(list(args))
            sock.listen(128)
            started.enter_context(served(app, sock))
            return url

        yield start


def _steps(db: Path, session: int) -> list[str]:
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT json_extract(meta, '$.auth_step') FROM message WHERE session_id = ? AND direction = 'c2s'"
        " AND json_extract(meta, '$.auth_step') IS NOT NULL ORDER BY seq",
        (session,),
    ).fetchall()
    conn.close()
    return [r[0] for r in rows]


def _steps_until(db: Path, session: int, done: Callable[[list[str]], bool]) -> list[str]:
    """The session's auth steps once `done` holds (the recorder writes off the request's path)."""
    deadline = time.monotonic() + 60
    while True:
        steps = _steps(db, session)
        if done(steps) or time.monotonic() > deadline:
            return steps
        time.sleep(0.1)


def _approve(page: Page, link_name: str = "Open the authorization page") -> str:
    """Open the authorization page in a new tab, approve there; the callback URL the tab ends on."""
    with page.context.expect_page() as opened:
        page.get_by_role("link", name=link_name).click()
    consent = opened.value
    consent.get_by_role("link", name="Approve").click()
    expect(consent.locator("#outcome")).to_contain_text("Authorization received")
    callback = consent.url
    assert "/oauth/callback?" in callback and "code=" in callback, callback
    consent.close()
    return callback


def _secrets(auth_file: Path, callbacks: list[str], verifiers: list[str]) -> list[str]:
    stored = json.loads(auth_file.read_text())
    found = [*verifiers]
    tokens = [g["tokens"] for g in stored["servers"].values()] + list(stored["grants"].values())
    found += [t[k] for t in tokens for k in ("access_token", "refresh_token") if t.get(k)]
    for client in stored.get("clients", {}).values():
        if client.get("client_secret"):
            found.append(client["client_secret"])
    for url in callbacks:
        query = dict(re.findall(r"[?&](code|state)=([^&]+)", url))
        found += [query["code"], query["state"]]
    assert all(len(s) >= 8 for s in found), found
    return found


@pytest.mark.timeout(120)
def test_connect_with_oauth_through_the_consent_page_then_refresh(
    page: Page,
    auth_ui: UiServer,
    oauth_peer: Callable[..., str],
    auth_file: Path,
    verifiers: list[str],
    tmp_path: Path,
) -> None:
    url = oauth_peer("--approval-page", "--expires", "6")
    page.goto(auth_ui.url("/client"))
    form = page.get_by_role("form", name="connect")
    form.get_by_label("URL (HTTP)").check()
    form.get_by_label("url", exact=True).fill(url)
    form.get_by_label("Authorize (OAuth)").check()
    expect(form.get_by_label("client id")).to_be_visible()
    form.get_by_role("button", name="Connect").click()
    callback = _approve(page)
    expect(page).to_have_url(re.compile(r"/client/c\d+$"))
    tools = page.get_by_label("tools")
    tools.get_by_role("button", name="whoami", exact=True).click()
    page.get_by_role("button", name="Call").click()
    expect(page.get_by_test_id("result")).to_contain_text("hello, authorized client")
    shot(page, "oauth-connect-called")

    db = tmp_path / "auth.db"
    (sid,) = [s.id for s in list_sessions(open_engine(db)) if s.kind == "mock-client"]
    steps = _steps(db, sid)
    assert steps == [
        "unauthorized",
        "resource-metadata",
        "as-metadata",
        "registration",
        "authorization-request",
        "token-request",
    ], steps
    first = json.loads(auth_file.read_text())
    assert oct(auth_file.stat().st_mode & 0o777) == "0o600"

    # The token lives 6 s (refreshed when a tenth of that is left): once it has expired, the next
    # call refreshes it first. (The wait is what is left of its life, not 6.5 s from here.)
    tokens = next(iter(first["servers"].values()))["tokens"]
    assert tokens["lifetime"] == 6, tokens
    while time.time() < tokens["expires_at"] + 0.5:
        time.sleep(0.05)
    page.get_by_role("button", name="Call").click()
    expect(page.get_by_test_id("result")).to_contain_text("hello, authorized client")
    steps = _steps_until(db, sid, lambda s: "refresh" in s)
    assert steps.count("refresh") >= 1 and steps.count("authorization-request") == 1, steps
    second = json.loads(auth_file.read_text())
    old = next(iter(first["servers"].values()))["tokens"]["access_token"]
    assert next(iter(second["servers"].values()))["tokens"]["access_token"] != old

    page.get_by_role("button", name="Disconnect").click()
    expect(page).to_have_url(re.compile(r"/client$"))
    leaks = secret_leaks(db, [old, *_secrets(auth_file, [callback], verifiers)])
    assert leaks == []


@pytest.mark.timeout(120)
def test_guided_flow_one_step_at_a_time(
    page: Page,
    auth_ui: UiServer,
    oauth_peer: Callable[..., str],
    auth_file: Path,
    verifiers: list[str],
    tmp_path: Path,
) -> None:
    url = oauth_peer("--approval-page")
    page.goto(auth_ui.url("/client"))
    debugger = page.get_by_role("region", name="authorization debugger")
    debugger.get_by_label("server url to authorize").fill(url)
    debugger.get_by_label("authorization revision").select_option("2025-11-25")
    debugger.get_by_role("button", name="Start").click()
    expect(debugger.locator(".oauth-state")).to_have_attribute("data-state", "paused")
    expect(debugger.locator("[data-status=upcoming]")).to_have_count(len(GUIDED_STEPS))

    step = debugger.locator(".oauth-step")
    callback = ""
    for n, name in enumerate(GUIDED_STEPS, start=1):
        debugger.get_by_role("button", name="Next step").click()
        card = step.nth(n - 1)
        expect(card).to_have_attribute("data-step", name)
        if name == "authorization-request":
            expect(card).to_have_attribute("data-status", "waiting")
            callback = _approve(page)
        expect(card).to_have_attribute("data-status", "ok")
        expect(debugger.locator("[data-status=upcoming]")).to_have_count(len(GUIDED_STEPS) - n)

    expect(debugger.locator(".oauth-state")).to_have_attribute("data-state", "done")
    unauthorized = step.nth(0)
    expect(unauthorized).to_contain_text("401")
    expect(unauthorized).to_contain_text("WWW-Authenticate Bearer challenge")
    spec = unauthorized.get_by_role("link", name="spec")
    expect(spec).to_have_attribute("href", re.compile(r"/specification/2025-11-25/basic/authorization#"))
    token = debugger.locator("[data-step=token-request]")
    token.locator("summary").first.click()
    expect(token).to_contain_text("code_verifier=[secret:body.code_verifier]")
    expect(token).to_contain_text("[secret:body.access_token]")
    # docs/oauth-debugger.png: the whole flow in one tall viewport, the debugger at its top.
    page.set_viewport_size({"width": 1100, "height": 1350})
    debugger.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(200)
    DOCS_SHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS_SHOT))
    debugger.locator("[data-step=resource-metadata] summary").nth(1).click()  # its response
    expect(debugger.locator("[data-step=resource-metadata]")).to_contain_text("authorization_servers")

    # Every HTTP leg is in the flow's session, labelled with its step (PKCE makes no request).
    db = tmp_path / "auth.db"
    (sid,) = [s.id for s in list_sessions(open_engine(db)) if s.kind == "mock-client"]
    legs = [s for s in GUIDED_STEPS if s != "pkce"]
    assert _steps_until(db, sid, lambda s: s == legs) == legs
    # The shown steps hold no secret either.
    shown = debugger.inner_text()
    secrets = _secrets(auth_file, [callback], verifiers)
    assert [s for s in secrets if s in shown] == []
    assert secret_leaks(db, secrets) == []


@pytest.mark.timeout(90)
def test_guided_flow_shows_the_failed_expectation(
    page: Page, auth_ui: UiServer, oauth_peer: Callable[..., str]
) -> None:
    url = oauth_peer("--wrong-issuer")
    page.goto(auth_ui.url("/client"))
    debugger = page.get_by_role("region", name="authorization debugger")
    debugger.get_by_label("server url to authorize").fill(url)
    debugger.get_by_label("authorization revision").select_option("2025-06-18")
    debugger.get_by_role("button", name="Start").click()
    debugger.get_by_role("button", name="Run all").click()
    expect(debugger.locator(".oauth-state")).to_have_attribute("data-state", "failed")
    failed = debugger.locator("[data-step=as-metadata][data-status=failed]")
    expect(failed.locator(".oauth-failure")).to_have_attribute("data-expectation", "issuer-mismatch")
    expect(failed).to_contain_text("names issuer")
    expect(failed.get_by_role("link", name="spec section")).to_have_attribute(
        "href", re.compile(r"2025-06-18/basic/authorization#authorization-server-metadata-discovery")
    )
    expect(debugger.get_by_role("button", name="Next step")).to_be_disabled()
    shot(page, "oauth-debugger-issuer-mismatch")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


EVIL_SCRIPT = """
const out = document.getElementById('out');
const base = BASE;
async function attempt(label, run) {
  try { const r = await run(); out.textContent += label + ' ' + r.status + '\\n'; }
  catch (e) { out.textContent += label + ' blocked\\n'; }
}
(async () => {
  await attempt('start', () => fetch(base + '/api/auth/flows', {method: 'POST',
    headers: {'content-type': 'application/json'}, body: JSON.stringify({url: TARGET})}));
  await attempt('pending', () => fetch(base + '/api/auth/pending'));
  await attempt('callback', () => fetch(base + '/oauth/callback?state=guess&code=x', {mode: 'no-cors'})
    .then(() => ({status: 'sent'})));
  out.textContent += 'done\\n';
})();
"""


@pytest.mark.timeout(90)
def test_a_page_from_another_origin_cannot_drive_or_complete_an_authorization(
    context: BrowserContext, auth_ui: UiServer, oauth_peer: Callable[..., str], tmp_path: Path
) -> None:
    url = oauth_peer()
    api = httpx.Client(
        base_url=auth_ui.base_url, headers={"authorization": f"Bearer {auth_ui.token}"}, timeout=30
    )
    # A flow of ours, waiting for the browser: its state is what the callback needs.
    flow = api.post("/api/auth/flows", json={"url": url}).json()
    for _ in range(len(GUIDED_STEPS)):
        flow = api.post(f"/api/auth/flows/{flow['id']}/next").json()
        if flow["state"] == "waiting-browser":
            break
    assert flow["state"] == "waiting-browser", flow
    real_state = re.search(r"[?&]state=([^&]+)", flow["authorization_url"]).group(1)  # type: ignore[union-attr]

    site = tmp_path / "site"
    site.mkdir()
    script = EVIL_SCRIPT.replace("BASE", json.dumps(auth_ui.base_url)).replace("TARGET", json.dumps(url))
    (site / "index.html").write_text(
        f"<!doctype html><title>elsewhere</title><pre id=out></pre><script>{script}</script>"
    )
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        page = context.new_page()
        page.goto(auth_ui.url("/client"))  # a tab of the UI holding the token
        evil_page = context.new_page()
        evil_page.goto(f"http://127.0.0.1:{evil.server_address[1]}/index.html")
        expect(evil_page.locator("#out")).to_contain_text("done")
        outcome = evil_page.locator("#out").inner_text()
        assert "start blocked" in outcome and "pending blocked" in outcome, outcome
        # A top-level navigation (what an authorization server's redirect is) with a guessed state.
        evil_page.goto(f"{auth_ui.base_url}/oauth/callback?code=stolen&state=guess")
        expect(evil_page.locator("#outcome")).to_contain_text("No authorization is waiting")
        assert api.get(f"/api/auth/flows/{flow['id']}").json()["state"] == "waiting-browser"
        sessions = [s for s in list_sessions(open_engine(tmp_path / "auth.db")) if s.kind == "mock-client"]
        assert len(sessions) == 1  # ours; the foreign page started none
        # The same navigation with the flow's own state does complete it (so the check can fail),
        # once only.
        evil_page.goto(f"{auth_ui.base_url}/oauth/callback?code=x&state={real_state}")
        expect(evil_page.locator("#outcome")).to_contain_text("Authorization received")
        evil_page.goto(f"{auth_ui.base_url}/oauth/callback?code=x&state={real_state}")
        expect(evil_page.locator("#outcome")).to_contain_text("No authorization is waiting")
        deadline = time.monotonic() + 60
        state: dict[str, Any] = {}
        while time.monotonic() < deadline:
            state = api.get(f"/api/auth/flows/{flow['id']}").json()
            if state["state"] != "waiting-browser":
                break
            time.sleep(0.1)
        assert state["state"] == "paused", state  # the code goes to the token request next
    finally:
        clear(context)
        evil.shutdown()
        api.close()
