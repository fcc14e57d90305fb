"""Fixtures shared by the regression tests: the browser tests' Chromium (from tests/e2e), a plain
tab of it (a fresh context, 1400x860; unlike tests/e2e's `page`, a page error does not fail the
test by itself), a UI server over one generated session (`five_hundred_ui`), and the command line
run in-process (`mcp_inspect`)."""

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, Page
from typer.testing import CliRunner

from bench.ui_data import generate
from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import browser, new_context

__all__ = ["Ran", "browser", "five_hundred_ui", "mcp_inspect", "page"]


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


@dataclass
class Ran:
    """What an in-process `mcp-inspect` run left: its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def mcp_inspect() -> Iterator[Callable[..., Ran]]:
    """`mcp-inspect ARGS...` in-process, as the console script runs it (`inspector.cli.main`: a user
    error is one line on stderr and exit status 2), with stdout and stderr apart; `env` adds
    environment variables for the run, `input` is its stdin. A command still running after `timeout`
    seconds is stopped as Ctrl-C stops it (SIGINT), so one that should have refused to start fails
    its test rather than hanging it. The process-wide state a command sets (redaction
    rules, outbound HTTP settings, signal handlers, `sys.argv`) is put back when it returns, as if
    it had been a process of its own."""
    from inspector.capture import redact
    from inspector.cli import main
    from inspector.transports import outbound

    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2)

    def run(
        *args: str, env: dict[str, str] | None = None, input: str | bytes | None = None, timeout: float = 60
    ) -> Ran:
        saved = (redact._active, outbound._active, sys.argv, {sig: signal.getsignal(sig) for sig in signals})
        sys.argv = ["mcp-inspect", *args]
        code: int = 0
        deadline = threading.Timer(timeout, signal.raise_signal, (signal.SIGINT,))
        try:
            with CliRunner().isolation(input=input, env=env) as (out, err, _output):
                deadline.start()
                try:
                    main()
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
                finally:
                    deadline.cancel()
                    sys.stdout.flush()
                    sys.stderr.flush()
                return Ran(code, out.getvalue().decode(), err.getvalue().decode())
        finally:  # what the run set goes with it, as with a process
            redact._active, outbound._active, sys.argv, handlers = saved
            for sig, handler in handlers.items():
                signal.signal(sig, handler)

    yield run
