"""The recording proxy's listener: HTTP/1.1 on an asyncio Protocol (llhttp via httptools), calling ASGI.

Why not uvicorn here (the other listeners keep it, `transports/serve.py`):
the proxy adds its whole per-request cost to every round trip, and with
uvicorn under it that cost was about 1.5-1.8x talking to the server directly
(bench/http_bench.py). Most of it was per-request machinery: a task and an
`asyncio.Event` per request, header validation by regular expression, and a
response head written on its own, one more write (and wake-up of the client)
per response. This server does what the proxy needs and no more:

- HTTP/1.1 keep-alive (HTTP/1.0 too), pipelined requests answered in order,
  request bodies by content-length or chunked, `Expect: 100-continue`
  answered on the first `receive()`, flow control both ways, idle
  connections closed after `keep_alive` seconds, 400 for what llhttp cannot
  parse.
- A request head must be complete within `header_timeout` seconds (10, or
  `$MCP_INSPECTOR_HEADER_TIMEOUT`) of its first byte, and a connection's first
  head within that of the connection's start: else 408 and the connection is
  closed (a client sending heads slowly, slowloris-style, or nothing at all,
  would otherwise hold a connection until the keep-alive sweep). No timer on
  the usual path: a head that arrives whole in one read never arms one; a
  partial head arms one timer at the end of that read (further bytes do not
  extend it), cancelled when the head completes. While an earlier request of
  the connection is in flight (reading may be paused for it) the timer is
  re-armed rather than fired.
- One task per connection, not per request: it runs the app for each
  request in turn and waits on a future for the next one.
- The response head is held until the first body bytes, so head and body go
  out in one write (one wake-up of the client, not two): a sized body comes
  in the same step (the proxy has it when it starts the response), else the
  head goes when the app yields; a streamed body (an SSE answer) is given
  up to 1 ms for its first event, then the head goes alone.
- A websocket handshake becomes an ASGI `websocket` scope (the guard refuses
  foreign origins there, the proxy refuses the rest): a close before accept
  is answered 403, as uvicorn does. Other upgrades are answered as plain
  requests and the connection is closed after them.
- `send({"type": ABORT})` cuts the connection at once (fault injection).
- `on_connection_lost(client)` for each closed connection (ASGI has no event
  for a keep-alive connection closing between requests).
- SIGINT/SIGTERM: stop accepting, close idle connections, give open
  responses `graceful` seconds, then cancel them; ASGI lifespan startup and
  shutdown around it (the proxy closes its upstream pool there). A caller
  may pass a `ListenerControl`: its `stop()` (from any thread) is the same
  stop as the signals (the handlers call it), and it says the address once
  the listener serves. Signal handlers are set on the main thread only (a
  listener on another thread, an in-process test's, is stopped by `stop()`).

The app is the guarded proxy (`guard.ListenerGuard` around `HttpProxy`): the
guard runs on every request here exactly as under uvicorn.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import http
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import unquote

import httptools

from inspector.errors import InspectorError

__all__ = [
    "ABORT",
    "HEADER_TIMEOUT_ENV",
    "PROXY_LISTENER_ENV",
    "ListenerControl",
    "proxy_listener",
    "serve_proxy",
]

# An ASGI message of our own (`send({"type": ABORT})`): cut the client's connection without an answer
# (`proxy --faults` rules with `action: disconnect`). uvicorn, the fallback, answers it with an error
# of its own: it closes the connection, or answers 500 before a response started.
ABORT = "mcp-inspect.abort"

# `uvicorn` selects the library fallback (`transports.serve.serve`) instead of this listener.
PROXY_LISTENER_ENV = "MCP_INSPECTOR_PROXY_LISTENER"
# Seconds a request head may take to arrive (see the module docstring); 10 when unset.
HEADER_TIMEOUT_ENV = "MCP_INSPECTOR_HEADER_TIMEOUT"

ASGIApp = Callable[
    [
        MutableMapping[str, Any],
        Callable[[], Awaitable[dict[str, Any]]],
        Callable[[dict[str, Any]], Awaitable[None]],
    ],
    Awaitable[None],
]

_READ_HIGH = 1 << 20  # pause reading a request body while this much waits for the app
_KEEP_ALIVE = 75.0  # seconds an idle keep-alive connection is kept (as uvicorn was configured)
_GRACEFUL = 2.0  # seconds open responses get at shutdown
_HEADER_TIMEOUT = 10.0  # seconds a request head may take to arrive
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
_HEAD_HOLD = 0.001  # seconds a streamed response's head waits for its first bytes, to share their write
_STATUS_LINES: dict[int, bytes] = {}


def _status_line(status: int) -> bytes:
    line = _STATUS_LINES.get(status)
    if line is None:
        try:
            phrase = http.HTTPStatus(status).phrase
        except ValueError:
            phrase = ""
        line = _STATUS_LINES[status] = b"HTTP/1.1 %d %s\r\n" % (status, phrase.encode("latin-1"))
    return line


class _Request:
    """One request on a connection: its scope, the body as it arrives, and its response's state."""

    __slots__ = (
        "scope", "conn", "body", "buffered", "complete", "waiter", "keep_alive", "expect_continue",
        "started", "finished", "chunked", "head_only", "head", "websocket", "close_after", "delivered",
    )  # fmt: skip

    def __init__(self, conn: _Connection, scope: dict[str, Any], keep_alive: bool) -> None:
        self.scope = scope
        self.conn = conn
        self.body: collections.deque[bytes] = collections.deque()
        self.buffered = 0
        self.complete = False  # the whole request body has arrived
        self.waiter: asyncio.Future[None] | None = None
        self.keep_alive = keep_alive
        self.expect_continue = False
        self.started = False  # the response head was sent (or is held)
        self.finished = False  # the response is complete
        self.chunked = False
        self.head_only = scope["method"] == "HEAD"
        self.head: bytes | None = None  # a response head held for the first body bytes
        self.websocket = scope["type"] == "websocket"
        self.close_after = False
        self.delivered = False  # the last body message (or websocket.connect) went to the app

    def wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # --- ASGI receive / send --------------------------------------------------------------------

    async def receive(self) -> dict[str, Any]:
        conn = self.conn
        if self.websocket:
            if not self.delivered:
                self.delivered = True
                return {"type": "websocket.connect"}
            while not conn.lost:
                await self._wait()
            return {"type": "websocket.disconnect", "code": 1006}
        while True:
            if conn.lost or self.finished:
                return {"type": "http.disconnect"}
            if not self.delivered:
                if self.body or self.complete:
                    body = self.body
                    data = (body.popleft() if len(body) == 1 else b"".join(body)) if body else b""
                    body.clear()
                    if self.buffered > _READ_HIGH:
                        conn.resume_reading()
                    self.buffered = 0
                    self.delivered = self.complete
                    return {"type": "http.request", "body": data, "more_body": not self.complete}
                if self.expect_continue and not self.started:
                    self.expect_continue = False
                    conn.write(_CONTINUE)
            # More body, the end of the response or of the connection (then: a disconnect).
            await self._wait()

    async def _wait(self) -> None:
        waiter = self.waiter = self.conn.loop.create_future()
        try:
            await waiter
        finally:
            if self.waiter is waiter:
                self.waiter = None

    async def send(self, message: dict[str, Any]) -> None:
        conn = self.conn
        if conn.write_paused and not conn.lost:
            await conn.drain()
        if conn.lost or self.finished:
            return
        kind = message["type"]
        if self.websocket:
            self._websocket_send(kind, message)
            return
        if not self.started:
            if kind != "http.response.start":
                if kind == ABORT:
                    self._abort()
                    return
                raise RuntimeError(f"expected http.response.start, got {kind}")
            self.started = True
            self.head = self._head(message["status"], message.get("headers", ()))
            # Held for the first body bytes. A sized body follows in this step (the proxy has it when it
            # starts the response): the head is written when the app yields, if it did not come. A streamed
            # body (an SSE answer) has its first event a little behind the head: held up to _HEAD_HOLD.
            if self.chunked:
                conn.loop.call_later(_HEAD_HOLD, self._flush_head)
            else:
                conn.loop.call_soon(self._flush_head)
            return
        if kind != "http.response.body":
            if kind == ABORT:
                self._abort()
                return
            raise RuntimeError(f"expected http.response.body, got {kind}")
        body: bytes = message.get("body", b"")
        more: bool = message.get("more_body", False)
        if self.head_only:
            body = b""
        if self.chunked:
            data = b"%x\r\n%b\r\n" % (len(body), body) if body else b""
            if not more:
                data += b"0\r\n\r\n"
        else:
            data = body
        head, self.head = self.head, None
        if head is not None:
            data = head + data
        if data:
            conn.write(data)
        if not more:
            self.finished = True
            conn.request_done(self)

    def _abort(self) -> None:
        """`ABORT`: the connection is cut at once (nothing held is sent), as a crashing server would."""
        self.head = None
        self.started = self.finished = True
        self.keep_alive = False
        transport = self.conn.transport
        if transport is not None:
            transport.abort()

    def _flush_head(self) -> None:
        head, self.head = self.head, None
        if head is not None and not self.conn.lost:
            self.conn.write(head)

    def _head(self, status: int, headers: Any) -> bytes:
        parts = [_status_line(status)]
        framed = self.head_only or status in (204, 304) or status < 200
        for name, value in headers:
            lower = name.lower()
            if lower == b"content-length":
                framed = True
            elif lower == b"transfer-encoding":
                continue  # the framing is this server's: chunked below when there is no length
            elif lower == b"connection" and b"close" in value.lower():
                self.keep_alive = False
                continue
            parts += (name, b": ", value, b"\r\n")
        if not framed:
            if self.scope["http_version"] == "1.1":
                self.chunked = True
                parts.append(b"transfer-encoding: chunked\r\n")
            else:
                self.keep_alive = False  # an HTTP/1.0 body without a length ends with the connection
        if not self.keep_alive or self.close_after:
            parts.append(b"connection: close\r\n")
        parts.append(b"\r\n")
        return b"".join(parts)

    def _websocket_send(self, kind: str, message: dict[str, Any]) -> None:
        # Nothing behind this listener speaks websocket: any close, or anything else, is a 403.
        reason = (message.get("reason") or "") if kind == "websocket.close" else ""
        body = reason.encode()
        self.conn.write(
            _status_line(403)
            + b"content-type: text/plain; charset=utf-8\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%b"
            % (len(body), body)
        )
        self.started = self.finished = True
        self.keep_alive = False
        self.conn.request_done(self)


class _Connection(asyncio.Protocol):
    """One client connection: parses its requests and runs the app for each, in order."""

    def __init__(self, server: _Server) -> None:
        self.server = server
        self.loop = server.loop
        self.app = server.app
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.client: tuple[str, int] | None = None
        self.local: tuple[str, int] | None = None
        self.lost = False
        self.write_paused = False
        self.read_paused = False
        self._drain: asyncio.Future[None] | None = None
        self._url = b""
        self._headers: list[tuple[bytes, bytes]] = []
        self.parsing: _Request | None = None  # the request whose body is being read
        self.queue: collections.deque[_Request] = collections.deque()  # parsed, waiting to run
        self.current: _Request | None = None
        self.task: asyncio.Task[None] | None = None  # runs the app for each request in turn
        self._next: asyncio.Future[None] | None = None  # the task waits on it for the next request
        self.idle_since = time.monotonic()
        self.upgraded = False
        self.in_head = False  # a request head has begun and is not complete yet
        self.head_timer: asyncio.TimerHandle | None = None

    # --- asyncio.Protocol -----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        peer = transport.get_extra_info("peername")
        local = transport.get_extra_info("sockname")
        self.client = (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) else None
        self.local = (str(local[0]), int(local[1])) if isinstance(local, tuple) else None
        self.server.connections.add(self)
        # The first head is due within the timeout of the connection's start (it may send nothing).
        self.head_timer = self.loop.call_later(self.server.header_timeout, self._head_late)

    def data_received(self, data: bytes) -> None:
        if self.upgraded:
            return  # bytes of a protocol we do not speak, after an upgrade request
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self.upgraded = True
            self.pause_reading()
            req = self.parsing or (self.queue[-1] if self.queue else self.current)
            if req is not None:
                req.close_after = True
        except httptools.HttpParserError as exc:
            self._bad_request(exc)
        if self.in_head and self.head_timer is None:  # a partial head: it has the timeout from now
            self.head_timer = self.loop.call_later(self.server.header_timeout, self._head_late)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.server.connections.discard(self)
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None
        for future in (self._drain, self._next):
            if future is not None and not future.done():
                future.set_result(None)
        self._drain = None
        for req in (self.current, self.parsing, *self.queue):
            if req is not None:
                req.wake()
        self.queue.clear()
        if self.server.on_connection_lost is not None and self.client is not None:
            self.server.on_connection_lost(self.client)

    def pause_writing(self) -> None:
        self.write_paused = True

    def resume_writing(self) -> None:
        self.write_paused = False
        drain, self._drain = self._drain, None
        if drain is not None and not drain.done():
            drain.set_result(None)

    # --- httptools callbacks --------------------------------------------------------------------

    def on_message_begin(self) -> None:
        self._url = b""
        self._headers = []
        self.in_head = True

    def on_url(self, url: bytes) -> None:
        self._url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name.lower(), value))

    def on_headers_complete(self) -> None:
        self.in_head = False
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None
        parser = self.parser
        url = self._url
        if url[:1] != b"/":  # absolute form (or `*`): the path and query as llhttp splits them
            parsed = httptools.parse_url(url)
            raw_path = parsed.path or b"/"
            query = parsed.query or b""
        else:
            raw_path, _, query = url.partition(b"?")
            raw_path = raw_path.split(b"#", 1)[0]
            query = query.split(b"#", 1)[0]
        path = raw_path.decode("latin-1")
        if "%" in path:
            path = unquote(path)
        headers = self._headers
        websocket = parser.should_upgrade() and _is_websocket(headers)
        scope: dict[str, Any] = {
            "type": "websocket" if websocket else "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": parser.get_http_version(),
            "method": parser.get_method().decode("ascii"),
            "scheme": "ws" if websocket else "http",
            "path": path,
            "raw_path": raw_path,
            "query_string": query,
            "root_path": "",
            "headers": headers,
            "client": self.client,
            "server": self.local,
        }
        if websocket:
            scope["subprotocols"] = []
        req = _Request(self, scope, parser.should_keep_alive())
        for name, value in headers:
            if name == b"expect" and value.lower() == b"100-continue":
                req.expect_continue = True
        self.parsing = req
        self.queue.append(req)
        if self.task is None:
            self.task = self.loop.create_task(self._run())
        elif self.current is not None:
            self.pause_reading()  # pipelined: read on once the requests before it are answered
        if self._next is not None and not self._next.done():
            self._next.set_result(None)

    def on_body(self, body: bytes) -> None:
        req = self.parsing
        if req is None:
            return
        req.body.append(body)
        req.buffered += len(body)
        if req.buffered > _READ_HIGH:
            self.pause_reading()
        req.wake()

    def on_message_complete(self) -> None:
        req = self.parsing
        if req is None:
            return
        self.parsing = None
        req.complete = True
        req.wake()

    # --- running the app --------------------------------------------------------------------------

    async def _run(self) -> None:
        """Answer the parsed requests in order, for as long as the connection is open."""
        try:
            while not self.lost:
                if not self.queue:
                    self.idle_since = time.monotonic()
                    self._next = self.loop.create_future()
                    await self._next
                    continue
                req = self.current = self.queue.popleft()
                await self._call(req)
                self.current = None
                if not req.keep_alive or req.close_after:
                    self.close()
                    return
                if not self.queue:
                    self.resume_reading()
        finally:
            self.current = None
            self._next = None
            self.task = None

    async def _call(self, req: _Request) -> None:
        try:
            await self.app(req.scope, req.receive, req.send)
        except asyncio.CancelledError:
            self.close()
            raise
        except Exception as exc:  # the app failed: 500 if nothing was sent yet, else cut the connection
            print(f"[mcp-inspect] proxy listener: {type(exc).__name__}: {exc}", file=sys.stderr)
            if not req.started and not req.websocket:
                req.keep_alive = False
                await req.send({"type": "http.response.start", "status": 500, "headers": _PLAIN})
                await req.send({"type": "http.response.body", "body": b"Internal Server Error"})
            else:
                self.close()
            return
        if not req.finished:
            if req.websocket:
                req._websocket_send("websocket.close", {})
            elif not req.started:  # the app answered nothing
                req.keep_alive = False
                await req.send({"type": "http.response.start", "status": 500, "headers": _PLAIN})
                await req.send({"type": "http.response.body", "body": b"Internal Server Error"})
            else:
                self.close()  # a response cut short: the client must not wait for the rest

    def request_done(self, req: _Request) -> None:
        """`req`'s response is complete (its body may not all have been read: then the connection is spent)."""
        if not req.complete and not req.websocket:
            req.keep_alive = False  # the rest of the request body is still on the wire
        req.wake()

    # --- helpers ---------------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        if not self.lost and self.transport is not None:
            self.transport.write(data)

    async def drain(self) -> None:
        if self.write_paused and not self.lost:
            if self._drain is None or self._drain.done():
                self._drain = self.loop.create_future()
            await self._drain

    def pause_reading(self) -> None:
        if not self.read_paused and self.transport is not None and not self.lost:
            self.read_paused = True
            self.transport.pause_reading()

    def resume_reading(self) -> None:
        if self.read_paused and not self.upgraded and self.transport is not None and not self.lost:
            self.read_paused = False
            self.transport.resume_reading()

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def _head_late(self) -> None:
        """A request head not complete in time: 408 and close (re-armed while a request is in flight)."""
        self.head_timer = None
        if self.lost:
            return
        if self.current is not None or self.queue:
            self.head_timer = self.loop.call_later(self.server.header_timeout, self._head_late)
            return
        body = b"the request head was not complete within %gs" % self.server.header_timeout
        self.write(
            _status_line(408)
            + b"content-type: text/plain; charset=utf-8\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%b"
            % (len(body), body)
        )
        self.close()

    def _bad_request(self, exc: Exception) -> None:
        if self.current is None and not self.lost:
            body = f"Invalid HTTP request received: {exc}".encode()
            self.write(
                _status_line(400)
                + b"content-type: text/plain; charset=utf-8\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%b"
                % (len(body), body)
            )
        self.close()


_PLAIN = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"21")]


def _is_websocket(headers: list[tuple[bytes, bytes]]) -> bool:
    return any(n == b"upgrade" and v.lower() == b"websocket" for n, v in headers)


class _Server:
    def __init__(
        self,
        app: ASGIApp,
        loop: asyncio.AbstractEventLoop,
        on_connection_lost: Callable[[tuple[str, int]], None] | None,
        header_timeout: float = _HEADER_TIMEOUT,
    ) -> None:
        self.app = app
        self.loop = loop
        self.on_connection_lost = on_connection_lost
        self.header_timeout = header_timeout
        self.connections: set[_Connection] = set()

    def sweep(self) -> None:
        """Close keep-alive connections idle for longer than `_KEEP_ALIVE` seconds."""
        before = time.monotonic() - _KEEP_ALIVE
        for conn in list(self.connections):
            if conn.current is None and not conn.queue and conn.parsing is None and conn.idle_since < before:
                conn.close()


async def _lifespan(app: ASGIApp) -> tuple[asyncio.Queue[dict[str, Any]], asyncio.Queue[dict[str, Any]]]:
    """Start the app's lifespan; returns (to the app, from the app) once startup completed."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def run() -> None:
        with contextlib.suppress(Exception):
            await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, inbox.get, outbox.put)
        await outbox.put({"type": "lifespan.gone"})  # an app without lifespan support returns at once

    inbox.put_nowait({"type": "lifespan.startup"})
    asyncio.get_running_loop().create_task(run())
    await outbox.get()
    return inbox, outbox


class ListenerControl:
    """A running listener as its caller holds it, besides signals: `address` (the socket's name)
    once it serves and `on_ready` has run (`ready` is set then), and `stop()`, which does what
    SIGINT/SIGTERM do (a second call: what a second Ctrl-C does). Thread-safe: a caller on another
    thread (an in-process test) stops the listener with it; a stop before the listener serves
    takes effect as it starts."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.address: Any = None
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_stop: Callable[[], None] | None = None
        self._early = 0

    def stop(self) -> None:
        with self._lock:
            if self._loop is None or self._on_stop is None:
                self._early += 1
                return
            loop, on_stop = self._loop, self._on_stop
        with contextlib.suppress(RuntimeError):  # the loop is closed: the listener has stopped
            loop.call_soon_threadsafe(on_stop)

    def _attach(self, loop: asyncio.AbstractEventLoop, on_stop: Callable[[], None]) -> None:
        with self._lock:
            self._loop, self._on_stop = loop, on_stop
            early, self._early = self._early, 0
        for _ in range(early):
            loop.call_soon(on_stop)

    def _detach(self) -> None:
        with self._lock:
            self._loop = self._on_stop = None


async def _serve(
    app: ASGIApp,
    sock: socket.socket,
    on_ready: Callable[[], None] | None,
    on_connection_lost: Callable[[tuple[str, int]], None] | None,
    graceful: float,
    header_timeout: float,
    control: ListenerControl | None = None,
) -> None:
    loop = asyncio.get_running_loop()
    state = _Server(app, loop, on_connection_lost, header_timeout)
    inbox, outbox = await _lifespan(app)
    server = await loop.create_server(lambda: _Connection(state), sock=sock, backlog=2048)
    stop = asyncio.Event()
    signals = 0
    control = control or ListenerControl()

    def on_signal() -> None:
        nonlocal signals
        signals += 1
        stop.set()
        if signals > 1:  # a second Ctrl-C: no more waiting for open responses
            for conn in list(state.connections):
                if conn.task is not None and conn.current is not None:
                    conn.task.cancel()

    control._attach(loop, on_signal)
    signalled = threading.current_thread() is threading.main_thread()
    if signalled:  # handlers can only be set on the main thread
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, control.stop)

    def sweep() -> None:
        state.sweep()
        sweeper[0] = loop.call_later(_KEEP_ALIVE / 5, sweep)

    sweeper = [loop.call_later(_KEEP_ALIVE / 5, sweep)]
    if on_ready is not None:
        on_ready()
    control.address = sock.getsockname()
    control.ready.set()
    try:
        await stop.wait()
    finally:
        control._detach()
        sweeper[0].cancel()
        server.close()
        busy = []
        for conn in list(state.connections):
            if conn.current is None and not conn.queue:
                conn.close()
            else:
                for req in (conn.current, *conn.queue):
                    if req is not None:
                        req.keep_alive = False
                if conn.task is not None:
                    busy.append(conn.task)
        if busy:
            _, pending = await asyncio.wait(busy, timeout=graceful)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
        for conn in list(state.connections):
            conn.close()
        inbox.put_nowait({"type": "lifespan.shutdown"})
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5.0):
                await outbox.get()
        if signalled:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)


def serve_proxy(
    app: ASGIApp,
    sock: socket.socket,
    *,
    on_ready: Callable[[], None] | None = None,
    on_connection_lost: Callable[[tuple[str, int]], None] | None = None,
    graceful: float = _GRACEFUL,
    header_timeout: float | None = None,
    control: ListenerControl | None = None,
) -> None:
    """Serve `app` on the bound socket `sock` (uvloop) until SIGINT/SIGTERM or `control.stop()`; see
    the module docstring.

    `header_timeout`: seconds a request head may take (None: `$MCP_INSPECTOR_HEADER_TIMEOUT`, else 10)."""
    import uvloop

    if header_timeout is None:
        header_timeout = header_timeout_from_env()
    uvloop.run(_serve(app, sock, on_ready, on_connection_lost, graceful, header_timeout, control))


def header_timeout_from_env() -> float:
    """`$MCP_INSPECTOR_HEADER_TIMEOUT` in seconds (10 when unset); InspectorError for a bad value."""
    text = os.environ.get(HEADER_TIMEOUT_ENV, "").strip()
    if not text:
        return _HEADER_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 86400:
        raise InspectorError(f"{HEADER_TIMEOUT_ENV} wants seconds above 0 (e.g. 10), got {text!r}")
    return value


def proxy_listener(header_timeout: float, control: ListenerControl | None = None) -> Callable[..., None]:
    """What serves a proxy or gateway: this module's listener, faster than uvicorn
    (bench/http_bench.py); uvicorn stays behind the seam ($MCP_INSPECTOR_PROXY_LISTENER=uvicorn) as
    the library fallback, should the own listener misbehave with some client. `control`: a stop
    that is not a signal (the own listener only: uvicorn stops on signals)."""
    if os.environ.get(PROXY_LISTENER_ENV, "").lower() == "uvicorn":
        if control is not None:
            raise ValueError(f"a ListenerControl needs the own listener (unset {PROXY_LISTENER_ENV})")
        from inspector.transports.serve import serve

        return serve
    return functools.partial(serve_proxy, header_timeout=header_timeout, control=control)
