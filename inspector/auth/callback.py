"""The loopback redirect listener: where the browser brings the authorization response back.

A small ASGI app behind the one listener guard (`guard.Access`), bound on
127.0.0.1 through `transports.serve.bind`; it answers the first GET on
`/callback` with a page saying the window can be closed and hands its URL
to the waiting flow.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
from anyio.abc import TaskGroup

from inspector.guard import Access
from inspector.transports.serve import bind, serve_until

__all__ = ["CallbackListener", "callback_listener"]

_PAGE = b"<!doctype html><title>mcp-inspect</title><p>Authorization received: you can close this window."


class CallbackListener:
    """The redirect URI and, once the browser came back, the full callback URL."""

    def __init__(self, port: int) -> None:
        self.redirect_uri = f"http://127.0.0.1:{port}/callback"
        self.received: str | None = None
        self.arrived = anyio.Event()

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        ok = scope["method"] == "GET" and scope["path"] == "/callback" and self.received is None
        if ok:
            query = scope.get("query_string", b"").decode("latin-1")
            self.received = self.redirect_uri + (f"?{query}" if query else "")
            self.arrived.set()
        await send(
            {
                "type": "http.response.start",
                "status": 200 if ok else 404,
                "headers": [(b"content-type", b"text/html")],
            }
        )
        await send({"type": "http.response.body", "body": _PAGE if ok else b"not found"})

    async def wait(self, timeout: float) -> str | None:
        with anyio.move_on_after(timeout):
            await self.arrived.wait()
        return self.received


@contextlib.asynccontextmanager
async def callback_listener(tg: TaskGroup, port: int = 0) -> AsyncIterator[CallbackListener]:
    """Listen on 127.0.0.1 (a free port unless given) for the redirect while the block runs."""
    sock = bind("127.0.0.1", port, option="--auth-port")
    listener = CallbackListener(sock.getsockname()[1])
    guarded = Access().guard(listener.app, "127.0.0.1", sock.getsockname()[1])
    stop = anyio.Event()
    done = anyio.Event()

    async def run() -> None:
        try:
            await serve_until(guarded, sock, stop)
        finally:
            done.set()

    tg.start_soon(run)
    try:
        yield listener
    finally:
        stop.set()
        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            await done.wait()
        sock.close()
