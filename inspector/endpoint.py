"""Our own JSON-RPC peer over a `Connection`: send and await, and answer the server's requests.

Used by replay and (later) the mock client. Messages are sent as bytes so
that a replay can send a recorded client message verbatim; `request()`
builds one from a method and params. Incoming server requests go to
`on_request` (whose result or `RequestError` becomes the response);
notifications go to `on_notification`. Responses are kept by id until
someone asks for them, so waiting after sending never misses a fast answer.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import orjson

from inspector.errors import ConnectionClosed, RequestError, ResponseTimeout
from inspector.protocol import Kind, classify, id_key
from inspector.transports.connect import Connection

__all__ = ["Endpoint"]


OnRequest = Callable[[dict[str, Any]], Awaitable[Any]]
OnNotification = Callable[[dict[str, Any]], Awaitable[None]]


class Endpoint:
    """A JSON-RPC 2.0 peer; run `serve()` in a task group while using it."""

    def __init__(
        self,
        conn: Connection,
        *,
        on_request: OnRequest | None = None,
        on_notification: OnNotification | None = None,
    ) -> None:
        self.conn = conn
        self.on_request = on_request
        self.on_notification = on_notification
        self.closed = anyio.Event()
        self.received: list[dict[str, Any]] = []  # every parsed message, in order
        self._responses: dict[str, dict[str, Any]] = {}
        self._arrived = anyio.Event()
        self._ids = itertools.count(1)
        self._tg: anyio.abc.TaskGroup | None = None

    async def serve(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Read messages until the connection closes."""
        async with anyio.create_task_group() as tg:
            self._tg = tg
            task_status.started()
            try:
                while True:
                    raw = await self.conn.receive()
                    await self._dispatch(raw, tg)
            except ConnectionClosed:
                pass
            finally:
                self.closed.set()
                self._wake()

    def _wake(self) -> None:
        self._arrived.set()
        self._arrived = anyio.Event()

    async def _dispatch(self, raw: bytes, tg: anyio.abc.TaskGroup) -> None:
        msg = classify(raw)
        items = msg.items if msg.kind is Kind.BATCH else [msg]
        for item in items:
            if not isinstance(item.payload, dict):
                continue
            self.received.append(item.payload)
            if item.kind in (Kind.RESPONSE, Kind.ERROR) and item.rpc_id is not None:
                self._responses[item.rpc_id] = item.payload
                self._wake()
            elif item.kind is Kind.REQUEST:
                tg.start_soon(self._answer, item.payload)
            elif item.kind is Kind.NOTIFICATION and self.on_notification is not None:
                await self.on_notification(item.payload)

    async def _answer(self, request: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"]}
        if self.on_request is None:
            reply["error"] = {"code": -32601, "message": f"method not found: {request.get('method')}"}
        else:
            try:
                reply["result"] = await self.on_request(request)
            except RequestError as exc:
                reply["error"] = {"code": exc.code, "message": exc.message}
                if exc.data is not None:
                    reply["error"]["data"] = exc.data
        with contextlib.suppress(ConnectionClosed):
            await self.send_raw(orjson.dumps(reply))

    async def send_raw(self, raw: bytes) -> None:
        await self.conn.send(raw)

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_raw(orjson.dumps(message))

    def next_id(self) -> int:
        return next(self._ids)

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float = 30.0
    ) -> dict[str, Any]:
        """Send a request and return the response message (with `result` or `error`)."""
        rpc_id = self.next_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        return await self.response(id_key(rpc_id), timeout=timeout)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)

    async def response(self, rpc_id: str, *, timeout: float) -> dict[str, Any]:
        """The response with this id (canonical JSON text), waiting for it if needed."""
        with anyio.move_on_after(timeout):
            while True:
                if rpc_id in self._responses:
                    return self._responses.pop(rpc_id)
                if self.closed.is_set():
                    raise ConnectionClosed(f"the connection closed before the response to id {rpc_id}")
                await self._arrived.wait()
        raise ResponseTimeout(f"no response to id {rpc_id} within {timeout:g}s")
