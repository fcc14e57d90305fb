"""The mock client's `subscriptions/listen` stream at 2026-07-28: open it, re-open it, cancel it.

The revision has no `resources/subscribe` and sends no change notification
unasked: the client opens one long-lived `subscriptions/listen` request whose
response stream carries them (over Streamable HTTP the POST's SSE stream; on
stdio the same pipe, each frame naming the stream in `_meta`). When the user
changes the set (a URI subscribed or unsubscribed, a list-changed kind on or
off), `Listens.relisten` sends a new listen request with the whole new set,
waits for its acknowledgement, then cancels the old one (the usual cancel of
the revision and transport: `Requests.cancel`), so no update falls between
the two. With nothing left to listen for the stream is just cancelled. The
request is listed in flight like any other, so it can also be cancelled there.
State is in `Activity.listening` (`mock/listen_state.py`).
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from inspector.errors import ConnectionClosed, RequestCancelled, ResponseTimeout
from inspector.mock.listen_state import ListenStream
from inspector.protocol import id_key
from inspector.protocol.listen import LISTEN

if TYPE_CHECKING:
    import anyio.abc

    from inspector.endpoint import Endpoint
    from inspector.mock.tracking import Activity, InFlight

__all__ = ["Listens"]


class _Timeout(Protocol):
    @property
    def timeout(self) -> float: ...


class ListeningClient(Protocol):
    """What the listen stream uses of its client (`inspector.mock.client.MockClient`), which holds it."""

    @property
    def activity(self) -> Activity: ...
    @property
    def endpoint(self) -> Endpoint | None: ...
    @property
    def _tg(self) -> anyio.abc.TaskGroup | None: ...
    @property
    def config(self) -> _Timeout: ...

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        rpc_id: Any = None,
    ) -> dict[str, Any]: ...
    async def cancel(self, key: str, reason: str | None = None) -> InFlight: ...
    async def _emit(self, kind: str, payload: dict[str, Any]) -> None: ...


class Listens:
    def __init__(self, client: ListeningClient) -> None:
        self.client = client
        self.state = client.activity.listening
        self._changed = anyio.Event()

    def poke(self) -> None:
        """Something about a stream changed (acknowledged, ended): wake whoever waits."""
        self._changed.set()
        self._changed = anyio.Event()

    async def relisten(self, reason: str) -> ListenStream | None:
        """Listen for the wanted set (or stop listening when it is empty); the new stream, settled."""
        old = self.state.current
        client = self.client
        stream: ListenStream | None = None
        if not self.state.empty:
            assert client.endpoint is not None and client._tg is not None
            rpc_id = client.endpoint.next_id()
            stream = self.state.opened(id_key(rpc_id), rpc_id, self.state.filter(), time.time())
            await self._publish()
            client._tg.start_soon(self._drive, stream)
            with anyio.move_on_after(client.config.timeout):
                while stream.state == "opening":
                    await self._changed.wait()
            if stream.state == "opening":
                await self._cancel(stream, "no acknowledgement in time")
                raise ResponseTimeout(
                    f"no acknowledgement of subscriptions/listen {stream.key} within {client.config.timeout:g}s"
                )
        if old is not None and old.live:
            await self._cancel(old, f"replaced by listen {stream.key}" if stream else reason)
        client.activity.sync_listen_subscriptions(time.time())
        await self._publish()
        return stream

    async def _cancel(self, stream: ListenStream, reason: str) -> None:
        if stream.key in self.client.activity.inflight:
            await self.client.cancel(stream.key, reason)

    async def _drive(self, stream: ListenStream) -> None:
        """Send the listen request and wait (without a time limit) for its end."""
        params = {"notifications": stream.requested}
        response: dict[str, Any] | None = None
        try:
            response = await self.client.request(LISTEN, params, timeout=math.inf, rpc_id=stream.rpc_id)
            state, reason = (
                ("refused", "the server answered with an error")
                if "error" in response
                else (
                    "closed",
                    "the server ended the stream",
                )
            )
        except RequestCancelled as exc:
            state, reason = "cancelled", exc.item.cancel_reason or "cancelled"
        except (ConnectionClosed, OSError) as exc:
            state, reason = "lost", f"connection closed: {exc}"
        except Exception as exc:  # a transport error while sending (HTTP status, connect error)
            state, reason = "lost", f"{type(exc).__name__}: {exc}"
        self.state.ended(stream.key, state, reason, time.time(), response)
        if stream is self.state.current:
            self.client.activity.sync_listen_subscriptions(time.time())
        self.poke()
        await self._publish()

    async def _publish(self) -> None:
        await self.client._emit("listen", self.state.to_json())
