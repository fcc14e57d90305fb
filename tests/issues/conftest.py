"""Fixtures shared by the regression tests: the browser tests' Chromium (from tests/e2e), and a
plain tab of it (a fresh context, 1400x860; unlike tests/e2e's `page`, a page error does not fail
the test by itself)."""

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.conftest import browser, new_context

__all__ = ["browser", "page"]


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = new_context(browser)
    yield context.new_page()
    context.close()
