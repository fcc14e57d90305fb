"""Browser tests: Debian's Chromium driven by Playwright (Python) against a real UI server.

Playwright cannot download its own browser here, so the system Chromium is
launched through `executable_path` ($CHROMIUM, default /usr/bin/chromium;
`make test` installs it). Screenshots go to tests/artifacts/ (git-ignored).
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Frame,
    Page,
    Playwright,
    Route,
    expect,
    sync_playwright,
)

from bench.ui_bench import CHROMIUM_ARGS
from inspector.api import UiServer
from inspector.api.routes_pages import STATIC_DIR
from inspector.store import open_engine
from tests.api.recordings import generate_session, http_session, out_of_order_session
from tests.sessions import load
from tests.warm_peers import inspector_argv

# `expect(...)` waits up to 15 s (Playwright's default is 5 s): a `wrap` started by a test opens its
# store about 2 s after it starts on an idle machine (it waits for the server's first bytes or
# 0.5 s, then imports the store), several times that under a loaded two-worker run. A condition
# that holds returns at once, so only a failing test waits longer.
expect.set_options(timeout=15_000)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
BIG = 100_000


def launch_chromium(playwright: Playwright) -> Browser:
    """The system Chromium, headless."""
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium is not installed at {CHROMIUM}: run `make test` (it installs it) or set $CHROMIUM"
        )
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@pytest.fixture(scope="session")
def chromium() -> Iterator[tuple[Browser, asyncio.AbstractEventLoop]]:
    """One Chromium for the whole run of this process (an xdist worker), and Playwright's event loop.

    Playwright's sync API runs its event loop in a greenlet of this thread and marks it as the
    thread's running loop after every call; an anyio or asyncio test that runs later in the same
    process would then refuse to start ("Cannot run the event loop while another loop is running").
    So the loop is the thread's running loop only inside a test that uses the browser (`browser`
    marks it, and unmarks it after the test), and the browser lives on across the other tests.
    (A thread of Playwright's own would not do: the sync API's objects are bound to the thread that
    made them, and the tests drive pages from theirs.)
    """
    if not (STATIC_DIR / "index.html").is_file():
        pytest.fail("the web UI is not built: run `make web` (make test does it)")
    manager = sync_playwright()
    playwright = manager.start()
    loop = asyncio.get_running_loop()  # Playwright's, marked by its last call
    try:
        browser = launch_chromium(playwright)
    except BaseException:
        manager.__exit__()
        asyncio._set_running_loop(None)
        raise
    asyncio._set_running_loop(None)
    yield browser, loop
    asyncio._set_running_loop(loop)
    try:
        browser.close()
    finally:
        manager.__exit__()
        asyncio._set_running_loop(None)


@pytest.fixture
def browser(chromium: tuple[Browser, asyncio.AbstractEventLoop]) -> Iterator[Browser]:
    """The run's Chromium, for one test (a test opens its own contexts, or takes `page`)."""
    chromium_browser, loop = chromium
    asyncio._set_running_loop(loop)
    try:
        yield chromium_browser
    finally:
        asyncio._set_running_loop(None)


@pytest.fixture(scope="session")
def e2e_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1: the demo (recorded through the real shim, tests/data/sessions/demo.jsonl); 2: 1,000
    generated messages; 3: HTTP rows by hand; 4: answers out of order. Made once per process.
    (The session of BIG messages is test_scale_and_live's own: only it looks at one, and making it
    took ~9 s of CPU in every process that opened any page of `ui`.)"""
    db = tmp_path_factory.mktemp("e2e") / "e2e.db"
    assert load(db, "demo", name="demo") == 1
    generate_session(db, 1_000, name="a thousand")
    http_session(db)
    out_of_order_session(db)
    return db


@pytest.fixture(scope="session")
def ui(e2e_db: Path) -> Iterator[UiServer]:
    server = UiServer(open_engine(e2e_db), port=0, live_interval=0.1).start()
    yield server
    server.stop()


@pytest.fixture
def warm_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `mcp-inspect serve` processes a UI server of this test starts (the Mock server page's
    "Start mock server") forked from the warm server (tests/warm_peers.py): each a process of its own
    on the same command line after the program, without ~1.5 s of CPU in imports at each start. The
    program is `inspector.api.serve_processes.program` (this installation's `mcp-inspect`); its pid is
    the launcher's, which relays the UI's SIGINT and exits with the run."""
    import inspector.api.serve_processes

    monkeypatch.setattr(inspector.api.serve_processes, "program", lambda: inspector_argv())


def subscribed(ui: UiServer, session_id: int, timeout: float = 60.0) -> None:
    """Wait (bounded) until a page's live-feed subscription to `session_id` reached the server: rows
    written before it are not pushed to that page (it fetched what existed when it loaded)."""
    app: Any = ui.server.config.app
    while not hasattr(getattr(app, "state", None), "inspector"):  # through the ASGI wrappers
        app = app.app
    feed = app.state.inspector.feed
    deadline = time.monotonic() + timeout
    while not any(session_id in listener.sessions for listener in tuple(feed.listeners)):
        assert time.monotonic() < deadline, f"no page subscribed to session {session_id} in {timeout} s"
        time.sleep(0.01)


def new_context(browser: Browser, theme: str = "light") -> BrowserContext:
    context = browser.new_context(viewport={"width": 1400, "height": 860}, color_scheme=theme)  # type: ignore[arg-type]
    context.set_default_timeout(20_000)
    return context


def hold_the_entry(page: Page) -> None:
    """Hold the app's entry script back half a second (as a slow load of a large bundle would): the
    answers the head script (web/src/first/prime.ts) asked for are in before the app renders, however loaded the machine."""

    def hold(route: Route) -> None:
        time.sleep(0.5)
        route.continue_()

    page.route(re.compile(r"/assets/index-[^/]+\.js$"), hold)


def watch_console(page: Page, errors: list[str]) -> None:
    """Collect the page's uncaught errors and Content-Security-Policy violations into `errors`."""
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console",
        lambda msg: "Content Security Policy" in msg.text and errors.append(f"CSP: {msg.text}"),
    )


@pytest.fixture(scope="session")
def tabs(chromium: tuple[Browser, asyncio.AbstractEventLoop]) -> BrowserContext:
    """The browser context the `page` tabs of this process open in, one for the run (it closes
    with the browser), and its first tab, kept open (on about:blank between tests): `page` lends it.

    A context of its own for every test cost Chromium ~1.2 s of CPU more per test than a tab in a
    context that lives on: a new context starts cold, and the bundle was fetched and compiled again in
    each. What a test leaves behind is cleared after it (`page`, `context`); a test that needs a
    context of its own (a theme, routes on the whole context, storage to start from) opens one with
    `new_context`.
    """
    chromium_browser, loop = chromium
    asyncio._set_running_loop(loop)
    try:
        context = new_context(chromium_browser)
        _ORIGINS[context] = set()
        context.on("page", lambda tab: _watch_origins(tab, _ORIGINS[context]))
        context.new_page()  # the kept tab: see `page`
    finally:
        asyncio._set_running_loop(None)
    return context


# What a test may do to its tab that nothing undoes (init scripts, exposed functions) or that the next
# test would inherit (media, viewport, headers, timeouts): such a tab is closed after the test, not lent.
_LASTING = (
    "add_init_script",
    "expose_binding",
    "expose_function",
    "emulate_media",
    "route_from_har",
    "route_web_socket",
    "set_default_navigation_timeout",
    "set_default_timeout",
    "set_extra_http_headers",
    "set_viewport_size",
)


@pytest.fixture
def page(browser: Browser, tabs: BrowserContext) -> Iterator[Page]:
    """The context's kept tab (`tabs`), lent to this test; the test fails on a JavaScript error or a
    CSP violation in it.

    Open the UI with `ui.url(path)`: the token rides in the fragment and the page keeps it in this
    tab's sessionStorage, so later `page.goto(base_url + path)` calls in the same tab stay logged in.
    After the test its other tabs are closed and the context's cookies, storage (localStorage: theme,
    remembered row positions) and permissions are cleared (`clear`); the kept tab loses the test's
    listeners, routes and sessionStorage and goes back to about:blank, so the next test starts as in a
    fresh context (the HTTP cache stays warm). A new tab for every test cost Chromium ~0.45 s of CPU
    more per test than the next page in the same one (a renderer process started, its bundle compiled
    again). A tab the test changed for good (`_LASTING`), left on a page of another origin than the
    one it visited, or closed, is closed after the test and a new kept tab opened.
    """
    page = tabs.pages[0] if tabs.pages else tabs.new_page()
    impl: Any = page._impl_obj
    before = {event: list(impl.raw_listeners(event)) for event in list(impl._events)}
    lasting: list[str] = []
    for name in _LASTING:
        setattr(page, name, _noting(getattr(page, name), name, lasting))
    origins: set[str] = set()

    def navigated(frame: Frame) -> None:
        if frame.parent_frame is None:
            origins.add(_origin(frame.url))

    page.on("framenavigated", navigated)
    errors: list[str] = []
    watch_console(page, errors)
    try:
        yield page
    finally:
        for name in _LASTING:
            vars(page).pop(name, None)
        for event in list(impl._events):
            for listener in impl.raw_listeners(event):
                if listener not in before.get(event, ()):
                    impl.remove_listener(event, listener)
        clear(tabs)
        _give_back(tabs, page, lasting, origins)
    assert not errors, f"JavaScript errors or CSP violations on the page: {errors}"


def _noting(method: Any, name: str, lasting: list[str]) -> Any:
    @functools.wraps(method)
    def noted(*args: Any, **kwargs: Any) -> Any:
        lasting.append(name)
        return method(*args, **kwargs)

    return noted


def _origin(url: str) -> str:
    """A page's origin where it has storage of its own (http, https); "" for about:blank and data:."""
    parts = urlsplit(url)
    if parts.scheme in ("about", "data"):
        return ""
    return f"{parts.scheme}://{parts.netloc}"


def _give_back(tabs: BrowserContext, page: Page, lasting: list[str], origins: set[str]) -> None:
    """Make the lent tab the next test's (see `page`), or close it and keep a new one."""
    if page.is_closed():
        tabs.new_page()
        return
    visited = origins - {""}
    here = _origin(page.url)
    if not lasting and len(visited) <= 1 and here in visited | {""} and not here.startswith("chrome"):
        try:
            page.unroute_all(behavior="ignoreErrors")
            if here:
                page.evaluate("sessionStorage.clear()")
            elif visited:  # it left the one origin it saw: its sessionStorage there is out of reach
                raise RuntimeError
            page.goto("about:blank")
            return
        except Exception:  # a tab that cannot be reset is not lent again
            pass
    page.close()
    tabs.new_page()


@pytest.fixture
def context(browser: Browser, tabs: BrowserContext) -> Iterator[BrowserContext]:
    """The shared context (`tabs`) for a test that opens tabs of its own (`context.new_page()`; a
    theme with `page.emulate_media(color_scheme=...)`), cleared after the test as for `page`: it
    starts as a new context does (no storage, no permissions). A test that changes the context
    itself (routes or init scripts on it, another viewport for every tab) opens one with `new_context`."""
    try:
        yield tabs
    finally:
        clear(tabs)


def clear(tabs: BrowserContext) -> None:
    """Close a test's tabs in the shared context and clear what it stored there: cookies, permissions,
    and the storage (localStorage, IndexedDB, Cache Storage, service workers) of every origin its tabs
    and frames showed. The HTTP cache stays warm.

    (Playwright's `set_storage_state`, used before, cleared the HTTP cache, then opened a tab to visit
    every origin the context had ever seen: ~0.5 s of Chromium CPU per test, and the next page fetched
    and compiled the bundle again.)"""
    seen = _ORIGINS.setdefault(tabs, set())
    for tab in tabs.pages[1:]:  # the test's tabs and any they opened; the first is the kept one
        seen.add(_origin(tab.url))
        tab.close()
    tabs.clear_cookies()
    tabs.clear_permissions()
    origins = {origin for origin in seen if origin.startswith(("http://", "https://"))}
    seen.clear()
    if origins:
        cdp = tabs.new_cdp_session(tabs.pages[0] if tabs.pages else tabs.new_page())
        try:
            for origin in sorted(origins):
                cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": _STORAGE})
        finally:
            cdp.detach()


_STORAGE = "local_storage,indexeddb,cache_storage,service_workers,file_systems,websql"
_ORIGINS: dict[BrowserContext, set[str]] = {}


def _watch_origins(tab: Page, origins: set[str]) -> None:
    """Note the origin of every document `tab` and its frames show (for `clear`)."""

    def navigated(frame: Frame) -> None:
        origins.add(_origin(frame.url))

    tab.on("framenavigated", navigated)


def shot(page: Page, name: str) -> Path:
    """Save a screenshot under tests/artifacts/."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
