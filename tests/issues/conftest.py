"""Fixtures shared by the regression tests: the browser tests' Chromium (from tests/e2e), a plain
tab of it (a fresh context, 1400x860; unlike tests/e2e's `page`, a page error does not fail the
test by itself), and a UI server over one generated session (`five_hundred_ui`)."""

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from bench.ui_data import generate
from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import browser, new_context

__all__ = ["browser", "five_hundred_ui", "page"]


def five_hundred_ui(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[UiServer]:
    """A UI server over a new file holding one generated session of 500 messages (session 1), for a
    module's own `ui` fixture: `yield from five_hundred_ui(tmp_path_factory, "name")`."""
    db = tmp_path_factory.mktemp(name) / "rows.db"
    generate(db, 500, name="five hundred")
    server = UiServer(open_engine(db), port=0).start()
    yield server
    server.stop()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = new_context(browser)
    yield context.new_page()
    context.close()
