"""One request on its way through the HTTP proxy, and the ASGI helpers both proxy paths share.

`transports/http_proxy.py` (the plain path) and `transports/http_intervene.py` (the path
with deciding addons) stand on this module; neither imports the other at load time.
`ProxyCore` names what the intervening path asks of the proxy.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any, Protocol

from inspector.errors import UpstreamError

if TYPE_CHECKING:
    from inspector.protocol.auth_legs import AuthLegs
    from inspector.protocol.http_exchange import SessionRouter
    from inspector.protocol.sse import SSEEvent
    from inspector.transports.http_record import HttpExchange
    from inspector.transports.upstream import UpstreamClient

__all__ = [
    "Call",
    "Headers",
    "ProxyCore",
    "Receive",
    "Scope",
    "STREAM_FAILURES",
    "Send",
    "read_body",
    "stream_failed",
    "unless_gone",
    "until_disconnect",
    "watch_disconnect",
]

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]


class Call:
    """One request on its way through the proxy: the ASGI callables, the route it took, its exchange."""

    __slots__ = ("ex", "headers", "key", "method", "origin", "receive", "scope", "send", "sid", "url")

    def __init__(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        headers: Headers,
        method: str,
        url: str,
        ex: HttpExchange,
        sid: int,
        key: tuple[str, str],
        origin: str | None,
    ) -> None:
        self.scope = scope
        self.receive = receive
        self.send = send
        self.headers = headers  # the client's request headers
        self.method = method
        self.url = url  # the upstream URL
        self.ex = ex
        self.sid = sid  # the recorded session (the recorder's handle)
        self.key = key  # the upstream session the request was routed to
        self.origin = origin  # the proxy's origin as the client reached it (when auth URLs are rewritten)


async def watch_disconnect(receive: Receive, relay: asyncio.Task[Any] | None, state: dict[str, bool]) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            if not state["finished"] and relay is not None:
                state["disconnected"] = True
                relay.cancel()
            return


STREAM_FAILURES = (UpstreamError, OSError, asyncio.CancelledError)


def stream_failed(
    exc: BaseException, ex: HttpExchange, state: dict[str, bool], end: Callable[[str], str | None]
) -> str | None:
    """How an event stream's relay ended on `exc` (one of `STREAM_FAILURES`): the row saying so is
    recorded and `end(reason)` returned. A cancel that is not the client leaving is raised again."""
    if isinstance(exc, asyncio.CancelledError):
        if not state["disconnected"]:
            raise exc
        ex.record("c2s", "http-request", b"", problem="client disconnected from the event stream")
        return end("the client closed the event stream")
    ex.record("s2c", "sse", b"", problem=f"upstream stream broke: {exc}")
    return end("the server's event stream broke")


async def read_body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


async def until_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def unless_gone(future: asyncio.Future[Any], receive: Receive) -> Any:
    """`future`'s result, or None if the client disconnects first."""
    gone = asyncio.ensure_future(until_disconnect(receive))
    try:
        await asyncio.wait({future, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    return future.result() if future.done() and not future.cancelled() else None


class ProxyCore(Protocol):
    """What `http_intervene.Intervener` uses of `http_proxy.HttpProxy`."""

    target: str
    auth: AuthLegs
    router: SessionRouter
    client: UpstreamClient

    @property
    def _exchanges(self) -> Iterator[int]: ...

    def cut_session(self, sid: int, reason: str) -> None: ...

    async def relay(
        self,
        call: Call,
        sent_headers: Headers,
        content: bytes | AsyncIterator[bytes],
        late_request: Callable[[], None] | None = None,
    ) -> None: ...

    def stream_end(self, sid: int, reason: str) -> str | None: ...

    def rewrite_endpoint(self, event: SSEEvent, sid: int) -> tuple[bytes, dict[str, Any]]: ...
