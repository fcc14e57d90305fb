"""The loopback redirect listener: where the browser brings the authorization response back.

A small ASGI app behind the one listener guard (`guard.Access`), bound on
127.0.0.1 through `transports.serve.bind`. The runner tells it which
authorization request it waits for (`expect`); the GET on `/callback` that
brings that request's `state` back gets a page saying the window can be
closed, and its URL goes to the waiting flow. Any other GET (another local
user, a guessed or replayed state, none at all) gets a 400 and changes
nothing: the listener keeps waiting, as the UI's `/oauth/callback` does.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
from anyio.abc import TaskGroup

from inspector.guard import Access
from inspector.transports.serve import bind, serve_until

__all__ = ["CallbackListener", "callback_listener", "state_of"]

_PAGE = b"<!doctype html><title>mcp-inspect</title><p>Authorization received: you can close this window."
_REFUSED = b"<!doctype html><title>mcp-inspect</title><p>No authorization is waiting for this state."


class CallbackListener:
    """The redirect URI and, once the browser came back, the full callback URL."""

    def __init__(self, port: int) -> None:
        self.redirect_uri = f"http://127.0.0.1:{port}/callback"
        self.received: str | None = None
        self.arrived = anyio.Event()
        self.expected_state: str | None = None

    def expect(self, authorization_url: str) -> None:
        """The authorization request about to be opened: only a redirect with its state is taken."""
        self.expected_state = state_of(authorization_url)

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
        if scope["method"] != "GET" or scope["path"] != "/callback":
            status, body = 404, b"not found"
        else:
            query = scope.get("query_string", b"").decode("latin-1")
            state = parse_qs(query).get("state", [""])[0]
            wanted = self.expected_state
            if self.received is None and wanted and secrets.compare_digest(state.encode(), wanted.encode()):
                self.received = self.redirect_uri + (f"?{query}" if query else "")
                self.arrived.set()
                status, body = 200, _PAGE
            else:  # not ours: refused, and the flow keeps waiting for the right one
                status, body = 400, _REFUSED
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"text/html"),
                    (b"cache-control", b"no-store"),
                    (b"referrer-policy", b"no-referrer"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def wait(self, timeout: float) -> str | None:
        with anyio.move_on_after(timeout):
            await self.arrived.wait()
        return self.received


def state_of(url: str) -> str | None:
    """The `state` parameter of an authorization request (or redirect) URL."""
    values = parse_qs(urlsplit(url).query).get("state")
    return values[0] if values else None


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
