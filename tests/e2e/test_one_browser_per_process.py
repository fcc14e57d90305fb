"""One Chromium per test process (an xdist worker) serves every browser test (tests/e2e/conftest.py,
`chromium`), and the anyio and asyncio tests that run after a browser test in the same process
still start their own event loop (Playwright's sync API runs its loop in a greenlet of this thread).
The tests' tabs share one context per process (`tabs`), cleared after every test, and `page` is the
context's kept tab, lent to each test in turn: the next test sees none of the tabs, storage,
sessionStorage, permissions, listeners or routes a test left behind, and a tab a test changed for good
(an init script) is not lent again."""

from __future__ import annotations

import asyncio
import functools
import http.server
import threading
from collections.abc import Iterator

import anyio
import pytest
from playwright.sync_api import Browser, Page, expect

_SEEN: list[Browser] = []


def test_a_browser_test(browser: Browser, page: Page) -> None:
    page.set_content("<p id=p>shown</p>")
    expect(page.locator("#p")).to_have_text("shown")
    _SEEN.append(browser)


@pytest.mark.anyio
async def test_an_anyio_test_after_a_browser_test() -> None:
    with anyio.fail_after(10):
        assert await anyio.to_thread.run_sync(lambda: 42) == 42


def test_asyncio_run_after_a_browser_test() -> None:
    async def answer() -> int:
        return 42

    assert asyncio.run(answer()) == 42


def test_a_later_browser_test_gets_the_same_browser(browser: Browser, page: Page) -> None:
    page.set_content("<p id=p>again</p>")
    expect(page.locator("#p")).to_have_text("again")
    assert [browser] == _SEEN and browser.is_connected()


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A loopback static site with one empty page: an origin with storage of its own."""
    site = tmp_path_factory.mktemp("origin")
    (site / "index.html").write_text("<!doctype html><title>origin</title>")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


_LENT: list[Page] = []


def test_a_test_leaves_storage_permissions_and_tabs_behind(page: Page, origin: str) -> None:
    page.goto(origin)
    page.evaluate(
        "localStorage.setItem('left', 'behind'); sessionStorage.setItem('left', 'behind');"
        " document.cookie = 'left=behind'"
    )
    page.context.grant_permissions(["clipboard-read"])
    page.context.new_page()  # another tab, left open
    page.on("dialog", lambda dialog: dialog.accept("left behind"))  # a listener, left on
    page.route("**/nowhere", lambda route: route.fulfill(body="left behind"))  # a route, left on
    _LENT.append(page)


def test_the_next_test_starts_as_in_a_new_context(page: Page, origin: str) -> None:
    # The tabs share one context per process (conftest.py, `tabs`): it is cleared after each test, and
    # its kept tab (this one, lent again) is back on about:blank.
    assert page.context.pages == [page] == _LENT
    assert page.url == "about:blank"
    page.goto(origin)
    assert page.evaluate("localStorage.getItem('left')") is None
    assert page.evaluate("sessionStorage.getItem('left')") is None
    assert page.evaluate("document.cookie") == ""
    assert (
        page.evaluate("navigator.permissions.query({name: 'clipboard-read'}).then(p => p.state)") != "granted"
    )
    assert page.evaluate("prompt('asked')") is None  # dismissed: the last test's listener is gone
    assert page.evaluate("fetch('/nowhere').then(r => r.status)") == 404  # its route too
    page.add_init_script("window.leftBehind = 'init script'")  # for good: this tab is not lent again
    page.reload()
    assert page.evaluate("window.leftBehind") == "init script"


def test_a_tab_changed_for_good_is_not_lent_again(page: Page, origin: str) -> None:
    assert page not in _LENT and page.context.pages == [page]
    page.goto(origin)
    assert page.evaluate("window.leftBehind") is None
