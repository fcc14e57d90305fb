"""The mock client's requests in flight: send one, wait for its response, cancel it.

Each request is listed in the client's `Activity` from the moment it is sent
until its response (or timeout). Cancelling follows the revision in use:

- up to 2025-11-25, and on stdio at 2026-07-28: `notifications/cancelled`
  with the `requestId` (and the reason). The request's POST (HTTP) stays
  open, so a response the server sends anyway still arrives; it is kept as
  the request's late response and shown, and it is in the recording.
- 2026-07-28 over Streamable HTTP has no client-to-server notifications:
  closing the request's own response stream is the cancel (the official SDK
  does the same), recorded as a `closed by the client` row of that exchange.

`initialize` and `server/discover` cannot be cancelled (the spec forbids it).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup

from inspector.endpoint import Endpoint
from inspector.errors import ConnectionClosed, RequestCancelled, ResponseTimeout
from inspector.mock.tracking import Activity, InFlight
from inspector.protocol import id_key
from inspector.transports.connect import Connection, StreamableHttpConnection

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["UNCANCELLABLE", "Requests", "wire"]

UNCANCELLABLE = ("initialize", "server/discover")
Emit = Callable[[str, dict[str, Any]], Awaitable[None]]


def wire(model: BaseModel) -> dict[str, Any]:
    """An mcp-types model as wire JSON (camelCase, unset fields left out)."""
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


class Requests:
    """Sends the client's requests and keeps them listed while they are in flight."""

    def __init__(
        self,
        endpoint: Endpoint,
        conn: Connection,
        activity: Activity,
        emit: Emit,
        tg: TaskGroup,
        *,
        stateless: bool,
        late_timeout: float = 300.0,
    ) -> None:
        self.endpoint = endpoint
        self.conn = conn
        self.activity = activity
        self.emit = emit
        self.tg = tg
        self.late_timeout = late_timeout
        # 2026-07-28 over HTTP: the cancel closes the request's stream instead of notifying.
        self.cancel_closes_stream = stateless and isinstance(conn, StreamableHttpConnection)
        self._scopes: dict[str, anyio.CancelScope] = {}

    async def send(
        self, method: str, params: dict[str, Any], timeout: float, rpc_id: Any = None
    ) -> dict[str, Any]:
        """Send one request (with a fresh id unless given) and return its response;
        `RequestCancelled` when cancelled meanwhile."""
        rpc_id = self.endpoint.next_id() if rpc_id is None else rpc_id
        key = id_key(rpc_id)
        item = self.activity.started(key, rpc_id, method, params, time.time())
        await self.emit("request", item.to_json(time.time()))
        message = {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}
        response: dict[str, Any] | None = None
        try:
            with anyio.CancelScope() as scope:
                self._scopes[key] = scope
                # A notification-style cancel leaves the POST open: it may still carry the late answer.
                with anyio.CancelScope(shield=not self.cancel_closes_stream):
                    await self.endpoint.send(message)
                response = await self.endpoint.response(key, timeout=timeout)
        except ResponseTimeout:
            await self._finish(key, None, "timeout")
            raise
        except BaseException:
            self.activity.finished(key, None, time.time(), "failed")
            raise
        finally:
            self._scopes.pop(key, None)
        if response is None:
            await self._finish(key, None)
            if not self.cancel_closes_stream:
                self.tg.start_soon(self._late_response, key)
            raise RequestCancelled(item)
        await self._finish(key, response)
        return response

    async def _finish(self, key: str, response: dict[str, Any] | None, state: str | None = None) -> None:
        item = self.activity.finished(key, response, time.time(), state)
        if item is not None:
            await self.emit("request_done", item.to_json(time.time()))

    async def _late_response(self, key: str) -> None:
        try:
            response = await self.endpoint.response(key, timeout=self.late_timeout)
        except (ResponseTimeout, ConnectionClosed):
            return
        item = self.activity.late_response(key, response, time.time())
        if item is not None:
            await self.emit("late_response", item.to_json(time.time()))

    async def cancel(self, key: str, reason: str | None = None) -> InFlight:
        """Cancel a request in flight. KeyError when none has this id, ValueError for the handshake."""
        item = self.activity.inflight[key]
        if item.method in UNCANCELLABLE:
            raise ValueError(f"{item.method} cannot be cancelled (the spec forbids it)")
        how = "stream-closed" if self.cancel_closes_stream else "notification"
        self.activity.cancelled(key, reason, how, time.time())
        # Stop the waiter first: a server that answers the cancel at once (the SDK sends -32800)
        # must not win the race and end the request as an ordinary error response.
        scope = self._scopes.get(key)
        if scope is not None:
            scope.cancel()
        if self.cancel_closes_stream:
            assert isinstance(self.conn, StreamableHttpConnection)
            await self.conn.abort(key, reason)
        else:
            import mcp_types  # its models load where a message is built from them, not with the client

            params = mcp_types.CancelledNotificationParams(request_id=item.rpc_id, reason=reason or None)
            await self.endpoint.notify("notifications/cancelled", wire(params))
        await self.emit("cancelled", item.to_json(time.time()))
        return item
