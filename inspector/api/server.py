"""Running the UI server: bind a socket, make a token, print the URL, serve with uvicorn.

`UiServer` runs it on a background thread (tests, benchmarks, the demo
command); `serve` runs it in the foreground until Ctrl-C (`mcp-inspect ui`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path

import uvicorn
from sqlalchemy import Engine

from inspector.api.app import create_app
from inspector.api.routes_pages import STATIC_DIR
from inspector.api.security import new_token
from inspector.errors import InspectorError
from inspector.guard import allowed_hosts, check_bind
from inspector.transports.serve import bind

__all__ = ["DEFAULT_PORT", "LOOPBACK", "UiServer", "serve"]

DEFAULT_PORT = 6290
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _bind(host: str, port: int | None) -> socket.socket:
    if port is not None:
        return bind(host, port, allow_remote=True, option="--host")  # UiServer checked the host
    try:
        return bind(host, DEFAULT_PORT, allow_remote=True, option="--host")
    except InspectorError:
        return bind(host, 0, allow_remote=True, option="--host")  # the default port is taken


class UiServer:
    """The UI server on its own socket: `start()` (background thread) or `run()` (this thread)."""

    def __init__(
        self,
        engine: Engine,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        allow_remote: bool = False,
        allow_hosts: tuple[str, ...] = (),
        token: str | None = None,
        static_dir: Path = STATIC_DIR,
        live_interval: float = 0.15,
    ) -> None:
        check_bind(host, allow_remote=allow_remote, option="--host")
        self.host = host
        self.token = token or new_token()
        self.socket = _bind(host, port)
        self.port: int = self.socket.getsockname()[1]
        shown = "localhost" if host == "localhost" else (f"[{host}]" if ":" in host else host)
        if host in ("0.0.0.0", "::"):
            shown = socket.gethostname()
        self.base_url = f"http://{shown}:{self.port}"
        app = create_app(
            engine,
            token=self.token,
            hosts=allowed_hosts(host, self.port, extra=allow_hosts),
            static_dir=static_dir,
            live_interval=live_interval,
        )
        config = uvicorn.Config(
            app, log_level="warning", ws="websockets-sansio", lifespan="on", access_log=False
        )
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    def url(self, path: str = "/") -> str:
        """The URL of a page, with the token in the fragment (never sent; the page keeps it)."""
        return f"{self.base_url}{path}#token={self.token}"

    def run(self, ready: Callable[[], None] | None = None) -> None:
        """Serve in this thread until Ctrl-C / SIGTERM (then KeyboardInterrupt, once the loop is closed).

        In the main thread SIGINT and SIGTERM are held from before the event loop exists until it is
        closed: a signal at any moment only asks uvicorn to stop (`should_exit`; a second Ctrl-C
        `force_exit`), so its start-up finishes and the app's lifespan shuts down in the loop. Left
        to asyncio's runner, a signal before uvicorn's own handlers (or after them) cancelled the
        server's task mid-start: the lifespan task was left waiting and, collected after the loop
        had closed, logged "Event loop is closed" (tests/issues/test_ui_stops_cleanly_on_a_signal_at_any_moment.py).
        `ready` is called once the event loop exists."""
        held = threading.current_thread() is threading.main_thread()
        came: list[int] = []

        def stop(signum: int, _frame: object) -> None:
            came.append(signum)
            if self.server.should_exit and signum == signal.SIGINT:
                self.server.force_exit = True
            self.server.should_exit = True

        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)} if held else {}
        try:
            with asyncio.Runner() as runner:
                runner.get_loop()
                if ready is not None:
                    ready()
                runner.run(self.server.serve(sockets=[self.socket]))
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if came:
            raise KeyboardInterrupt

    def start(self, timeout: float = 30.0) -> UiServer:
        """Serve on a background thread; return once it accepts requests."""
        self.server.config.install_signal_handlers = False  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self.run, name="mcp-inspect-ui", daemon=True)
        self._thread.start()
        deadline = threading.Event()
        for _ in range(int(timeout / 0.02)):
            if self.server.started or not self._thread.is_alive():
                break
            deadline.wait(0.02)
        if not self.server.started:
            raise InspectorError("the UI server did not start")
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self.socket.close()


def serve(
    engine: Engine,
    *,
    host: str,
    port: int | None,
    allow_remote: bool,
    open_browser: bool,
    path: str = "/",
    allow_hosts: tuple[str, ...] = (),
) -> None:
    """`mcp-inspect ui`: print the URL, open a browser unless told not to, serve until Ctrl-C."""
    ui = UiServer(engine, host=host, port=port, allow_remote=allow_remote, allow_hosts=allow_hosts)
    url = ui.url(path)

    def ready() -> None:
        print(f"mcp-inspector UI: {url}", flush=True)
        if not (STATIC_DIR / "index.html").is_file():
            print("  (the web UI is not built: run `make web`; the API works without it)", flush=True)
        print("  Press Ctrl-C to stop.", flush=True)
        if open_browser and _has_browser():
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    with contextlib.suppress(KeyboardInterrupt):  # uvicorn shut down cleanly, then re-raised the Ctrl-C
        ui.run(ready)
    print("mcp-inspector UI stopped.", flush=True)


def _has_browser() -> bool:
    # Without a display, `webbrowser` may start a text-mode browser in this very terminal.
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )
