"""Experiments on the proxy's cost: `mcp-inspect proxy` with monkeypatches, to measure a change before making it.

    python -m bench --only http --proxy-prefix ".venv/bin/python bench/http_variants.py lean,nowatch"

The first argument is a comma-separated list of variants (empty: the proxy as
it is); the bench appends `--target URL --listen HOST:PORT --db PATH`. These
patch private parts of inspector.transports.http_proxy / inspector.capture
as they are at the time of writing: if the code moved on, a variant may fail
loudly. Nothing here is used by the normal bench run.

Variants:
    nosniff         httpcore's current_async_library() without its failed `import sniffio`
                    (what installing `sniffio` gives; ~34 us per call, ~6 calls per request)
    lean            upstream requests through LeanClient below (one asyncio Protocol per
                    connection, httptools response parser, request head + body in one write)
                    instead of httpx.AsyncClient
    nowatch         SSE responses relayed without the per-response anyio task group that
                    watches for the client's disconnect (measures that task group's cost only:
                    a real fix must still notice a disconnect on long streams)
    slowdrain       Recorder(drain_interval=0.05, flush_interval=0.05) instead of 2 ms / 5 ms
    noproxyheaders  uvicorn.Config(proxy_headers=False): no ProxyHeadersMiddleware per request
    norec           Tap.submit_message does nothing (forwarding without recording: the floor)
"""

from __future__ import annotations

import asyncio
import collections
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

VARIANTS = ("nosniff", "lean", "nowatch", "slowdrain", "noproxyheaders", "norec")


# --- a minimal upstream HTTP/1.1 client, duck-typed to the part of httpx HttpProxy uses --------------


class _Headers:
    __slots__ = ("raw",)

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        self.raw = raw


class _Request:
    __slots__ = ("method", "url", "headers", "content")

    def __init__(self, method: str, url: str, headers: list, content: Any) -> None:  # type: ignore[type-arg]
        self.method, self.url, self.headers, self.content = method, url, headers, content


class _Response:
    def __init__(self, conn: _Conn) -> None:
        self.conn: _Conn | None = conn
        self.raw: list[tuple[bytes, bytes]] = []
        self.headers = _Headers(self.raw)
        self.status_code = 0
        self.keep_alive = True
        self.chunks: collections.deque[bytes] = collections.deque()
        self.complete = False
        self.error: BaseException | None = None
        self.loop = asyncio.get_running_loop()
        self.head: asyncio.Future[None] = self.loop.create_future()
        self._waiter: asyncio.Future[None] | None = None

    def wake(self) -> None:
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    async def aiter_raw(self) -> Any:
        while True:
            while self.chunks:
                yield self.chunks.popleft()
            if self.complete:
                return
            if self.error is not None:
                raise ConnectionError(str(self.error))
            self._waiter = self.loop.create_future()
            await self._waiter
            self._waiter = None

    async def aclose(self) -> None:
        conn, self.conn = self.conn, None
        if conn is None:
            return
        conn.resp = None
        if self.complete and self.keep_alive and not conn.closed:
            conn.client.idle[conn.key].append(conn)
        else:
            conn.transport.close()  # type: ignore[union-attr]


class _Conn(asyncio.Protocol):
    def __init__(self, client: LeanClient, key: tuple[str, int]) -> None:
        import httptools

        self.client, self.key = client, key
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.parse_error = httptools.HttpParserError
        self.resp: _Response | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except self.parse_error as exc:
            self._fail(exc)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.resp is not None and not self.resp.complete:
            self._fail(exc or ConnectionError("upstream closed the connection"))

    def _fail(self, exc: BaseException) -> None:
        r = self.resp
        if r is not None:
            r.error = exc
            r.wake()
            if not r.head.done():
                r.head.set_exception(exc)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.resp.raw.append((name, value))  # type: ignore[union-attr]

    def on_headers_complete(self) -> None:
        r = self.resp
        r.status_code = self.parser.get_status_code()  # type: ignore[union-attr]
        r.keep_alive = self.parser.should_keep_alive()  # type: ignore[union-attr]
        r.head.set_result(None)  # type: ignore[union-attr]

    def on_body(self, body: bytes) -> None:
        self.resp.chunks.append(body)  # type: ignore[union-attr]
        self.resp.wake()  # type: ignore[union-attr]

    def on_message_complete(self) -> None:
        self.resp.complete = True  # type: ignore[union-attr]
        self.resp.wake()  # type: ignore[union-attr]


class LeanClient:
    """Keep-alive pool per origin; the request's head and body go out in one write."""

    def __init__(self) -> None:
        self.idle: dict[tuple[str, int], list[_Conn]] = collections.defaultdict(list)

    def build_request(
        self, method: str, url: str, headers: list | None = None, content: Any = b""
    ) -> _Request:  # type: ignore[type-arg]
        return _Request(method, url, headers or [], content)

    async def send(self, request: _Request, stream: bool = True) -> _Response:
        parts = urlsplit(request.url)
        key = (parts.hostname or "127.0.0.1", parts.port or 80)
        body = request.content
        if not isinstance(body, bytes | bytearray):
            body = b"".join([c async for c in body])
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        head = [f"{request.method} {target} HTTP/1.1\r\nhost: {parts.netloc}\r\n".encode()]
        head += [n + b": " + v + b"\r\n" for n, v in request.headers if n.lower() != b"content-length"]
        if body or request.method in ("POST", "PUT", "PATCH"):
            head.append(b"content-length: %d\r\n" % len(body))
        head.append(b"\r\n")
        conn = None
        idle = self.idle[key]
        while idle and conn is None:
            c = idle.pop()
            conn = None if c.closed else c
        if conn is None:
            loop = asyncio.get_running_loop()
            _, conn = await loop.create_connection(lambda: _Conn(self, key), key[0], key[1])
        resp = _Response(conn)
        conn.resp = resp
        conn.transport.write(b"".join(head) + body)  # type: ignore[union-attr]
        await resp.head
        return resp

    async def aclose(self) -> None:
        for conns in self.idle.values():
            for c in conns:
                c.transport.close()  # type: ignore[union-attr]


# --- the patches ------------------------------------------------------------------------------------


def apply(variants: set[str]) -> None:
    unknown = variants - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variants: {', '.join(sorted(unknown))} (known: {', '.join(VARIANTS)})")
    if "nosniff" in variants:
        import httpcore._backends.auto as auto
        import httpcore._synchronization as sync

        sync.current_async_library = auto.current_async_library = lambda: "asyncio"  # type: ignore[attr-defined]
    from inspector.transports import http_proxy

    if "lean" in variants:
        init = http_proxy.HttpProxy.__init__

        def lean_init(self: Any, *a: Any, **k: Any) -> None:
            k["client"] = LeanClient()
            init(self, *a, **k)

        http_proxy.HttpProxy.__init__ = lean_init  # type: ignore[method-assign]
    if "nowatch" in variants:
        import httpx

        from inspector.protocol.sse import SSEFramer

        async def relay(self: Any, response: Any, send: Any, receive: Any, ex: Any, sid: int) -> None:
            framer = SSEFramer()
            try:
                async for chunk in response.aiter_raw():
                    for event in framer.feed(chunk):
                        await self._send_event(event, send, ex, sid)
                for event in framer.close():
                    await self._send_event(event, send, ex, sid)
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            except (httpx.HTTPError, OSError) as exc:
                ex.record("s2c", "sse", b"", problem=f"upstream stream broke: {exc}")

        http_proxy.HttpProxy._relay_events = relay  # type: ignore[method-assign]
    if "slowdrain" in variants or "norec" in variants:
        from inspector.capture import recorder

        if "slowdrain" in variants:
            rec_init = recorder.Recorder.__init__

            def slow_init(self: Any, *a: Any, **k: Any) -> None:
                k.setdefault("drain_interval", 0.05)
                k.setdefault("flush_interval", 0.05)
                rec_init(self, *a, **k)

            recorder.Recorder.__init__ = slow_init  # type: ignore[method-assign]
        if "norec" in variants:
            recorder.Tap.submit_message = lambda self, *a, **k: None  # type: ignore[method-assign]
    if "noproxyheaders" in variants:
        import uvicorn

        cfg_init = uvicorn.Config.__init__

        def cfg(self: Any, *a: Any, **k: Any) -> None:
            k["proxy_headers"] = False
            cfg_init(self, *a, **k)

        uvicorn.Config.__init__ = cfg  # type: ignore[method-assign]


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    apply(set(filter(None, sys.argv[1].split(","))))
    from inspector.cli import main as cli_main

    sys.argv = ["mcp-inspect", "proxy", *sys.argv[2:]]
    cli_main()


if __name__ == "__main__":
    main()
