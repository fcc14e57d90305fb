"""Mock clients started from the UI: each `MockClient` lives in its own background task.

`ClientManager.start` creates a task that opens an anyio task group, connects
and performs the handshake inside it, reports the outcome, then keeps the
group (the server connection's readers, the endpoint) alive until the client
is closed through the API, the server goes away, or the app shuts down.
Requests from routes run on the same event loop and use the client's
endpoint directly.

Inbox items (server-to-client requests waiting for a person), their answers
and timeouts, and the server's notifications are published on the live feed
as `client_*` events.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from dataclasses import dataclass, field
from typing import Any, get_args

import anyio
from sqlalchemy import Engine

from inspector.api.live import LiveFeed
from inspector.api.schemas import (
    ClientActivity,
    ClientClosed,
    ClientElicitations,
    ClientInbox,
    ClientInboxAnswered,
    ClientInboxTimeout,
    ClientNotification,
)
from inspector.errors import StartFailed
from inspector.mock.client import ClientConfig, MockClient

__all__ = ["ClientManager", "HostedClient", "innermost"]

RECENT_NOTIFICATIONS = 100
RECENT_RECEIVED = 50
# MockClient events about its work with the server (`Activity`), published as `client_activity`.
ACTIVITY_KINDS = get_args(ClientActivity.model_fields["kind"].annotation)


def innermost(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe(exc: BaseException) -> str:
    inner = innermost(exc)
    text = str(inner) or type(inner).__name__
    return text if type(inner).__name__ in text else f"{type(inner).__name__}: {text}"


@dataclass(eq=False)
class HostedClient:
    """One mock client and the task that hosts it."""

    id: str
    client: MockClient
    created: float = field(default_factory=time.time)
    state: str = "starting"  # starting | connected | closed
    error: str | None = None
    stop: anyio.Event = field(default_factory=anyio.Event)
    finished: anyio.Event = field(default_factory=anyio.Event)
    task: asyncio.Task[None] | None = None

    def summary(self) -> dict[str, Any]:
        c = self.client
        return {
            "id": self.id,
            "session_id": c.session_id,
            "state": self.state,
            "error": self.error,
            "created": self.created,
            "target": c.config.target if isinstance(c.config.target, str) else list(c.config.target),
            "protocol_version": c.config.protocol_version,
            "pending": len(c.inbox),
        }

    def detail(self) -> dict[str, Any]:
        c = self.client
        cfg = c.config
        received = c.endpoint.received[-RECENT_RECEIVED:] if c.endpoint is not None else []
        return {
            **self.summary(),
            "config": {
                "client_info": cfg.client_info,
                "capabilities": cfg.capabilities,
                "headers": cfg.headers,
                "timeout": cfg.timeout,
                "inbox_timeout": cfg.inbox_timeout or cfg.timeout,
                "responders": {m: r.to_json() for m, r in cfg.responders.items()},
            },
            "handshake": c.server_result,
            "inbox": [item.to_json() for item in c.inbox.values()],
            "inbox_history": [item.history_json() for item in reversed(c.history)],
            "roots": cfg.roots,
            "elicitations": c.elicitations.to_json(),
            "notifications": c.notifications[-RECENT_NOTIFICATIONS:],
            "received": received,
        }


class ClientManager:
    """The UI process's mock clients, by id."""

    def __init__(self, engine: Engine, feed: LiveFeed) -> None:
        self.engine = engine
        self.feed = feed
        self.clients: dict[str, HostedClient] = {}
        self._ids = itertools.count(1)

    async def start(self, config: ClientConfig) -> tuple[HostedClient, dict[str, Any]]:
        """Connect and handshake in a new hosting task; `StartFailed` when that does not work."""
        cid = f"c{next(self._ids)}"

        async def listener(kind: str, payload: dict[str, Any]) -> None:
            self._publish(cid, kind, payload)

        hosted = HostedClient(cid, MockClient(self.engine, config, listener=listener))
        outcome: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.clients[cid] = hosted
        hosted.task = asyncio.create_task(self._host(hosted, outcome), name=f"mock-client {cid}")
        try:
            handshake = await outcome
        except BaseException:
            await self.close(cid)
            raise
        return hosted, handshake

    async def _host(self, hosted: HostedClient, outcome: asyncio.Future[dict[str, Any]]) -> None:
        client = hosted.client
        try:
            async with anyio.create_task_group() as tg:
                try:
                    handshake = await client.start(tg)
                    hosted.state = "connected"
                    outcome.set_result(handshake)
                    assert client.endpoint is not None
                    async with anyio.create_task_group() as waiters:

                        async def until(event: anyio.Event) -> None:
                            await event.wait()
                            waiters.cancel_scope.cancel()

                        waiters.start_soon(until, hosted.stop)
                        waiters.start_soon(until, client.endpoint.closed)
                finally:
                    with anyio.CancelScope(shield=True):
                        await client.close("closed from the UI" if hosted.stop.is_set() else "closed")
                    tg.cancel_scope.cancel()
        except BaseException as exc:  # noqa: BLE001 - reported to the starter or kept as the error
            hosted.error = describe(exc)
            if not outcome.done():
                outcome.set_exception(StartFailed(hosted.error))
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            if not outcome.done():
                outcome.set_exception(
                    StartFailed(hosted.error or "the connection closed during the handshake")
                )
            hosted.state = "closed"
            hosted.finished.set()
            self.feed.publish(ClientClosed(client_id=hosted.id, error=hosted.error))

    def _publish(self, cid: str, kind: str, payload: dict[str, Any]) -> None:
        if kind == "notification":
            self.feed.publish(ClientNotification(client_id=cid, notification=payload))
        elif kind == "inbox":
            self.feed.publish(ClientInbox(client_id=cid, item=payload))
        elif kind == "inbox-timeout":
            self.feed.publish(ClientInboxTimeout(client_id=cid, item=payload))
        elif kind in ACTIVITY_KINDS:
            self.feed.publish(
                ClientActivity.model_validate({"client_id": cid, "kind": kind, "item": payload})
            )
        elif kind == "elicitations":
            self.feed.publish(ClientElicitations(client_id=cid, items=payload["items"]))
        elif kind == "inbox-auto":  # answered by a responder, without a person
            self.answered(cid, payload, payload.get("answer") or {})

    def answered(self, cid: str, item: dict[str, Any], answer: dict[str, Any]) -> None:
        self.feed.publish(ClientInboxAnswered(client_id=cid, item=item, answer=answer))

    def get(self, cid: str) -> HostedClient | None:
        return self.clients.get(cid)

    async def close(self, cid: str) -> bool:
        """Close one client and wait (bounded) for its task to finish; False when unknown."""
        hosted = self.clients.pop(cid, None)
        if hosted is None:
            return False
        hosted.stop.set()
        with anyio.move_on_after(10):
            await hosted.finished.wait()
        if not hosted.finished.is_set() and hosted.task is not None:
            hosted.task.cancel()
            with contextlib.suppress(BaseException):
                await hosted.task
        return True

    async def aclose(self) -> None:
        """Close every client (app shutdown)."""
        for cid in list(self.clients):
            await self.close(cid)
