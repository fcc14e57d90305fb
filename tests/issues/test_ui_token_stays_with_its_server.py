"""Regression: the UI's access token leaked to every other server on 127.0.0.1.

The first visit with `?token=` set a cookie `mcp_inspector_token_<port>`. Cookies ignore ports, so
after one visit Chromium sent it to any other local server (other dev servers, another user's
services), and the recording proxy forwarded it upstream. The token now travels in the page URL's
fragment (never sent), lives in the tab's sessionStorage (whose origin includes the port) and goes to
the API as `Authorization: Bearer` / a websocket subprotocol: no cookie is set at all.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import new_context, watch_console


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Another local server: remembers every request's headers, answers a page and an image."""

    seen: list[list[tuple[str, str]]]

    def do_GET(self) -> None:
        self.seen.append(list(self.headers.items()))
        pixel = b"GIF89a\x01\x00\x01\x00\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x00;"
        body, kind = (
            (pixel, "image/gif") if self.path.startswith("/pixel") else (b"<p>other</p>", "text/html")
        )
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def other_server() -> Iterator[tuple[str, list[list[tuple[str, str]]]]]:
    seen: list[list[tuple[str, str]]] = []
    handler = type("Handler", (_Recorder,), {"seen": seen})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    # shutdown() waits for serve_forever's next poll: every 0.05 s, not the default 0.5 s
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


@pytest.fixture
def ui(tmp_path: Path) -> Iterator[UiServer]:
    server = UiServer(open_engine(tmp_path / "r.db"), port=0).start()
    yield server
    server.stop()


def _logged_in(page: Page, ui: UiServer) -> None:
    page.goto(ui.url("/"))
    expect(page.locator(".token-prompt")).to_have_count(0)
    expect(page.get_by_role("link", name="API")).to_be_visible()
    page.wait_for_load_state("networkidle")
    expect(page.locator(".token-prompt")).to_have_count(0)  # the API accepted the page's token


def test_the_token_is_never_sent_to_another_server_on_this_host(
    browser: Browser, ui: UiServer, other_server: tuple[str, list[list[tuple[str, str]]]]
) -> None:
    other, seen = other_server
    context = new_context(browser)
    try:
        page = context.new_page()
        _logged_in(page, ui)
        assert page.url == f"{ui.base_url}/"  # the token left the address bar

        # The UI page tries to load an image and fetch from the other server (the CSP refuses both,
        # and were it not so, no credential would go with them), then the tab goes there.
        page.evaluate(
            """url => new Promise(done => {
                const img = new Image(); img.onload = img.onerror = done; img.src = url + '/pixel.gif';
            })""",
            other,
        )
        page.evaluate("url => fetch(url + '/fetched', {credentials: 'include'}).catch(() => null)", other)
        page.goto(f"{other}/visited")
        second = context.new_page()
        second.goto(f"{other}/second-tab")
        expect(second.locator("p")).to_have_text("other")
        cookies = context.cookies()
    finally:
        context.close()
    assert len(seen) >= 2, seen  # the check below saw real requests
    for headers in seen:
        for name, value in headers:
            assert ui.token not in value, (name, value)
            assert not name.lower().startswith("cookie"), (name, value)
    assert cookies == []  # no cookie at all, for 127.0.0.1 or anywhere


def test_a_new_tab_of_the_ui_gets_the_token_from_an_open_tab_and_the_docs_link(
    browser: Browser, ui: UiServer
) -> None:
    """Tabs opened without an opener (middle click, a bookmark) have no sessionStorage of their own."""
    context = new_context(browser)
    errors: list[str] = []
    try:
        page = context.new_page()
        watch_console(page, errors)
        _logged_in(page, ui)
        fresh = context.new_page()
        watch_console(fresh, errors)
        fresh.goto(f"{ui.base_url}/versions")
        expect(fresh.get_by_test_id("nav-versions")).to_be_visible()
        fresh.wait_for_load_state("networkidle")
        expect(fresh.locator(".token-prompt")).to_have_count(0)
        assert fresh.evaluate("sessionStorage.getItem('mcp-inspector-token')") == ui.token

        # The API link opens a new tab (noreferrer: nothing is copied), carrying the token itself.
        with context.expect_page() as opened:
            page.get_by_role("link", name="API").click()
        docs = opened.value
        watch_console(docs, errors)
        expect(docs.locator(".swagger-ui .info .title")).to_contain_text("mcp-inspector")
        expect(docs.locator(".opblock-summary-path").first).to_be_visible()  # the spec came with the token
        assert "token" not in docs.url
        bare_docs = context.new_page()  # /docs typed in by hand: it asks the open tabs too
        watch_console(bare_docs, errors)
        bare_docs.goto(f"{ui.base_url}/docs")
        expect(bare_docs.locator(".opblock-summary-path").first).to_be_visible()
    finally:
        context.close()
    assert not errors, errors


def test_a_page_visit_with_the_old_query_form_sets_no_cookie(ui: UiServer) -> None:
    with httpx.Client(base_url=ui.base_url) as http:
        visit = http.get("/sessions/3", params={"token": ui.token})
        assert visit.status_code == 303 and "set-cookie" not in visit.headers
        assert visit.headers["location"] == f"/sessions/3#token={ui.token}"
    assert ui.url("/") == f"{ui.base_url}/#token={ui.token}"
