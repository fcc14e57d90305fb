"""The recording proxy's upstream client through a forward proxy (HTTPS_PROXY...), and the choice of client.

`upstream.UpstreamClient` speaks to origins directly. When the environment
names a forward proxy for the target (`outbound.proxy_for`), requests go
through httpx instead, which speaks CONNECT tunnels, absolute-form requests
and proxy credentials; it is slower (the bench measured about 3x the built-in
client's added latency) but only used when a proxy applies. It is adapted to
the part of `UpstreamClient` the proxy uses: `request()` returning a
response with `status`, `headers` (raw pairs), `aiter_raw()`, `at_end`,
`aclose()`, and `UpstreamError` subclasses for failures. httpx's default
request headers are removed, so the request goes out as the client sent it
(httpx still adds `content-length: 0` to a body-less POST/PUT/PATCH).
Stale pooled connections are httpcore's business here (no retry of our own).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx

from inspector.errors import ConnectError, ConnectTimeout, RemoteProtocolError
from inspector.transports.outbound import Outbound, proxy_for
from inspector.transports.upstream import UpstreamClient

__all__ = ["ProxiedUpstreamClient", "ProxiedResponse", "choose_upstream"]


class ProxiedResponse:
    """An httpx response as the proxy reads an `UpstreamResponse`."""

    at_end = False  # httpx does not say which chunk is the last: the proxy sends the end on its own

    def __init__(self, response: httpx.Response) -> None:
        self._response = response
        self.status = response.status_code
        self.headers: list[tuple[bytes, bytes]] = response.headers.raw
        self.http_version = response.http_version

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.aiter_raw():
                yield chunk
        except httpx.HTTPError as exc:
            raise RemoteProtocolError(f"{type(exc).__name__}: {exc}") from exc

    async def aread(self) -> bytes:
        return b"".join([chunk async for chunk in self.aiter_raw()])

    async def aclose(self) -> None:
        await self._response.aclose()


class ProxiedUpstreamClient:
    """Upstream requests through the forward proxy `proxy` (an http:// or https:// URL)."""

    def __init__(self, proxy: str, settings: Outbound, *, connect_timeout: float = 10.0) -> None:
        self.proxy = proxy
        self.client = httpx.AsyncClient(
            proxy=proxy,
            verify=settings.ssl_context(),
            timeout=httpx.Timeout(connect=connect_timeout, read=None, write=None, pool=None),
            limits=httpx.Limits(
                max_connections=settings.max_connections, max_keepalive_connections=settings.max_connections
            ),
            follow_redirects=False,
            trust_env=False,  # the proxy is chosen above; no .netrc credentials added
        )
        for name in list(self.client.headers):  # httpx's user-agent, accept...: not ours to add
            del self.client.headers[name]

    async def request(
        self,
        method: str,
        url: str,
        headers: list[tuple[bytes, bytes]] | None = None,
        body: bytes | AsyncIterator[bytes] = b"",
    ) -> ProxiedResponse:
        content: Any = body if body != b"" else None
        request = self.client.build_request(method, url, headers=headers or [], content=content)
        try:
            response = await self.client.send(request, stream=True)
        except httpx.ConnectTimeout as exc:
            raise ConnectTimeout(f"through proxy {self.proxy}: {exc}") from exc
        except (httpx.ConnectError, httpx.ProxyError) as exc:
            raise ConnectError(f"through proxy {self.proxy}: {exc}") from exc
        except httpx.HTTPError as exc:
            raise RemoteProtocolError(f"through proxy {self.proxy}: {type(exc).__name__}: {exc}") from exc
        return ProxiedResponse(response)

    async def aclose(self) -> None:
        await self.client.aclose()


def choose_upstream(target: str, settings: Outbound) -> tuple[UpstreamClient | ProxiedUpstreamClient, str]:
    """The client for the proxy's `target` and a line saying which it is (for stderr)."""
    proxy = proxy_for(target)
    if proxy is not None:
        shown = httpx.URL(proxy).copy_with(username=None, password=None)  # never print proxy credentials
        return (
            ProxiedUpstreamClient(proxy, settings),
            f"upstream client: httpx through the forward proxy {shown} (from the environment; "
            "NO_PROXY to bypass it)",
        )
    client = UpstreamClient(
        connect_timeout=10.0,
        max_connections_per_origin=settings.max_connections,
        ssl_context=settings.ssl_context() if settings.tls_customised else None,
    )
    return client, "upstream client: built-in (direct connections, httptools)"
