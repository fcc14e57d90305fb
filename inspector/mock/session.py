"""One client connection of a mock server: play reactions, ask the client, handle misses.

Transport-neutral: a transport hands over each client message with an
`out` callable that delivers server messages to the right place (stdout, or
the SSE stream of the POST that carried the request); `background` is where
messages go that belong to no request (timers, what happens after an answer,
requests pushed from the UI): stdout, or the session's GET stream over HTTP.
`out` takes a message, or bytes to send as they are (malformed on purpose).

Reactions come from a `Script` (a recording, `mock/script.py`, or a
scenario, `inspector/scenario`). Their actions: `notify`, `request` (sent
with a fresh id; the reaction waits for the client's answer, which the
transport delivers with `deliver_response`), `respond`, `sleep`, `hang`
(never answer), `raw`, `listen` and `end` (the recorded server ended the
connection or one HTTP exchange: the transport's `on_end` plays it, e.g.
closes stdout and exits with the recorded status). Under the stateless 2026-07-28 revision a request
cannot reach the client on its own: a run of `request` actions becomes an
`input_required` result (`inputRequests` + an opaque `requestState` saying
where to resume) and the client's retry with `inputResponses` resumes it.

`listen` serves a 2026-07-28 `subscriptions/listen` request: the
acknowledgement first, then the rest of the reaction (the scenario's timers)
on that stream, and the stream stays open until the client cancels it
(`notifications/cancelled`, or over HTTP by closing it) or goes away. Under
2026-07-28 notifications that belong to no request (`after` steps, timers)
go to the open listen streams whose filter admits them, stamped with the
stream's id (`inspector.protocol.listen`); there is no other channel for them.

Unmatched requests follow the policy: `error` (a JSON-RPC error naming the
nearest recorded request and what differed), `forward` (ask a real server
through `forward`), `drop` (never answer).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import anyio
import orjson

from inspector.errors import BadRetry
from inspector.mock.script import Action, Reaction, RecordedAnswer, wire_body
from inspector.protocol import id_key
from inspector.protocol.listen import ACKNOWLEDGED, SUBSCRIPTION_ID_META_KEY, admits, stamp
from inspector.protocol.mcp_tables import CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY
from inspector.protocol.versions import MODERN_PROTOCOL_VERSIONS
from inspector.replay.matching import Miss

__all__ = [
    "FORWARD_FAILED_CODE",
    "INPUT_METHODS",
    "UNMATCHED_CODE",
    "MockSession",
    "Out",
    "Script",
    "is_modern",
]

UNMATCHED_CODE = -32050  # implementation-defined server error: no recorded request matches
FORWARD_FAILED_CODE = -32051  # the real server a request was forwarded to gave no answer
INPUT_METHODS = frozenset({"sampling/createMessage", "elicitation/create", "roots/list"})
_PV_KEY = "io.modelcontextprotocol/protocolVersion"
Out = Callable[[dict[str, Any] | bytes], Awaitable[None]]
Forward = Callable[[dict[str, Any], Out], Awaitable[dict[str, Any] | None]]  # (message, where to relay)


class Script(Protocol):
    def react(self, message: dict[str, Any]) -> tuple[Reaction | None, Miss | None]: ...


def is_modern(message: dict[str, Any]) -> bool:
    """True for a request carrying the 2026-07-28 per-request protocol version."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and meta.get(_PV_KEY) in MODERN_PROTOCOL_VERSIONS


# Signs the `requestState` of this process's input_required results: a retry carrying a state the
# server did not issue (tampered, or from another server) is refused, never resumed.
_STATE_KEY = secrets.token_bytes(32)
_CAPABILITY = {
    "sampling/createMessage": "sampling",
    "elicitation/create": "elicitation",
    "roots/list": "roots",
}
INVALID_PARAMS = -32602
MISSING_CAPABILITY = -32021  # MissingRequiredClientCapabilityError (2026-07-28)


def _state(at: int, answers: list[Any], keys: list[str | None]) -> str:
    body = base64.urlsafe_b64encode(orjson.dumps({"at": at, "answers": answers, "keys": keys})).decode()
    return f"{body}.{hmac.new(_STATE_KEY, body.encode(), hashlib.sha256).hexdigest()}"


def _responses(params: dict[str, Any]) -> dict[str, Any]:
    """The retry's inputResponses (empty when it has none); BadRetry when they are not an object."""
    if "inputResponses" not in params:
        return {}
    found = params["inputResponses"]
    if not isinstance(found, dict):
        raise BadRetry("inputResponses must be an object")
    return found


def _answer_of(responses: dict[str, Any], key: str | None) -> Any:
    value = None if key is None else responses.get(key)
    if value is not None and not isinstance(value, dict):
        raise BadRetry(f"inputResponses[{key!r}] must be an object (the client's result)")
    return value


def _resume(params: dict[str, Any]) -> tuple[int, list[Any]] | None:
    """Where a retried 2026-07-28 request resumes, and the answers so far (from its state and inputs).
    None: no state (start over); BadRetry: a state this server did not issue, or bad inputs."""
    token = params.get("requestState")
    if token is None:
        return None
    body, _, sig = token.rpartition(".") if isinstance(token, str) else ("", "", "")
    good = hmac.new(_STATE_KEY, body.encode(), hashlib.sha256).hexdigest()
    if not body or not hmac.compare_digest(sig, good):
        raise BadRetry("requestState failed its integrity check (not issued by this server, or altered)")
    try:
        state = orjson.loads(base64.urlsafe_b64decode(body.encode()))
        at, answers, keys = int(state["at"]), list(state["answers"]), list(state["keys"])
    except (ValueError, KeyError, TypeError):
        raise BadRetry("requestState is not a state this server issued") from None
    responses = _responses(params)
    answers += [_answer_of(responses, k) for k in keys]
    return at, answers


def _may_log(message: dict[str, Any], notification: dict[str, Any]) -> bool:
    """Whether a notification may go on a 2026-07-28 request's stream: a log message only when the
    request's _meta asked for log messages (its logLevel) at that level or above."""
    if notification.get("method") != "notifications/message":
        return True
    meta = (message.get("params") or {}).get("_meta")
    level = meta.get(LOG_LEVEL_META_KEY) if isinstance(meta, dict) else None
    return admits({}, notification, level if isinstance(level, str) else None)


def _declared(message: dict[str, Any]) -> dict[str, Any] | None:
    """The client capabilities a 2026-07-28 request declares in its _meta (None: not said)."""
    meta = (message.get("params") or {}).get("_meta")
    caps = meta.get(CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, dict) else None
    return caps if isinstance(caps, dict) else None


def _refusal(message: dict[str, Any], code: int, text: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": text}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": message.get("id"), "error": error}


class ListenStream:
    """One open `subscriptions/listen` stream of this session."""

    def __init__(self, rpc_id: Any, honored: dict[str, Any], log_level: str | None, out: Out) -> None:
        self.rpc_id = rpc_id
        self.honored = honored
        self.log_level = log_level
        self.out = out
        self.ended = anyio.Event()

    async def deliver(self, message: dict[str, Any] | bytes) -> None:
        """Send a notification the stream's filter admits (stamped with its id); drop anything else."""
        if (
            isinstance(message, dict)
            and "id" not in message
            and admits(self.honored, message, self.log_level)
        ):
            await self.out(stamp(message, self.rpc_id))


class MockSession:
    def __init__(
        self,
        script: Script,
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
        self.background: Out | None = None  # set by the transport
        self.closed = anyio.Event()
        self._ids = itertools.count(1)
        self._waiting: dict[str, tuple[anyio.Event, list[dict[str, Any]]]] = {}
        self.modern = False  # a 2026-07-28 client: notifications outside a request go to listen streams
        # Set by the transport: plays a recorded end ({"exit_status", "http_status", "reason"}) of the
        # connection `out` belongs to. None: the end is not played (the client's request stays unanswered).
        self.on_end: Callable[[dict[str, Any], Out], Awaitable[None]] | None = None
        self.listens: dict[str, ListenStream] = {}

    def close(self) -> None:
        """The client is gone: hanging and sleeping reactions stop, pending questions get no answer."""
        self.closed.set()
        for event, _slot in list(self._waiting.values()):
            event.set()
        for stream in list(self.listens.values()):
            stream.ended.set()

    async def handle(self, message: dict[str, Any], out: Out) -> bool:
        """React to one client message; True when a response to it was sent."""
        if self.on_message is not None:
            self.on_message(message)
        if "method" not in message:
            self.deliver_response(message)
            return False
        is_request = "id" in message
        if is_request and is_modern(message):
            self.modern = True
        if message.get("method") == "notifications/cancelled":
            cancelled = (message.get("params") or {}).get("requestId")
            stream = self.listens.get(id_key(cancelled))
            if stream is not None:
                stream.ended.set()
        reaction, miss = self.script.react(message) if self.play else (None, None)
        if reaction is not None:
            return await self.play_reaction(reaction, message, out)
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

    async def play_reaction(self, reaction: Reaction, message: dict[str, Any], out: Out) -> bool:
        """Play `reaction` to `message` (a request, a notification, or {} for none); True once answered."""
        modern = "id" in message and is_modern(message)
        start, answers = 0, list[Any]()
        params = message.get("params") or {}
        # Only a reaction that asks the client something issued a requestState to resume (a
        # recorded answer is played as recorded: its state was the recorded server's).
        asking = modern and any(a.kind == "request" for a in reaction.actions)
        try:
            resumed = _resume(params) if asking else None
        except BadRetry as exc:
            await out(_refusal(message, INVALID_PARAMS, str(exc)))
            return True
        if resumed is not None:
            start, answers = resumed
        first_round = resumed is None  # a retry without state may answer the first round by its keys
        responded = False
        actions = reaction.actions
        i = start
        while i < len(actions):
            action = self._rendered(reaction, actions[i], answers)
            i += 1
            if action is None:
                continue
            if not responded:
                target = out
            elif self.modern:  # 2026-07-28: nothing outside a request but the listen streams
                target = self.later
            else:
                target = self.background or out
            if action.kind == "notify":
                if modern and not responded and not _may_log(message, action.payload):
                    continue  # 2026-07-28: log messages only at the level the request asked for
                await target({"jsonrpc": "2.0", **action.payload})
            elif action.kind == "request" and modern and not responded:
                batch = [action]
                while i < len(actions) and actions[i].kind == "request":
                    nxt = self._rendered(reaction, actions[i], answers)
                    i += 1
                    if nxt is not None:
                        batch.append(nxt)
                asks = [a for a in batch if a.payload.get("method") in INPUT_METHODS]
                declared = _declared(message)
                keys: list[str | None] = []  # one per question, None for one skipped
                inputs: dict[str, dict[str, Any]] = {}
                for n, ask in enumerate(asks):
                    need = _CAPABILITY[ask.payload["method"]]
                    if declared is not None and need not in declared:
                        if (ask.input or {}).get("optional"):
                            keys.append(None)
                            continue
                        text = f"{ask.payload['method']} needs the client capability {need!r}"
                        needed: dict[str, Any] = {"requiredCapabilities": {need: {}}}
                        await out(_refusal(message, MISSING_CAPABILITY, text, needed))
                        return True
                    key = (ask.input or {}).get("key") or f"input-{i}-{n}"
                    keys.append(key)
                    inputs[key] = ask.payload
                if not inputs:
                    answers += [None] * len(keys)
                    continue
                if first_round and "requestState" not in params:
                    try:
                        responses = _responses(params)
                        if all(k in responses for k in inputs):
                            answers += [_answer_of(responses, k) for k in keys]
                            first_round = False
                            continue
                    except BadRetry as exc:
                        await out(_refusal(message, INVALID_PARAMS, str(exc)))
                        return True
                first_round = False
                result = {
                    "resultType": "input_required",
                    "inputRequests": inputs,
                    "requestState": _state(i, answers, keys),
                }
                await out({"jsonrpc": "2.0", "id": message["id"], "result": result})
                return True
            elif action.kind == "request":
                answer = await self.ask(action.payload, target)
                answers.append(
                    None
                    if answer is None
                    else answer["result"]
                    if "result" in answer
                    else {"error": answer.get("error")}
                )
            elif action.kind == "respond":
                if "id" in message and not responded:
                    answer = {"jsonrpc": "2.0", "id": message["id"], **action.payload}
                    if action.wire is not None:  # an HTTP transport serves the recorded wire
                        raw = wire_body(action.wire, message["id"])
                        answer = RecordedAnswer(answer, action.wire["status"], action.wire["headers"], raw)
                    await out(answer)
                    responded = True
            elif action.kind == "raw":
                data = action.payload.get("data", "")
                await target(data.encode() if isinstance(data, str) else bytes(data))
                responded = responded or "id" in message
            elif action.kind == "sleep":
                with anyio.move_on_after(float(action.payload.get("seconds", 0))):
                    await self.closed.wait()
                if self.closed.is_set():
                    return responded
            elif action.kind == "hang":
                await self.closed.wait()
                return responded
            elif action.kind == "end":
                if self.on_end is not None:
                    await self.on_end(action.payload, out)  # the transport closes what it ends
                    return True  # the connection's end is this request's outcome
                return responded
            elif action.kind == "listen" and "id" in message:
                rest = Reaction(actions[i:], render=reaction.render)
                await self._listen(message["id"], action.payload, rest, out)
                return responded
        return responded

    async def later(self, message: dict[str, Any] | bytes) -> None:
        """Where a message that belongs to no request goes: under 2026-07-28 a notification goes to
        the listen streams, anything else to the session's background channel."""
        if self.modern and isinstance(message, dict) and "id" not in message:
            await self.broadcast(message)
        elif self.background is not None:
            await self.background(message)
        # else: no channel at all (a stateless client with no listen stream): nothing can be sent

    async def broadcast(self, message: dict[str, Any] | bytes) -> None:
        """Deliver a notification on every open listen stream that asked for it."""
        for stream in list(self.listens.values()):
            await stream.deliver(message)

    async def _listen(self, rpc_id: Any, payload: dict[str, Any], rest: Reaction, out: Out) -> None:
        """Serve one listen stream: acknowledge, play `rest` on it, stay open until it is ended."""
        honored = payload.get("notifications") or {}
        stream = ListenStream(rpc_id, honored, payload.get("logLevel"), out)
        key = id_key(rpc_id)
        self.listens[key] = stream
        try:
            meta = {SUBSCRIPTION_ID_META_KEY: rpc_id}
            ack = {"method": ACKNOWLEDGED, "params": {"notifications": honored, "_meta": meta}}
            await out({"jsonrpc": "2.0", **ack})
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.play_reaction, rest, {}, stream.deliver)
                await stream.ended.wait()
                tg.cancel_scope.cancel()
        finally:
            self.listens.pop(key, None)

    @staticmethod
    def _rendered(reaction: Reaction, action: Action, answers: list[Any]) -> Action | None:
        return reaction.render(action, answers) if reaction.render is not None else action

    async def ask(
        self, payload: dict[str, Any], out: Out, *, timeout: float | None = None
    ) -> dict[str, Any] | None:
        """Send a server-to-client request and wait for the client's answer (None on timeout)."""
        rpc_id = f"mock-{next(self._ids)}"
        event = anyio.Event()
        slot: list[dict[str, Any]] = []
        self._waiting[id_key(rpc_id)] = (event, slot)
        await out({"jsonrpc": "2.0", "id": rpc_id, **payload})
        with anyio.move_on_after(self.answer_timeout if timeout is None else timeout):
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
