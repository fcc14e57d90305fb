"""An ASGI app served by uvicorn on a thread of the test process, on a real loopback socket.

The browser and the UI server's clients need a real socket, not a process: a peer started as
`python -m ...` spent 1.5-2.5 s of CPU importing the SDK at each start, where this process has it
imported already. `served(app, sock)` serves until the block ends (uvicorn's graceful shutdown), with
the app's lifespan on (the SDK's streamable HTTP apps run their session manager in it). Used where the
peer being a process is not what the test is about.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn


def loopback_socket() -> socket.socket:
    """A socket listening on 127.0.0.1 at a port the OS picked (connections wait in the backlog
    until the server accepts them)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


GRACE = 0.5  # s: see `served`


@contextmanager
def served(app: Any, sock: socket.socket, *, timeout: float = 60.0) -> Iterator[None]:
    """Serve `app` on `sock` from a thread until the block ends; the socket is closed after.

    A connection still open when the block ends (a UI server's client holding its SSE stream: it
    stays connected until its test ends) is cut after `GRACE` seconds: uvicorn's graceful shutdown
    would wait for it forever, and the join below gave up only after 30 s, in every test that
    left a client connected (test_demo_over_streamable_http, test_listen_at_2026[streamable-http])."""
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", access_log=False, timeout_graceful_shutdown=GRACE
    )
    config.install_signal_handlers = False  # type: ignore[attr-defined]  # not the main thread
    server = uvicorn.Server(config)
    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(server.serve(sockets=[sock]))
        except BaseException as exc:  # reported to the test below
            failed.append(exc)

    thread = threading.Thread(target=run, name="in-thread-peer", daemon=True)
    thread.start()
    ready = threading.Event()
    for _ in range(int(timeout / 0.02)):
        if server.started or not thread.is_alive():
            break
        ready.wait(0.02)
    try:
        assert server.started, f"the in-thread server did not start: {failed}"
        yield
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
        assert not thread.is_alive(), "the in-thread server did not stop in 30 s"


@contextmanager
def demo_http(*, variant: bool = False) -> Iterator[str]:
    """The demo server (inspector/demo, the official SDK) over Streamable HTTP, served on a thread of
    this process, as `python -m inspector.demo --transport streamable-http --port 0` serves it; its
    MCP URL."""
    import warnings

    from mcp.shared.exceptions import MCPDeprecationWarning

    from inspector.demo.server import build_server

    with warnings.catch_warnings():
        # As the demo's own entry point: it uses deprecated-at-2026 features (logging) on purpose.
        warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
        app = build_server(variant=variant).streamable_http_app()
    sock = loopback_socket()
    with served(app, sock):
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
