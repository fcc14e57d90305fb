"""One client connection of a mock server: play recorded reactions, ask the client, handle misses.

Transport-neutral: a transport hands over each client message with an
`out` callable that delivers server messages to the right place (stdout, or
the SSE stream of the POST that carried the request). Server-to-client
requests of a reaction (sampling, elicitation, roots) are sent with fresh
ids and the reaction waits for the client's answer, which the transport
delivers with `deliver_response` (it may come on another HTTP request).

Unmatched requests follow the policy: `error` (a JSON-RPC error naming the
nearest recorded request and what differed), `forward` (ask a real server
through `forward`), `drop` (never answer).
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from inspector.mock.script import Reaction, RecordedScript
from inspector.protocol import id_key

__all__ = ["UNMATCHED_CODE", "MockSession", "Out"]

UNMATCHED_CODE = -32050  # implementation-defined server error: no recorded request matches
Out = Callable[[dict[str, Any]], Awaitable[None]]
Forward = Callable[[dict[str, Any], Out], Awaitable[dict[str, Any] | None]]  # (message, where to relay)


class MockSession:
    def __init__(
        self,
        script: RecordedScript,
        *,
        unmatched: str = "error",
        forward: Forward | None = None,
        answer_timeout: float = 60.0,
        play: bool = True,
    ) -> None:
        if unmatched not in ("error", "forward", "drop"):
            raise ValueError(f"unmatched policy must be error, forward or drop, got {unmatched!r}")
        if unmatched == "forward" and forward is None:
            raise ValueError("the forward policy needs a server to forward to")
        self.script = script
        self.unmatched = unmatched
        self.forward = forward
        self.answer_timeout = answer_timeout
        self.play = play  # False: forward everything (record mode `all`)
        self.misses: list[dict[str, Any]] = []
        self.on_message: Callable[[dict[str, Any]], None] | None = None  # sees every client message first
        self._ids = itertools.count(1)
        self._waiting: dict[str, tuple[anyio.Event, list[dict[str, Any]]]] = {}

    async def handle(self, message: dict[str, Any], out: Out) -> bool:
        """React to one client message; True when a response to it was sent."""
        if self.on_message is not None:
            self.on_message(message)
        if "method" not in message:
            self.deliver_response(message)
            return False
        is_request = "id" in message
        reaction, miss = self.script.react(message) if self.play else (None, None)
        if reaction is not None:
            return await self._play(reaction, message, out)
        if not is_request:
            if self.forward is not None and not self.play:
                await self.forward(message, out)
            return False
        if self.forward is not None and (self.unmatched == "forward" or not self.play):
            answer = await self.forward(message, out)
            if answer is not None:
                await out({**answer, "jsonrpc": "2.0", "id": message["id"]})
                return True
        if self.unmatched == "drop":
            return False
        assert miss is not None or not self.play
        text = miss.message() if miss else "mcp-inspect mock: no recording to answer from"
        data = miss.data() if miss else {"method": message.get("method")}
        self.misses.append(data)
        await out(
            {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": UNMATCHED_CODE, "message": text, "data": data},
            }
        )
        return True

    async def _play(self, reaction: Reaction, message: dict[str, Any], out: Out) -> bool:
        responded = False
        for action in reaction.actions:
            if action.kind == "notify":
                await out({"jsonrpc": "2.0", **action.payload})
            elif action.kind == "request":
                await self.ask(action.payload, out)
            elif "id" in message:
                await out({"jsonrpc": "2.0", "id": message["id"], **action.payload})
                responded = True
        return responded

    async def ask(self, payload: dict[str, Any], out: Out) -> dict[str, Any] | None:
        """Send a server-to-client request and wait for the client's answer (None on timeout)."""
        rpc_id = f"mock-{next(self._ids)}"
        event = anyio.Event()
        slot: list[dict[str, Any]] = []
        self._waiting[id_key(rpc_id)] = (event, slot)
        await out({"jsonrpc": "2.0", "id": rpc_id, **payload})
        with anyio.move_on_after(self.answer_timeout):
            await event.wait()
        self._waiting.pop(id_key(rpc_id), None)
        return slot[0] if slot else None

    def deliver_response(self, message: dict[str, Any]) -> bool:
        """The client answered one of our requests; False if we were not waiting for it."""
        waiting = self._waiting.get(id_key(message.get("id")))
        if waiting is None:
            return False
        event, slot = waiting
        slot.append(message)
        event.set()
        return True
