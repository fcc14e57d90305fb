"""One Chromium per test process (an xdist worker) serves every browser test (tests/e2e/conftest.py,
`chromium`), and the anyio and asyncio tests that run after a browser test in the same process
still start their own event loop (Playwright's sync API runs its loop in a greenlet of this thread)."""

from __future__ import annotations

import asyncio

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
