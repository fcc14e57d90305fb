"""The recording proxy's upstream HTTP/1.1 client: llhttp (through httptools) on asyncio protocols.

Why not httpx or aiohttp: in the proxy benchmark (bench/http_bench.py, JSON
responses, p50 of a tools/call round trip over talking to the server
directly, about 580 us) the proxy added about 850 us with httpx (pure-Python
h11, pool bookkeeping, head and body in two writes), 420 us with aiohttp's
ClientSession (auto_decompress off, no auto headers; `bench/http_variants.py
aiohttp`) and 260 us with this client; the target is at most 1.5x direct.
It does only what a reverse proxy needs:

- One keep-alive pool per origin (scheme, host, port): idle connections are
  reused most-recent first, dropped once the server closes them or after
  `keepalive_expiry` seconds idle (4 s: servers close idle connections too,
  uvicorn and Node after 5 s, and a request must not race that close), at
  most `max_idle_per_origin` kept.
- At most `max_connections_per_origin` connections per origin (open, idle or
  being opened; 64 by default): past that a request waits for one to come
  back to the pool or close, it never fails for it.
- A request is retried once, on a new connection, when the reused (pooled)
  connection it went out on was closed by the server before any byte of an
  answer came back: the server closed it while idle and our request crossed
  that close. Never on a fresh connection, never a second time, never after a
  response byte (the server may have acted on the request). A streamed body
  is kept while it is sent on a reused connection, to send it again.
- The request is sent as given: the caller's header names, values and order,
  `host` first (the origin's, unless the caller passed one). The only headers
  added are for framing: `content-length` for a whole body that has none, or
  `transfer-encoding: chunked` for a streamed body without `content-length`
  (a caller's `transfer-encoding` is dropped: framing is the client's job).
  The head and a whole body (or the first chunk of a streamed one) go out in
  one write.
- Streamed request bodies (an async iterator of bytes), honouring the
  socket's flow control; a body that ends short of its `content-length` is
  an error (the connection is closed, never reused).
- Streamed responses, framed by content-length, chunked encoding or the end
  of the connection, as the server chose. `request()` returns when the head
  has arrived; with a content-length, when the body's first bytes have too
  (they follow the head at once, and the proxy then forwards the two in one
  write: one wake-up of its client fewer). `aiter_raw()` yields the body bytes
  as they arrive (transfer coding removed, content coding kept). Reading
  from the socket pauses while more than `_READ_HIGH` bytes wait to be read.
  1xx interim responses are skipped; trailers are dropped.
- Connect timeout (10 s by default), no read timeout (an SSE stream may
  stay open for hours), TLS for https origins verified against the system's
  trust store (`ssl.create_default_context()`, which honours SSL_CERT_FILE
  and SSL_CERT_DIR) unless a context is given.
- Every failure is an `UpstreamError`: `ConnectError` (`ConnectTimeout`)
  before the request reached the server, `RemoteProtocolError` when the
  server broke HTTP or closed the connection early, `RequestBodyError` when
  the request body could not be sent whole.
- A response not read to its end when it is closed (`aclose`) closes its
  connection, so the server sees the client leave.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import socket
import ssl
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import httptools

from inspector.errors import (
    ConnectError,
    ConnectTimeout,
    RemoteProtocolError,
    RequestBodyError,
    UpstreamError,
)

__all__ = [
    "UpstreamClient",
    "UpstreamResponse",
]

_READ_HIGH = 1 << 20  # pause reading the socket while this many response bytes wait for the reader
_READ_LOW = 1 << 18  # and resume below this
_REPLAY_KEPT = 4 << 20  # a streamed request body kept for one retry on a new connection, at most
_DEFAULT_PORTS = {"http": 80, "https": 443}


class _Origin:
    __slots__ = ("key", "scheme", "host", "port", "host_header", "ssl")

    def __init__(self, scheme: str, netloc: str, ssl_context: ssl.SSLContext | None) -> None:
        parts = urlsplit(f"{scheme}://{netloc}")
        if scheme not in _DEFAULT_PORTS or not parts.hostname:
            raise ValueError(f"not an http(s) origin: {scheme}://{netloc}")
        self.key = f"{scheme}://{netloc}"
        self.scheme = scheme
        self.host = parts.hostname
        self.port = parts.port or _DEFAULT_PORTS[scheme]
        host = f"[{self.host}]" if ":" in self.host else self.host
        shown = host if self.port == _DEFAULT_PORTS[scheme] else f"{host}:{self.port}"
        self.host_header = shown.encode("idna" if not shown.isascii() else "ascii")
        self.ssl = (ssl_context or ssl.create_default_context()) if scheme == "https" else None


class UpstreamResponse:
    """A response whose head has arrived; read its body with `aiter_raw()`, then `aclose()` it."""

    __slots__ = (
        "status", "headers", "http_version", "_conn", "_loop", "_client", "_head_only", "_head", "_chunks",
        "_buffered", "_waiter", "_complete", "_keep_alive", "_error", "_interim", "_head_done",
        "_until_close", "_paused", "_spent", "_answered",
    )  # fmt: skip

    def __init__(self, conn: _Connection, client: UpstreamClient, head_only: bool) -> None:
        self.status = 0
        self.headers: list[tuple[bytes, bytes]] = []  # as received: names' case kept, in order
        self.http_version = ""
        self._conn: _Connection | None = conn
        self._loop = conn.loop
        self._client = client
        self._head_only = head_only
        self._head: asyncio.Future[None] = conn.loop.create_future()
        self._chunks: collections.deque[bytes] = collections.deque()
        self._buffered = 0
        self._waiter: asyncio.Future[None] | None = None
        self._complete = False
        self._keep_alive = False
        self._error: UpstreamError | None = None
        self._interim = False
        self._head_done = False
        self._until_close = False
        self._paused = False
        self._spent = False  # the connection cannot carry another request, whatever the server says
        self._answered = False  # some byte of an answer arrived (then the request is never retried)

    @property
    def complete(self) -> bool:
        """Whether the whole body has arrived (it may not all have been read yet)."""
        return self._complete

    @property
    def at_end(self) -> bool:
        """Whether the whole body has arrived and been read: the chunk just read was the last."""
        return self._complete and not self._chunks

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        """The body bytes as they arrive; raises `RemoteProtocolError` if the response breaks off."""
        chunks = self._chunks
        while True:
            while chunks:
                chunk = chunks.popleft()
                self._buffered -= len(chunk)
                if self._paused and self._buffered < _READ_LOW:
                    self._resume_reading()
                yield chunk
            if self._complete:
                return
            if self._error is not None:
                raise self._error
            waiter = self._waiter = self._loop.create_future()
            try:
                await waiter
            finally:
                self._waiter = None

    async def aread(self) -> bytes:
        """The whole body."""
        return b"".join([chunk async for chunk in self.aiter_raw()])

    async def aread_or_broke(self) -> tuple[bytes, str | None]:
        """The body as far as it came, and None, or why it broke off (an `UpstreamError`)."""
        chunks: list[bytes] = []
        try:
            async for chunk in self.aiter_raw():
                chunks.append(chunk)
        except UpstreamError as exc:
            return b"".join(chunks), f"upstream response broke: {exc}"
        return b"".join(chunks), None

    async def aclose(self) -> None:
        """Give the connection back to the pool if the response ended cleanly, else close it."""
        self._release()

    def _release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        conn.response = None
        if self._complete and self._keep_alive and not conn.closed:
            if self._paused:
                self._paused = False
                conn.transport.resume_reading()  # type: ignore[union-attr]
            self._client._put_idle(conn)
        else:
            conn.close()
            self._fail(RemoteProtocolError("the response was closed before its end"))

    def _resume_reading(self) -> None:
        self._paused = False
        conn = self._conn
        if conn is not None and not conn.closed:
            conn.transport.resume_reading()  # type: ignore[union-attr]

    # --- fed by the connection's parser callbacks ------------------------------------------------

    def _wake(self) -> None:
        if self._waiter is not None:
            _resolve(self._waiter)

    def _feed(self, chunk: bytes) -> None:
        if not self._head.done():
            self._head.set_result(None)
        self._chunks.append(chunk)
        self._buffered += len(chunk)
        if self._buffered > _READ_HIGH and not self._paused and self._conn is not None:
            self._paused = True
            self._conn.transport.pause_reading()  # type: ignore[union-attr]
        self._wake()

    def _finish(self, keep_alive: bool) -> None:
        if self._complete or self._error is not None:
            return
        self._complete = True
        self._keep_alive = keep_alive and not self._spent
        if not self._head.done():
            self._head.set_result(None)
        self._wake()

    def _fail(self, error: UpstreamError) -> None:
        if self._complete or self._error is not None:
            return
        self._error = error
        if not self._head.done():
            if self._head_done:  # a head held for its body (`_feed`): it goes out, the body breaks off
                self._head.set_result(None)
            else:
                self._head.set_exception(error)
        self._wake()


class _Connection(asyncio.Protocol):
    """One connection to an origin; parses the responses of the requests sent on it, one at a time."""

    def __init__(self, origin: _Origin, loop: asyncio.AbstractEventLoop, client: UpstreamClient) -> None:
        self.origin = origin
        self.loop = loop
        self.client = client
        self.counted = True  # holds one of the origin's connection slots until it closes
        self.parser = httptools.HttpResponseParser(self)
        self.transport: asyncio.Transport | None = None
        self.response: UpstreamResponse | None = None
        self.closed = False
        self.idle_since = 0.0
        self.pool: list[_Connection] | None = None  # the idle list this connection is in, if any
        self.reused = False  # taken from the pool for the request it carries now
        self.stale_close = False  # that request failed as on a connection the server had closed idle
        self._drain: asyncio.Future[None] | None = None
        self._write_paused = False

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()
        self.client._free_slot(self)

    # --- asyncio.Protocol -----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        if self.response is not None:
            self.response._answered = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            # A 101 answer: what follows is another protocol, which a proxy of HTTP requests cannot relay.
            if self.response is not None:
                self.response._finish(keep_alive=False)
            self.close()
        except httptools.HttpParserError as exc:
            if self.response is not None:
                cause = exc.__context__ if isinstance(exc, httptools.HttpParserCallbackError) else exc
                self.response._fail(RemoteProtocolError(f"invalid HTTP from the upstream server: {cause}"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.client._free_slot(self)
        if self.pool is not None:  # an idle connection the server closed: out of the pool at once
            with contextlib.suppress(ValueError):
                self.pool.remove(self)
            self.pool = None
        drain, self._drain = self._drain, None
        if drain is not None and not drain.done():
            drain.set_result(None)
        r = self.response
        if r is None:
            return
        if r._head_done and r._until_close:
            r._finish(keep_alive=False)  # the body runs to the end of the connection: this is its end
            return
        where = "in the middle of the response" if r._head_done else "before answering"
        r._fail(RemoteProtocolError(f"upstream closed the connection {where}" + (f" ({exc})" if exc else "")))

    def pause_writing(self) -> None:
        self._write_paused = True

    def resume_writing(self) -> None:
        self._write_paused = False
        drain, self._drain = self._drain, None
        if drain is not None and not drain.done():
            drain.set_result(None)

    async def drain(self) -> None:
        if self._write_paused and not self.closed:
            self._drain = self.loop.create_future()
            await self._drain

    # --- httptools callbacks --------------------------------------------------------------------

    def on_message_begin(self) -> None:
        if self.response is None:
            raise RemoteProtocolError("a response arrived when no request was waiting")

    def on_header(self, name: bytes, value: bytes) -> None:
        r = self.response
        if r is not None and not r._head_done:  # after the head: trailers, dropped
            r.headers.append((name, value))

    def on_headers_complete(self) -> None:
        r = self.response
        if r is None:
            return
        status = self.parser.get_status_code()
        if 100 <= status < 200 and status != 101:
            r.headers.clear()  # an interim response (100 Continue, 103 Early Hints): the real one follows
            r._interim = True
            return
        r.status = status
        r.http_version = self.parser.get_http_version()
        r._head_done = True
        if r._head_only or status in (204, 304):
            # No body, whatever the headers say; after a HEAD the parser would wait for one: do not reuse.
            r._finish(keep_alive=not r._head_only and self.parser.should_keep_alive())
            return
        framed = sized = False
        for name, value in r.headers:
            lower = name.lower()
            if lower == b"content-length":
                framed = sized = True
                break
            if lower == b"transfer-encoding" and b"chunked" in value.lower():
                framed = True
                break
        r._until_close = not framed
        if not sized:
            r._head.set_result(None)
        # else: the head is handed over with the body's first bytes (`_feed`): a server writes a sized
        # body right behind its head, and the proxy then forwards both in one write, not two.

    def on_body(self, body: bytes) -> None:
        r = self.response
        if r is not None and not r._complete:
            r._feed(body)

    def on_message_complete(self) -> None:
        r = self.response
        if r is None:
            return
        if r._interim:
            r._interim = False
            return
        r._finish(keep_alive=self.parser.should_keep_alive())


class UpstreamClient:
    """HTTP/1.1 requests to any number of origins, with a keep-alive pool per origin."""

    def __init__(
        self,
        *,
        connect_timeout: float | None = 10.0,
        keepalive_expiry: float = 4.0,
        max_idle_per_origin: int = 100,
        max_connections_per_origin: int = 64,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        if max_connections_per_origin < 1:
            raise ValueError("max_connections_per_origin must be at least 1")
        self.connect_timeout = connect_timeout
        self.keepalive_expiry = keepalive_expiry
        self.max_idle_per_origin = max_idle_per_origin
        self.max_connections_per_origin = max_connections_per_origin
        self.ssl_context = ssl_context
        self.retries = 0  # requests sent again after a reused connection was found closed (for tests, stats)
        self._origins: dict[tuple[str, str], _Origin] = {}
        self._idle: dict[str, list[_Connection]] = {}
        self._open: dict[str, int] = {}  # connections per origin: being opened, in use or idle
        self._waiters: dict[str, collections.deque[asyncio.Future[None]]] = {}
        self._closed = False

    async def request(
        self,
        method: str,
        url: str,
        headers: list[tuple[bytes, bytes]] | None = None,
        body: bytes | AsyncIterator[bytes] = b"",
    ) -> UpstreamResponse:
        """Send a request; returns once the response's head has arrived (read its body, then `aclose()`).

        `url` is sent as it is written (no re-quoting): its path and query are the request target.
        """
        if self._closed:
            raise RuntimeError("UpstreamClient is closed")
        scheme, netloc, target = _split_url(url)
        origin = self._origins.get((scheme, netloc))
        if origin is None:
            origin = self._origins[(scheme, netloc)] = _Origin(scheme, netloc, self.ssl_context)
        streamed = not isinstance(body, bytes | bytearray)
        head, declared, chunked = _request_head(
            method, target, origin.host_header, headers or (), body, streamed
        )
        conn = self._get_idle(origin) or await self._connect(origin)
        if not conn.reused:
            return await self._send(conn, method, head, body, declared, chunked)
        replay = _Replayable(body) if streamed else None  # type: ignore[arg-type]
        try:
            return await self._send(conn, method, head, replay or body, declared, chunked)
        except RemoteProtocolError:
            # A reused connection the server closed under us, before any byte of an answer: the
            # server closed it idle and cannot have acted on the request. Once more, on a new one.
            if not conn.stale_close or (replay is not None and not replay.replayable):
                raise
        self.retries += 1
        fresh = await self._connect(origin, new=True)
        return await self._send(fresh, method, head, replay.again() if replay else body, declared, chunked)

    async def _send(
        self,
        conn: _Connection,
        method: str,
        head: bytes,
        body: bytes | AsyncIterator[bytes],
        declared: int | None,
        chunked: bool,
    ) -> UpstreamResponse:
        response = UpstreamResponse(conn, self, method == "HEAD")
        conn.response = response
        try:
            if isinstance(body, bytes | bytearray):
                conn.transport.write(head + body if body else head)  # type: ignore[union-attr]
            else:
                await self._send_streamed(conn, response, head, body, declared, chunked)
            await response._head
        except BaseException as exc:
            # Failed or cancelled before the head arrived: this connection's state is unknown, never reuse it.
            conn.stale_close = isinstance(exc, RemoteProtocolError) and conn.reused and not response._answered
            if not response._head.done():
                response._head.cancel()
            response._spent = True
            response._keep_alive = False
            response._release()
            raise
        return response

    async def aclose(self) -> None:
        """Close every idle connection; the client cannot be used afterwards."""
        self._closed = True
        for idle in self._idle.values():
            for conn in idle:
                conn.pool = None
                conn.close()
            idle.clear()

    # --- the pool ---------------------------------------------------------------------------------

    def _get_idle(self, origin: _Origin) -> _Connection | None:
        idle = self._idle.get(origin.key)
        if not idle:
            return None
        expired_before = time.monotonic() - self.keepalive_expiry
        while idle:
            conn = idle.pop()
            conn.pool = None
            if not conn.closed and conn.idle_since >= expired_before:
                conn.reused = True
                return conn
            conn.close()
        return None

    def _put_idle(self, conn: _Connection) -> None:
        if self._closed:
            conn.close()
            return
        idle = self._idle.setdefault(conn.origin.key, [])
        if len(idle) >= self.max_idle_per_origin:
            conn.close()
            return
        conn.idle_since = time.monotonic()
        conn.pool = idle
        idle.append(conn)
        if self._waiters.get(conn.origin.key):
            self._wake(conn.origin.key)  # a request waiting for a connection takes this one

    def _free_slot(self, conn: _Connection) -> None:
        """`conn` is closed: its origin may open another connection (called once per connection)."""
        if conn.counted:
            conn.counted = False
            self._open[conn.origin.key] -= 1
            if self._waiters.get(conn.origin.key):
                self._wake(conn.origin.key)

    def _wake(self, key: str) -> None:
        waiters = self._waiters[key]
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    async def _connect(self, origin: _Origin, new: bool = False) -> _Connection:
        """A connection to `origin`: at its maximum of connections, wait for one to come back to the
        pool (taken as it is) or to close. `new`: never a pooled one (an idle one is closed to make room)."""
        key = origin.key
        while self._open.get(key, 0) >= self.max_connections_per_origin:
            idle = self._get_idle(origin)
            if idle is not None:
                if not new:
                    return idle
                idle.close()  # frees its slot
                continue
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.setdefault(key, collections.deque()).append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self._wake(key)  # woken, then cancelled: pass the turn on
                raise
        self._open[key] = self._open.get(key, 0) + 1
        made: list[_Connection] = []
        try:
            return await self._open_connection(origin, made)
        except BaseException:
            if made:
                self._free_slot(made[0])  # once, whether or not asyncio already reported it lost
            else:
                made.append(_Connection(origin, asyncio.get_running_loop(), self))
                self._free_slot(made[0])
            raise

    async def _open_connection(self, origin: _Origin, made: list[_Connection]) -> _Connection:
        loop = asyncio.get_running_loop()
        where = f"{origin.host}:{origin.port}"

        def protocol() -> _Connection:
            made.append(_Connection(origin, loop, self))
            return made[-1]

        try:
            async with asyncio.timeout(self.connect_timeout):
                _, conn = await loop.create_connection(
                    protocol,
                    origin.host,
                    origin.port,
                    ssl=origin.ssl,
                    server_hostname=origin.host if origin.ssl is not None else None,
                )
        except TimeoutError:
            raise ConnectTimeout(f"no connection to {where} within {self.connect_timeout:g} s") from None
        except ssl.SSLCertVerificationError as exc:
            raise ConnectError(
                f"TLS handshake with {where} failed: {exc} (a private CA: --ca-bundle FILE; "
                "only for a test server: --insecure)"
            ) from exc
        except ssl.SSLError as exc:
            raise ConnectError(f"TLS handshake with {where} failed: {exc}") from exc
        except OSError as exc:
            raise ConnectError(f"cannot connect to {where}: {exc.strerror or exc}") from exc
        return conn

    # --- sending a streamed body ------------------------------------------------------------------

    async def _send_streamed(
        self,
        conn: _Connection,
        response: UpstreamResponse,
        head: bytes,
        body: AsyncIterator[bytes],
        declared: int | None,
        chunked: bool,
    ) -> None:
        transport = conn.transport
        assert transport is not None
        sent = 0
        pending = head
        try:
            async for chunk in body:
                if response._head.done():
                    break  # the server answered before the body's end (e.g. 413): stop sending it
                if conn.closed:
                    raise RemoteProtocolError("upstream closed the connection while the request was sent")
                if not chunk:
                    continue
                sent += len(chunk)
                if declared is not None and sent > declared:
                    raise RequestBodyError(f"the request body is longer than its content-length ({declared})")
                data = b"%x\r\n%b\r\n" % (len(chunk), chunk) if chunked else chunk
                transport.write(pending + data if pending else data)
                pending = b""
                await conn.drain()
        except UpstreamError:
            raise
        except (OSError, RuntimeError) as exc:  # the body's source failed
            raise RequestBodyError(f"the request body could not be read: {exc}") from exc
        if response._head.done():
            response._spent = True  # the rest of the body was never sent: the connection is spent
            response._keep_alive = False
            return
        if declared is not None and sent != declared:
            raise RequestBodyError(f"the request body ended after {sent} of its {declared} bytes")
        end = b"0\r\n\r\n" if chunked else b""
        if pending or end:
            transport.write(pending + end)


class _Replayable:
    """A streamed request body that keeps what was read from it, to be sent once more (`again()`).

    It keeps at most `_REPLAY_KEPT` bytes: a longer body is not held whole for a retry that is
    almost never needed (the server closes an idle connection as the request starts, not after
    megabytes of it); past that it cannot go again (`replayable` False) and the error stands."""

    __slots__ = ("_source", "_kept", "_size")

    def __init__(self, source: AsyncIterator[bytes]) -> None:
        self._source = source.__aiter__()
        self._kept: list[bytes] | None = []
        self._size = 0

    @property
    def replayable(self) -> bool:
        return self._kept is not None

    def __aiter__(self) -> _Replayable:
        return self

    async def __anext__(self) -> bytes:
        chunk = await self._source.__anext__()
        if self._kept is not None:
            self._size += len(chunk)
            if self._size > _REPLAY_KEPT:
                self._kept = None
            else:
                self._kept.append(chunk)
        return chunk

    async def again(self) -> AsyncIterator[bytes]:
        for chunk in self._kept or ():
            yield chunk
        async for chunk in self._source:
            yield chunk


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _split_url(url: str) -> tuple[str, str, str]:
    """(scheme, netloc, request target) of an absolute URL, the target as written."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not an absolute URL: {url!r}")
    cut = len(rest)
    for mark in "/?":
        i = rest.find(mark)
        if 0 <= i < cut:
            cut = i
    netloc, target = rest[:cut], rest[cut:].split("#", 1)[0]
    if not target.startswith("/"):
        target = "/" + target
    return scheme.lower(), netloc, target


def _request_head(
    method: str,
    target: str,
    host: bytes,
    headers: Any,
    body: Any,
    streamed: bool,
) -> tuple[bytes, int | None, bool]:
    """The request head, the declared content-length (if any) and whether the body goes chunked."""
    lines = [b"%s %s HTTP/1.1\r\n" % (method.encode("ascii"), target.encode("latin-1"))]
    declared: int | None = None
    has_host = False
    for name, value in headers:
        lower = name.lower()
        if lower == b"content-length":
            try:
                declared = int(value)
            except ValueError:
                raise ValueError(f"invalid content-length {value!r}") from None
        elif lower == b"transfer-encoding":
            continue
        elif lower == b"host":
            has_host = True
        lines.append(name + b": " + value + b"\r\n")
    if not has_host:
        lines.insert(1, b"host: " + host + b"\r\n")
    chunked = False
    if declared is None:
        if streamed:
            lines.append(b"transfer-encoding: chunked\r\n")
            chunked = True
        elif body:
            lines.append(b"content-length: %d\r\n" % len(body))
    elif not streamed and len(body) != declared:
        raise ValueError(f"content-length {declared} but a body of {len(body)} bytes")
    lines.append(b"\r\n")
    head = b"".join(lines)
    if head.count(b"\n") != len(lines) or head.count(b"\r") != len(lines):
        raise ValueError("a line break inside the request line or a header")  # never split a header in two
    return head, declared, chunked
