"""Experiments on the proxy's cost: `mcp-inspect proxy` with monkeypatches, to measure a change before making it.

    python -m bench --only http --proxy-prefix ".venv/bin/python bench/http_variants.py httpx"

The first argument is a comma-separated list of variants (empty: the proxy as
it is); the bench appends `--target URL --listen HOST:PORT --db PATH`. These
patch private parts of inspector.transports.http_proxy / inspector.capture
as they are at the time of writing: if the code moved on, a variant may fail
loudly. Nothing here is used by the normal bench run.

Variants:
    httpx           upstream requests through one pooled httpx.AsyncClient (the proxy's client
                    before inspector.transports.upstream), for comparison
    aiohttp         upstream requests through aiohttp.ClientSession (auto_decompress=False, no
                    auto headers, raw_headers); aiohttp is not a dependency: put it on PYTHONPATH,
                    e.g. `uv pip install --target /tmp/aio aiohttp` and prefix the command with
                    `env PYTHONPATH=/tmp/aio`
    nowatch         SSE responses relayed without the task that watches for the client's
                    disconnect (measures that task's cost only: a real fix must still notice a
                    disconnect on long streams)
    slowdrain       Recorder(drain_interval=0.05, flush_interval=0.05)
    norec           Tap.submit_message does nothing (forwarding without recording: the floor)
    switch          sys.setswitchinterval(0.0005): the event loop waits less for the GIL while the
                    recording thread holds it (default 5 ms)
    gc              gc.freeze() at start and gen-0 threshold 50000 (fewer, later collections of the
                    objects each exchange allocates)
    profile         run the proxy under cProfile; the stats go to $PROXY_PROFILE (default
                    bench/results/proxy-PID.prof) when it stops
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

VARIANTS = ("httpx", "aiohttp", "nowatch", "slowdrain", "norec", "switch", "gc", "profile")


# --- other upstream clients, adapted to the part of UpstreamClient the proxy uses -----------------


class _Response:
    at_end = False  # not known from these libraries: the proxy sends the end of the body on its own

    def __init__(self, status: int, headers: list[tuple[bytes, bytes]], chunks: Any, close: Any) -> None:
        self.status, self.headers, self._chunks, self._close = status, headers, chunks, close

    async def aiter_raw(self) -> Any:
        from inspector.errors import RemoteProtocolError

        try:
            async for chunk in self._chunks:
                yield chunk
        except Exception as exc:  # the libraries' own errors, as the proxy expects them
            raise RemoteProtocolError(f"{type(exc).__name__}: {exc}") from exc

    async def aclose(self) -> None:
        result = self._close()
        if result is not None:
            await result


class HttpxClient:
    """The proxy's upstream client until inspector.transports.upstream replaced it."""

    def __init__(self) -> None:
        import httpx

        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(connect=10.0, read=None, write=None, pool=None),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=100),
            follow_redirects=False,
            trust_env=False,
        )

    async def request(self, method: str, url: str, headers: list, body: Any) -> _Response:  # type: ignore[type-arg]
        import httpx

        from inspector.errors import ConnectError, RemoteProtocolError

        request = self.client.build_request(method, url, headers=headers, content=body)
        try:
            resp = await self.client.send(request, stream=True)
        except httpx.ConnectError as exc:
            raise ConnectError(str(exc)) from exc
        except httpx.HTTPError as exc:
            raise RemoteProtocolError(f"{type(exc).__name__}: {exc}") from exc
        return _Response(resp.status_code, resp.headers.raw, resp.aiter_raw(), resp.aclose)

    async def aclose(self) -> None:
        await self.client.aclose()


class AioClient:
    """aiohttp.ClientSession with nothing of its own added: no auto headers, no decompression."""

    def __init__(self) -> None:
        self.session: Any = None

    async def request(self, method: str, url: str, headers: list, body: Any) -> _Response:  # type: ignore[type-arg]
        import aiohttp
        import multidict
        import yarl

        from inspector.errors import ConnectError, RemoteProtocolError

        if self.session is None:
            self.session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0, keepalive_timeout=5, ttl_dns_cache=None),
                timeout=aiohttp.ClientTimeout(total=None, connect=10, sock_read=None),
                auto_decompress=False,
                skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
                cookie_jar=aiohttp.DummyCookieJar(),
            )
        hdrs = multidict.CIMultiDict((n.decode("latin-1"), v.decode("latin-1")) for n, v in headers)
        try:
            resp = await self.session.request(
                method, yarl.URL(url, encoded=True), headers=hdrs, data=body, allow_redirects=False
            )
        except aiohttp.ClientConnectorError as exc:
            raise ConnectError(str(exc)) from exc
        except aiohttp.ClientError as exc:
            raise RemoteProtocolError(f"{type(exc).__name__}: {exc}") from exc
        return _Response(resp.status, list(resp.raw_headers), resp.content.iter_any(), resp.release)

    async def aclose(self) -> None:
        if self.session is not None:
            await self.session.close()


# --- the patches ------------------------------------------------------------------------------------


def apply(variants: set[str]) -> None:
    unknown = variants - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variants: {', '.join(sorted(unknown))} (known: {', '.join(VARIANTS)})")
    from inspector.transports import http_proxy

    for name, factory in (("httpx", HttpxClient), ("aiohttp", AioClient)):
        if name in variants:
            init = http_proxy.HttpProxy.__init__

            def client_init(self: Any, *a: Any, _init: Any = init, _factory: Any = factory, **k: Any) -> None:
                k["client"] = _factory()
                _init(self, *a, **k)

            http_proxy.HttpProxy.__init__ = client_init  # type: ignore[method-assign]
    if "switch" in variants:
        sys.setswitchinterval(0.0005)
    if "gc" in variants:
        import gc

        gc.freeze()
        gc.set_threshold(50_000, 20, 20)
    if "nowatch" in variants:
        from inspector.errors import UpstreamError
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
            except (UpstreamError, OSError) as exc:
                ex.record("s2c", "sse", b"", problem=f"upstream stream broke: {exc}")

        http_proxy.HttpProxy._relay_events = relay  # type: ignore[method-assign]
    if "slowdrain" in variants or "norec" in variants:
        from inspector.capture import recorder

        if "slowdrain" in variants:
            rec_init = recorder.Recorder.__init__

            def slow_init(self: Any, *a: Any, **k: Any) -> None:
                k["drain_interval"] = 0.05
                k["flush_interval"] = 0.05
                rec_init(self, *a, **k)

            recorder.Recorder.__init__ = slow_init  # type: ignore[method-assign]
        if "norec" in variants:
            recorder.Tap.submit_message = lambda self, *a, **k: None  # type: ignore[method-assign]


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    variants = set(filter(None, sys.argv[1].split(",")))
    apply(variants)
    from inspector.cli import main as cli_main

    sys.argv = ["mcp-inspect", "proxy", *sys.argv[2:]]
    if "profile" not in variants:
        cli_main()
        return
    import cProfile

    profiler = cProfile.Profile()
    out = os.environ.get("PROXY_PROFILE") or str(
        Path(__file__).parent / "results" / f"proxy-{os.getpid()}.prof"
    )
    profiler.enable()
    try:
        cli_main()
    finally:
        profiler.disable()
        profiler.dump_stats(out)


if __name__ == "__main__":
    main()
