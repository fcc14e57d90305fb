"""Several upstreams behind one listener (`mcp-inspect proxy --config FILE`): routing by path prefix.

Each route is an ordinary recording proxy (`http_proxy.HttpProxy`, or the intercepting one) that
serves its upstream's whole origin under the route's prefix: `/github/mcp` goes to the github
upstream as `/mcp`, `/github/token` as `/token`. This module only picks the route and strips the
prefix; recording, redaction, faults and the authorization legs are the route's proxy's, unchanged.

OAuth discovery keeps working per route: the RFC 9728 / RFC 8414 path-insertion forms
`/.well-known/NAME/<prefix>/<rest>` go to that route's upstream as `/.well-known/NAME/<rest>`
(and `/.well-known/NAME/<prefix>` as `/.well-known/NAME`); with `rewrite_auth_metadata` the route's
proxy points upstream URLs at `http://GATEWAY<prefix>` (its `mount`), so a `resource_metadata`
URL, a `resource`, an issuer and its endpoints all land back on this route.

A route that adds credentials upstream (`headers`) has a `token`: a request must carry it in the
`X-MCP-Inspector-Token` header or the `inspector_token` query parameter (compared in constant time),
else 403 and nothing is forwarded; both are taken off before the route's proxy sees the request,
so the token is neither forwarded nor recorded (`gateway_token.py`).

A path no route serves is answered 404 with a JSON `detail` naming the prefixes there are (never a
target or a header). The one `guard.ListenerGuard` sits in front of this app; its `json_paths`
is `JsonPaths`, which asks the route's proxy about the path it will see.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

import orjson

from inspector.gateway_token import TOKEN_HEADER, TOKEN_PARAM
from inspector.guard import refuse
from inspector.transports.http_proxy import HttpProxy
from inspector.transports.upstream import UpstreamClient, UpstreamResponse

if TYPE_CHECKING:
    from starlette.types import Receive, Send

    from inspector.transports.upstream_proxied import ProxiedResponse, ProxiedUpstreamClient

__all__ = ["AddedHeaders", "Gateway", "JsonPaths", "Mounted"]

_WELL_KNOWN = "/.well-known/"
_TOKEN_NAME = TOKEN_HEADER.lower().encode("latin-1")
_TOKEN_KEY = TOKEN_PARAM.encode("latin-1") + b"="
_TOKEN_MISSING = (
    f"this gateway route adds credentials upstream: send the gateway's client token in the "
    f"{TOKEN_HEADER} header (or the {TOKEN_PARAM} query parameter); the gateway's start-up lines "
    "say which file keeps it"
)


@dataclass(frozen=True)
class Mounted:
    """A route on the gateway: its name, path prefix and proxy, and the client token its requests
    must carry (None: no token asked)."""

    name: str
    prefix: str
    proxy: HttpProxy
    token: bytes | None = None


class Gateway:
    """ASGI app: each request goes to the route whose prefix it is under, with the prefix taken off."""

    def __init__(self, routes: Sequence[Mounted]) -> None:
        self.routes = list(routes)
        # Longest first, though prefixes never nest (the config refuses that).
        self._by_length = sorted(self.routes, key=lambda r: len(r.prefix), reverse=True)
        self.json_paths = JsonPaths(self)

    def match(self, path: str) -> tuple[Mounted, str] | None:
        """The route serving `path` and the path its upstream gets, or None."""
        for route in self._by_length:
            p = route.prefix
            if path == p or path.startswith(p + "/"):
                return route, path[len(p) :] or "/"
        if path.startswith(_WELL_KNOWN):
            # /.well-known/NAME<prefix><rest>: discovery for a resource or issuer under the prefix.
            cut = path.find("/", len(_WELL_KNOWN))
            if cut > 0:
                head, rest = path[:cut], path[cut:]
                for route in self._by_length:
                    p = route.prefix
                    if rest == p or rest.startswith(p + "/"):
                        return route, head + rest[len(p) :]
        return None

    def connection_closed(self, client: tuple[str, int]) -> None:
        for route in self.routes:
            route.proxy.connection_closed(client)

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self._lifespan(receive, send)
            return
        if kind not in ("http", "websocket"):
            return
        found = self.match(scope["path"])
        if found is None:
            await self._not_found(scope, receive, send)
            return
        route, path = found
        scoped = {**scope, "path": path, "raw_path": _raw(scope, route.prefix, path)}
        if route.token is not None and not _take_token(scoped, route.token):
            await refuse(scope, receive, send, 403, _TOKEN_MISSING)
            return
        await route.proxy(scoped, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                for route in self.routes:
                    await route.proxy.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _not_found(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        prefixes = ", ".join(sorted(r.prefix for r in self.routes))
        detail = f"no route of this gateway serves {scope['path'][:200]!r}; routes are under: {prefixes}"
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.close", "code": 1008, "reason": "no route"})
            return
        body = orjson.dumps({"detail": detail})
        head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 404, "headers": head})
        await send({"type": "http.response.body", "body": body, "more_body": False})


class JsonPaths:
    """The guard's `json_paths` for the gateway: a path is an MCP endpoint if its route's proxy says so."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        found = self.gateway.match(path)
        return found is not None and found[1] in found[0].proxy.mcp_paths


def _take_token(scope: dict[str, Any], token: bytes) -> bool:
    """Whether the request carries `token`; the header and the query parameter are taken off `scope`."""
    given: list[bytes] = []
    headers = scope["headers"]
    if any(name == _TOKEN_NAME for name, _ in headers):
        given += [value for name, value in headers if name == _TOKEN_NAME]
        scope["headers"] = [(name, value) for name, value in headers if name != _TOKEN_NAME]
    query: bytes = scope.get("query_string") or b""
    if _TOKEN_KEY in query:
        kept = []
        for pair in query.split(b"&"):
            if pair.startswith(_TOKEN_KEY):
                given.append(unquote(pair[len(_TOKEN_KEY) :].decode("latin-1")).encode("latin-1", "replace"))
            else:
                kept.append(pair)
        scope["query_string"] = b"&".join(kept)
    # Every value given must be the token (a second, wrong one is refused too), compared in constant time.
    return bool(given) and all(hmac.compare_digest(value.strip(), token) for value in given)


def _raw(scope: dict[str, Any], prefix: str, path: str) -> bytes:
    """The upstream's raw path: the client's bytes with the prefix cut, when they spell the same path."""
    raw: bytes | None = scope.get("raw_path")
    if raw:
        text = raw.decode("latin-1")
        if text == scope["path"]:  # nothing percent-encoded
            return path.encode("latin-1")
        at = text.find(prefix)
        if at >= 0:
            cut = text[:at] + text[at + len(prefix) :] or "/"
            # It must stay a path: `/github%2F@other.host` would make the upstream URL name another host.
            if cut.startswith("/") and unquote(cut) == path:
                return cut.encode("latin-1")
    return quote(path, safe="/:!$&'()*+,;=-._~").encode()


class AddedHeaders:
    """An upstream client that adds a route's headers (replacing the client's of the same name).

    The recording keeps what the client sent: the added values (often credentials) are not
    stored; the session facts name the headers added."""

    def __init__(
        self, client: UpstreamClient | ProxiedUpstreamClient, headers: list[tuple[bytes, bytes]]
    ) -> None:
        self.client = client
        self.headers = headers
        self._names = {name.lower() for name, _ in headers}

    async def request(
        self,
        method: str,
        url: str,
        headers: list[tuple[bytes, bytes]] | None = None,
        body: bytes | AsyncIterator[bytes] = b"",
    ) -> UpstreamResponse | ProxiedResponse:
        kept = [(n, v) for n, v in headers or () if n.lower() not in self._names]
        return await self.client.request(method, url, kept + self.headers, body)

    async def aclose(self) -> None:
        await self.client.aclose()
