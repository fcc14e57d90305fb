"""Regression: the UI's pages had no Content-Security-Policy, could be framed by any site, and no
answer said `nosniff`.

The UI shows what MCP peers sent (hostile input). Every answer now carries a CSP that allows only
this server's own scripts (no inline script, no eval: the forms validate with an interpreter, not
Ajv's generated code), `X-Frame-Options: DENY`, `X-Content-Type-Options: nosniff` and
`Referrer-Policy: no-referrer`; the theme script moved out of index.html and the API docs page
starts Swagger UI from a file. A run over every view in Chromium shows no CSP violation.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from inspector.api import UiServer
from inspector.api.routes_pages import STATIC_DIR
from inspector.store import open_engine
from tests.api.recordings import http_session
from tests.e2e.conftest import new_context, watch_console
from tests.sessions import load
from tests.warm_peers import demo_argv

DEMO = shlex.join(demo_argv())  # a process of its own, forked warm (tests/warm_peers.py)


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    db = tmp_path_factory.mktemp("hardened") / "r.db"
    load(db, "demo", name="demo")  # session 1: the demo over stdio (tests/sessions.py)
    http_session(db)  # session 2: HTTP rows (the network view)
    server = UiServer(open_engine(db), port=0).start()
    yield server
    server.stop()


def _assert_hardened(answer: httpx.Response) -> None:
    h = answer.headers
    csp = h.get("content-security-policy", "")
    directives = dict((d.strip().split(" ", 1) + [""])[:2] for d in csp.split(";") if d.strip())
    assert directives.get("default-src") == "'self'", (answer.url, csp)
    assert directives.get("script-src") == "'self'", (answer.url, csp)  # no inline script, no eval
    assert directives.get("frame-ancestors") == "'none'" and directives.get("object-src") == "'none'"
    assert h.get("x-frame-options") == "DENY", answer.url
    assert h.get("x-content-type-options") == "nosniff", answer.url
    assert h.get("referrer-policy") == "no-referrer", answer.url


def test_every_kind_of_answer_carries_the_hardening_headers(ui: UiServer) -> None:
    asset = next(p.name for p in (STATIC_DIR / "assets").iterdir() if p.suffix == ".js")
    bearer = {"authorization": f"Bearer {ui.token}"}
    with httpx.Client(base_url=ui.base_url, timeout=30) as http:
        answers = [
            http.get("/"),
            http.get("/sessions/1/messages/3"),  # a deep page route
            http.get(f"/assets/{asset}"),
            http.get("/favicon.svg"),
            http.get("/docs"),
            http.get("/api/sessions", headers=bearer),
            http.get("/api/sessions/1/messages/1/raw", headers=bearer),
            http.get("/api/sessions"),  # the guard's own refusal
            http.get("/", headers={"host": "evil.example"}),
        ]
    assert [a.status_code for a in answers] == [200] * 7 + [401, 403]
    for answer in answers:
        _assert_hardened(answer)


def test_no_page_has_an_inline_script(ui: UiServer) -> None:
    for path in ("/", "/sessions/1", "/docs"):
        page = httpx.get(f"{ui.base_url}{path}").text
        scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page, re.S)
        assert scripts, path
        for attributes, body in scripts:
            assert "src=" in attributes and not body.strip(), (path, attributes, body)


def _visit_every_view(page: Page, ui: UiServer) -> None:
    page.goto(ui.url("/"))
    expect(page.locator("[data-session-id='1']")).to_be_visible()
    page.goto(f"{ui.base_url}/sessions/1")
    page.get_by_test_id("row").nth(2).click()
    detail = page.get_by_test_id("detail")
    expect(detail.locator("h2")).to_be_visible()
    page.get_by_role("button", name="Raw", exact=True).click()
    expect(detail.locator(".cm-content")).to_contain_text('"jsonrpc"')  # CodeMirror
    for path, sign in (
        ("/sessions/1/lanes", ".content"),
        ("/sessions/1/info", ".content"),
        ("/sessions/2/network", ".content"),
        ("/diff?a=1&b=1", ".content"),
        ("/versions", "[data-testid=nav-versions]"),
        ("/serve", ".content"),
    ):
        page.goto(f"{ui.base_url}{path}")
        expect(page.locator(sign).first).to_be_visible()
        page.wait_for_load_state("networkidle")
    # The Connect workspace: a generated form (schema validation) and a result.
    page.goto(f"{ui.base_url}/client")
    page.get_by_label("command", exact=True).fill(DEMO)
    page.get_by_role("button", name="Connect").click()
    tools = page.get_by_label("tools")
    tools.get_by_role("button", name="echo", exact=True).click()
    page.get_by_role("button", name="Call").click()  # `text` is required: the validator refuses
    expect(page.locator(".error-detail, .errors").first).to_be_visible()
    page.locator("#root_text").fill("checked without eval")
    page.get_by_role("button", name="Call").click()
    expect(page.get_by_test_id("result")).to_contain_text("checked without eval")
    page.get_by_role("button", name="Disconnect").click()
    # The API docs (Swagger UI), in the tab the UI's link opens: watched from its first script on by
    # the context's listeners (a reload to watch it was a second render of Swagger UI, seconds of CPU).
    errors: list[str] = []
    page.context.on("weberror", lambda error: errors.append(str(error.error)))
    page.context.on(
        "console",
        lambda msg: (
            msg.page is not page and "Content Security Policy" in msg.text and errors.append(msg.text)
        ),
    )
    with page.context.expect_page() as opened:
        page.get_by_role("link", name="API").click()
    docs = opened.value
    expect(docs.locator(".opblock-summary-path").first).to_be_visible(timeout=60_000)
    # The operation's own toggle (a button): clicking it opens the operation and navigates nowhere,
    # so the click need not wait for navigations (it once hung 20 s in CI waiting for one). Swagger
    # UI renders every operation at once: on a loaded 2-core machine that took over 20 s in CI.
    docs.locator(".opblock-summary-control").first.click(no_wait_after=True, timeout=60_000)
    expect(docs.locator(".opblock.is-open").first).to_be_visible(timeout=60_000)
    docs.wait_for_load_state("networkidle")
    assert not errors, errors


def test_no_view_breaks_the_content_security_policy(browser: Browser, ui: UiServer) -> None:
    context = new_context(browser)
    errors: list[str] = []
    try:
        page = context.new_page()
        watch_console(page, errors)
        _visit_every_view(page, ui)
        assert not errors, errors
        # The policy is really enforced (so the listener above can fail): an injected inline script
        # does not run, and Chromium reports the violation.
        with page.expect_console_message(lambda m: "Content Security Policy" in m.text):
            ran = page.evaluate(
                """() => { const s = document.createElement('script'); s.textContent = 'window.__ran = 1';
                           document.head.appendChild(s); return window.__ran === 1 }"""
            )
        assert ran is False
    finally:
        context.close()
