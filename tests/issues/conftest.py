"""Fixtures shared by the regression tests: the browser tests' Chromium (from tests/e2e), a plain
tab of it (a fresh context, 1400x860; unlike tests/e2e's `page`, a page error does not fail the
test by itself), a UI server over one generated session (`five_hundred_ui`), and the command line
run in-process (`mcp_inspect`)."""

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page

from bench.ui_data import generate
from inspector.api import UiServer
from inspector.store import open_engine
from tests.cli_in_process import Ran, run
from tests.e2e.conftest import browser, chromium, new_context

__all__ = ["Ran", "browser", "chromium", "five_hundred_ui", "mcp_inspect", "page"]


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


@pytest.fixture
def mcp_inspect() -> Callable[..., Ran]:
    """`mcp-inspect ARGS...` in-process: `tests.cli_in_process.run` (see there)."""
    return run
