"""Running an ASGI app on uvicorn from the CLI: bind first (so port 0 works), then announce the URL."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import anyio
import uvicorn

from inspector.errors import InspectorError
from inspector.guard import check_bind

__all__ = ["bind", "parse_listen", "serve", "serve_async"]


def parse_listen(listen: str) -> tuple[str, int]:
    """`HOST:PORT` (or just `PORT`) as a (host, port) pair."""
    host, sep, port = listen.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", listen
    host = host.strip("[]") or "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        raise InspectorError(f"--listen wants HOST:PORT, got {listen!r}") from None
    if not 0 <= number <= 65535:
        raise InspectorError(f"port {number} is out of range")
    return host, number


def bind(host: str, port: int, *, allow_remote: bool = False, option: str = "--listen") -> socket.socket:
    """A listening socket, or a clear error when the address is taken or is not loopback and
    `allow_remote` is false (nothing is bound then)."""
    check_bind(host, allow_remote=allow_remote, option=option)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it. Without it a keep-alive connection's answer written in two
    # parts (head and body, or SSE events) waited for the client's delayed ACK: about 40 ms.
    # (asyncio sets TCP_NODELAY only on sockets whose proto is IPPROTO_TCP; ours say 0.)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InspectorError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def serve(
    app: Any,
    sock: socket.socket,
    *,
    on_ready: Callable[[], None] | None = None,
    on_connection_lost: Callable[[tuple[str, int]], None] | None = None,
) -> None:
    """Serve until SIGINT/SIGTERM (uvicorn's graceful shutdown, 2 s for open streams).

    The recording proxy has a faster listener of its own (`http_listener.serve_proxy`); this is its
    library fallback (`MCP_INSPECTOR_PROXY_LISTENER=uvicorn`). `on_connection_lost` is told the client
    address of each connection that closes (ASGI has no event for a keep-alive connection closing
    between requests)."""
    _server(app, on_ready, on_connection_lost).run(sockets=[sock])


async def serve_async(app: Any, sock: socket.socket, *, on_ready: Callable[[], None] | None = None) -> None:
    """`serve` inside a running event loop (so the app can share its task group)."""
    await _server(app, on_ready).serve(sockets=[sock])


async def serve_until(app: Any, sock: socket.socket, stop: anyio.Event) -> None:
    """`serve_async` until `stop` is set, then shut down gracefully (a cancelled uvicorn
    complains about its lifespan on stderr)."""
    server = _server(app, None)

    async def stopper() -> None:
        await stop.wait()
        server.should_exit = True

    async with anyio.create_task_group() as tg:
        tg.start_soon(stopper)
        await server.serve(sockets=[sock])
        tg.cancel_scope.cancel()


def _connection_watching(on_lost: Callable[[tuple[str, int]], None]) -> type:
    """uvicorn's httptools protocol, telling `on_lost` the client address of a closed connection."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class WatchedProtocol(HttpToolsProtocol):
        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            if self.client:
                on_lost(self.client)

    return WatchedProtocol


def _server(
    app: Any,
    on_ready: Callable[[], None] | None,
    on_connection_lost: Callable[[tuple[str, int]], None] | None = None,
) -> uvicorn.Server:
    config = uvicorn.Config(
        app,
        loop="uvloop",
        http=_connection_watching(on_connection_lost) if on_connection_lost else "httptools",
        lifespan="on",
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=2,
        timeout_keep_alive=75,
        # Add nothing to what passes through: no `server`/`date` headers of our own, no
        # X-Forwarded-* rewriting (it also costs time on every request).
        server_header=False,
        date_header=False,
        proxy_headers=False,
    )
    server = uvicorn.Server(config)
    if on_ready is not None:
        original = server.startup

        async def startup(sockets: list[socket.socket] | None = None) -> None:
            await original(sockets=sockets)
            on_ready()

        server.startup = startup  # type: ignore[method-assign]
    return server
