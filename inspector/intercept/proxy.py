"""Intercept and fault injection on the HTTP proxy (`proxy --faults FILE` / `--intercept`).

`InterceptingProxy` is `HttpProxy` with an `inspector.intercept.Interceptor`
on the way. The CLI builds it only when a rules file or `--intercept` is
given: the plain proxy has no check at all on its forwarding path.

Where messages are seen and decided (`Interceptor.decide`):
- c2s: the JSON-RPC body of a client POST (a batch is one message), on
  Streamable HTTP and on a legacy message endpoint; the whole body is read
  before deciding.
- s2c: a JSON response body (read whole before deciding), and the data of
  each `message` event of an event stream (a POST's answer, the standalone
  GET stream, the legacy stream). Priming events (no data), comments and
  the legacy `endpoint` event pass untouched.

How the effects become HTTP:
- delay: the request is forwarded (the response or event sent) later.
- drop: a c2s notification is answered 202 without forwarding; a c2s request
  is never forwarded and the client's POST is held open until it gives up;
  a JSON response likewise; an SSE event is not sent. On a legacy message
  endpoint a dropped POST is answered 202 (as the server would: the answer
  was due on the event stream).
- duplicate: a POST is forwarded again once its answer is complete, the
  second answer recorded (`meta.discarded`) and not sent to the client; an
  SSE event is sent twice; a JSON response becomes an event stream of the
  copies when the client accepts one (else it is sent once).
- reorder: SSE events (and POSTs) are held and released in the rule's order.
- corrupt / truncate / replace: the altered body or event data is sent
  (an SSE event keeps its id and event name).
- replace on a request, respond at a breakpoint: the inspector answers, as
  JSON with its content-length, or as one SSE event when the client accepts
  only `text/event-stream`; on a legacy endpoint the POST gets 202 and the
  answer goes out on the session's event stream. Never forwarded.
- disconnect: the client's connection is cut (`http_listener.ABORT`); the
  recorded session ends with `disconnected by rule <name>`.
- http_error: the request is answered with that status, body and headers
  (e.g. 404 on a session, 429 with Retry-After, 401 with a challenge);
  never forwarded.
- drip: an SSE event (every event of the answer, when the rule matched the
  request; a JSON body likewise) is sent in `chunk`-byte pieces every
  `interval_ms`.
- close_stream: matched on a request, its answer's event stream ends after
  `events` events (priming events count); matched on an event, the stream
  ends after `events` events counted from that one (0: before it). The
  client resumes with GET and `Last-Event-ID`, forwarded and recorded as
  usual.
- pause: the message waits on its `Pending` (an asyncio future woken from
  the resolving thread); other exchanges keep flowing.

Rows: the sender's message keeps its exact bytes with `meta.intercept`; each
body or event the inspector sent instead or in addition is its own row with
`meta.injected` (contract of issue #17, section 2).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import os
import re
import textwrap
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.capture import Recorder
from inspector.errors import UpstreamError
from inspector.intercept import (
    CloseStream,
    Decision,
    Deliver,
    Disconnect,
    Drip,
    HttpError,
    Interceptor,
    Intervention,
    Pending,
    Reply,
    Seen,
    Tracker,
)
from inspector.protocol.http_exchange import (
    decoded_body,
    forward_headers,
    header,
    is_json_body,
)
from inspector.protocol.sse import SSEEvent, SSEFramer
from inspector.transports.http_listener import ABORT
from inspector.transports.http_proxy import HttpProxy, _watch_disconnect
from inspector.transports.http_record import HttpExchange
from inspector.transports.upstream import UpstreamResponse

__all__ = [
    "InterceptingProxy",
    "RecordingFactsProxy",
    "describe",
    "proxy_class",
    "proxy_interceptor",
    "start_proxy_control",
]

_EVENT_FIELD = re.compile(rb"(?:^|[\r\n])event:")  # an event that names its type, even "message"
TICK_S = 0.05  # how often breakpoint timeouts and reorder waits are looked at


@dataclass(slots=True)
class _Context:
    """What the response side of one intercepted exchange needs from its request side."""

    receive: Callable[[], Awaitable[dict[str, Any]]]
    accept: bytes
    sid: int
    url: str  # the upstream URL of the exchange
    headers: list[tuple[bytes, bytes]]  # the client's request headers
    drip: Drip | None = None
    close_after: int | None = None  # end the answer's event stream after this many events


@dataclass(slots=True)
class _Stream:
    """An event stream being relayed to a client: its sends are serialised, counted and may be cut."""

    send: Callable[[dict[str, Any]], Awaitable[None]]
    ex: HttpExchange
    drip: Drip | None = None
    close_after: int | None = None
    sent: int = 0
    closed: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    released: collections.deque[bytes] = field(default_factory=collections.deque)

    @property
    def closing(self) -> bool:
        return self.close_after is not None and self.sent >= self.close_after

    async def emit(self, raw: bytes, drip: Drip | None = None) -> None:
        """Send one event's bytes (in drips when asked)."""
        async with self.lock:
            await self._emit(raw, drip)

    async def _emit(self, raw: bytes, drip: Drip | None) -> None:
        if self.closed:
            return
        drip = drip or self.drip
        if drip is None:
            await self.send({"type": "http.response.body", "body": raw, "more_body": True})
        else:
            for i in range(0, len(raw), drip.chunk):
                if i:
                    await asyncio.sleep(drip.interval_s)
                await self.send(
                    {"type": "http.response.body", "body": raw[i : i + drip.chunk], "more_body": True}
                )
        self.sent += 1

    async def drain(self) -> None:
        """Send the events a reorder released to this stream."""
        async with self.lock:
            while self.released and not self.closing:
                await self._emit(self.released.popleft(), None)


class RecordingFactsProxy(HttpProxy):
    """The plain proxy when no rule can ever act (every rule disabled, or pauses without
    `--intercept`, and no control channel to change that): it forwards as the plain proxy does and
    only records `facts.intercept` in each session."""

    def __init__(self, *args: Any, interceptor: Interceptor, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.interceptor = interceptor

    def _open_session(self, hint: str) -> int:
        sid = super()._open_session(hint)
        self.taps[sid].add_facts({"intercept": self.interceptor.facts()})
        return sid


def proxy_class(interceptor: Interceptor, intercept: bool) -> type[HttpProxy]:
    """The proxy to build for these flags (all take `interceptor=`)."""
    if not intercept and not interceptor.active:
        return RecordingFactsProxy
    return InterceptingProxy


class InterceptingProxy(HttpProxy):
    """The recording reverse proxy with interception (see the module docstring)."""

    def __init__(self, *args: Any, interceptor: Interceptor, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.interceptor = interceptor
        self._trackers: dict[int, Tracker] = {}  # per recorded session: JSON-RPC ids repeat across sessions
        self._contexts: dict[int, _Context] = {}  # by exchange number
        self._legacy: dict[int, _Stream] = {}  # a legacy session's event stream, to answer on it
        self._owners: dict[int, Callable[[Deliver], None]] = {}  # id(Seen) held by a reorder -> its release
        self._tasks: set[asyncio.Task[Any]] = set()
        self._cut_reasons: dict[int, str] = {}  # sessions a `disconnect` rule cut: the reason they end with
        self._ticker: asyncio.Task[None] | None = None
        self.on_session: Callable[[], None] | None = None  # told when a session opens (the control channel)

    # --- sessions -------------------------------------------------------------------------------

    def _open_session(self, hint: str) -> int:
        sid = super()._open_session(hint)
        self._trackers[sid] = Tracker()
        self.taps[sid].add_facts({"intercept": self.interceptor.facts()})
        if self.on_session is not None:  # once the recorder has created the row (its id is known)
            loop = asyncio.get_running_loop()
            for later in (0.1, 1.0):
                loop.call_later(later, self.on_session)
        return sid

    def _cut_session(self, sid: int, reason: str) -> None:
        """A rule cut a connection of the session: the session ends with that reason once nothing of it
        is under way (its other streams keep being recorded until they close; nothing is lost).
        A session grouped by client identity spans connections: the client may come back on another
        one (2026-07-28: it re-issues the request), so only that connection is cut."""
        if self.router.grouping(sid) is not None:
            return
        self._cut_reasons[sid] = reason
        if self.router.close(sid, reason) is not None:
            self.end_session(sid, reason)

    def end_session(self, sid: int, reason: str, status: int | None = None) -> None:
        reason = self._cut_reasons.pop(sid, reason)  # however it ends, the rule's cut is why
        self._trackers.pop(sid, None)
        self._legacy.pop(sid, None)
        tap = self.taps.get(sid)
        if tap is not None:
            tap.add_facts({"intercept": self.interceptor.facts()})  # rules added live are named too
        super().end_session(sid, reason, status)

    def _tracker(self, sid: int) -> Tracker:
        tracker = self._trackers.get(sid)
        if tracker is None:
            tracker = self._trackers[sid] = Tracker()
        return tracker

    # --- timers: breakpoint timeouts, reorder waits ------------------------------------------

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            self.interceptor.expire()  # resolved holds wake their waiters (`_await`)
            released = self.interceptor.due()
            if released:
                self._dispatch(released)

    def _dispatch(self, delivers: list[Deliver]) -> list[Deliver]:
        """Hand messages a reorder released to whoever holds them; returns those nobody holds here."""
        rest = []
        for d in delivers:
            owner = self._owners.pop(id(d.of), None) if d.of is not None else None
            if owner is None:
                rest.append(d)
            else:
                owner(d)
        return rest

    async def _exchange(
        self, scope: dict[str, Any], receive: Callable, send: Callable, headers: list
    ) -> None:
        if self._ticker is None:
            self._ticker = asyncio.ensure_future(self._tick())
        await super()._exchange(scope, receive, send, headers)

    async def aclose(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
        for task in list(self._tasks):
            task.cancel()
        await super().aclose()

    async def _await(self, pending: Pending, receive: Callable | None) -> Decision | None:
        """A breakpoint's outcome; None if the client left first (`receive` given)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Decision] = loop.create_future()

        def settle(p: Pending) -> None:
            if not future.done() and p.outcome is not None:
                future.set_result(p.outcome)

        def wake(p: Pending) -> None:
            loop.call_soon_threadsafe(settle, p)

        pending.on_resolved(wake)
        if receive is None:
            return await future
        return await _unless_gone(future, receive)

    async def _decide(self, seen: Seen, receive: Callable | None) -> Decision | None:
        decision = self.interceptor.decide(seen)
        pending = decision.held
        while pending is not None:
            outcome = await self._await(pending, receive)
            if outcome is None:
                return None
            decision = outcome
            pending = decision.held
        return decision

    # --- the request side -------------------------------------------------------------------------

    async def _forward(
        self,
        scope: dict[str, Any],
        receive: Callable,
        send: Callable,
        headers: list,
        method: str,
        url: str,
        ex: HttpExchange,
        sid: int,
        key: tuple[str, str],
        proxy_origin: str | None,
    ) -> None:
        body = await _read_body(receive)
        if (step := self.auth.step(method, scope["path"], body)) is not None:
            ex.labels["auth_step"] = step
        ctx = self._contexts[ex.number] = _Context(
            receive, header(headers, b"accept") or b"", sid, url, headers
        )
        try:
            if step is not None or method != "POST" or not body:
                ex.request(body, headers, jsonrpc=step is None)
                await self._upstream(
                    scope, receive, send, headers, method, url, ex, sid, key, proxy_origin, body
                )
                return
            await self._intercept_request(
                scope, receive, send, headers, url, ex, sid, key, proxy_origin, body, ctx
            )
        finally:
            self._contexts.pop(ex.number, None)

    async def _intercept_request(
        self,
        scope: dict[str, Any],
        receive: Callable,
        send: Callable,
        headers: list,
        url: str,
        ex: HttpExchange,
        sid: int,
        key: tuple[str, str],
        proxy_origin: str | None,
        body: bytes,
        ctx: _Context,
    ) -> None:
        seen = Seen.of("c2s", body, self._tracker(sid))
        decision = await self._decide(seen, receive)
        if decision is None:
            _request_row(ex, body, headers, {"problem": "the client left while the request was held"})
            return
        iv = decision.intervention
        if iv is None:  # passes untouched
            ex.request(body, headers)
            await self._upstream(scope, receive, send, headers, "POST", url, ex, sid, key, proxy_origin, body)
            return
        delivers: list[Deliver] = []
        others: list[Any] = []
        for effect in decision.effects:
            if isinstance(effect, Deliver):
                delivers.append(effect)
            elif isinstance(effect, Drip):
                ctx.drip = effect
            elif isinstance(effect, CloseStream):
                ctx.close_after = effect.events
            else:
                others.append(effect)
        legacy = self.router.is_legacy_stream(sid)
        if iv.action == "reorder":
            mine = self._dispatch(delivers)
            _request_row(ex, body, headers, {"intercept": iv.meta()})
            if not any(d.of is seen for d in mine) and not any(d.of is None for d in mine):
                released = await self._held(seen, receive)
                if released is None:
                    return
                mine = [released]
            delivers = [d for d in mine if d.of is seen or d.of is None]
        else:
            _request_row(ex, body, headers, {"intercept": iv.meta()})
        for effect in others:
            if isinstance(effect, Disconnect):
                await send({"type": ABORT})
                self._cut_session(sid, effect.reason)
                return
            if isinstance(effect, HttpError):
                await self._http_error(send, ex, effect, iv)
                return
            if isinstance(effect, Reply):
                await self._reply(send, ex, sid, effect.raw, iv, ctx, legacy)
                return
        if not delivers:  # dropped
            if seen.kind in ("request", "batch") and not legacy:  # (a batch may hold requests)
                await _until_disconnect(receive)  # held open: the client's own timeout decides
                ex.record("c2s", "http-request", b"", problem="client gave up on a dropped request")
            else:
                await self._accepted(send, ex, iv)
            return
        first, *copies = delivers
        if first.delay_s > 0:
            await asyncio.sleep(first.delay_s)
        sent = first.raw
        if first.injected:
            ex.record("c2s", "http-request", sent, injected=iv.injected_meta())
        await self._upstream(
            scope, receive, send, headers, "POST", url, ex, sid, key, proxy_origin, sent, sent != body
        )
        if copies:
            self._spawn(self._duplicates(url, headers, ex, copies, iv))

    async def _held(self, seen: Seen, receive: Callable) -> Deliver | None:
        """Wait until a reorder releases this request (None: the client left first)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Deliver] = loop.create_future()

        def release(d: Deliver) -> None:
            if not future.done():
                future.set_result(d)

        self._owners[id(seen)] = release
        released = await _unless_gone(future, receive)
        if released is None:
            self._owners.pop(id(seen), None)
        return released

    async def _upstream(
        self,
        scope: dict[str, Any],
        receive: Callable,
        send: Callable,
        headers: list,
        method: str,
        url: str,
        ex: HttpExchange,
        sid: int,
        key: tuple[str, str],
        proxy_origin: str | None,
        body: bytes,
        altered: bool = False,
    ) -> None:
        """Forward a whole request and relay its answer (edited bodies get a new Content-Length)."""
        sent_headers = forward_headers(headers)
        if altered:
            sent_headers = _with_length(sent_headers, body)
        await self._relay(scope, receive, send, method, url, ex, sid, key, proxy_origin, sent_headers, body)

    async def _duplicates(
        self, url: str, headers: list, ex: HttpExchange, copies: list[Deliver], iv: Intervention
    ) -> None:
        """Send a POST again (after the client's answer is complete); record and discard the answers."""
        for copy in copies:
            if copy.delay_s > 0:
                await asyncio.sleep(copy.delay_s)
            dup = HttpExchange(ex.tap, next(self._exchanges), "POST", ex.path, "")
            dup.tap.submit_message(
                "c2s", "http-request", copy.raw, jsonrpc=True, http_method="POST", http_path=ex.path,
                http_raw_headers=headers, meta={"exchange": dup.number, "injected": iv.injected_meta()},
            )  # fmt: skip
            try:
                response = await self.client.request(
                    "POST", url, _with_length(forward_headers(headers), copy.raw), copy.raw
                )
            except UpstreamError as exc:
                dup.record("s2c", "http-response", b"", discarded=True, problem=f"upstream failed: {exc}")
                continue
            try:
                wire = await response.aread()
            except UpstreamError as exc:
                wire = b""
                dup.labels["problem"] = f"upstream response broke: {exc}"
            finally:
                await response.aclose()
            dup.status = response.status
            dup.raw_response_headers = response.headers
            content_type = (header(response.headers, b"content-type") or b"").split(b";")[0].strip().lower()
            if content_type == b"text/event-stream":
                dup.record("s2c", "http-response", b"", head=True, discarded=True)
                framer = SSEFramer()
                for event in framer.feed(wire) + framer.close():
                    if not event.is_comment_only:
                        dup.record("s2c", "sse", event.raw, jsonrpc=bool(event.data_bytes), sse_event_id=event.id,
                                   body=event.data_bytes, discarded=True)  # fmt: skip
            else:
                dup.record("s2c", "http-response", wire, head=True, jsonrpc=is_json_body(content_type, wire),
                           discarded=True)  # fmt: skip

    async def _answer_server(
        self, ctx: _Context | None, ex: HttpExchange, raw: bytes, iv: Intervention, sid: int
    ) -> None:
        """POST the inspector's answer to a server's request, as the client would have."""
        injected = iv.injected_meta()
        if ctx is None or self.router.is_legacy_stream(sid):
            ex.record("c2s", "http-request", b"", injected=injected,
                      problem="no endpoint known to send the inspector's answer to")  # fmt: skip
            return
        skip = (b"accept", b"last-event-id", b"content-length", b"content-type")
        heads = [(k, v) for k, v in forward_headers(ctx.headers) if k.lower() not in skip]
        heads += [(b"content-type", b"application/json"), (b"accept", b"application/json, text/event-stream")]
        out = HttpExchange(ex.tap, next(self._exchanges), "POST", ex.path.partition("?")[0], "")
        out.tap.submit_message(
            "c2s", "http-request", raw, jsonrpc=True, http_method="POST", http_path=out.path,
            http_raw_headers=heads, meta={"exchange": out.number, "injected": injected},
        )  # fmt: skip
        try:
            response = await self.client.request("POST", ctx.url, _with_length(heads, raw), raw)
            try:
                body = await response.aread()
            finally:
                await response.aclose()
        except UpstreamError as exc:
            out.record("s2c", "http-response", b"", discarded=True, problem=f"upstream failed: {exc}")
            return
        out.status, out.raw_response_headers = response.status, response.headers
        out.record("s2c", "http-response", body, head=True, jsonrpc=False, discarded=True)

    # --- answers the inspector gives ------------------------------------------------------------

    async def _reply(
        self,
        send: Callable,
        ex: HttpExchange,
        sid: int,
        raw: bytes,
        iv: Intervention,
        ctx: _Context,
        legacy: bool,
    ) -> None:
        injected = iv.injected_meta()
        if legacy:  # the answer goes on the session's event stream; the POST is accepted
            stream = self._legacy.get(sid)
            await self._accepted(send, ex, iv)
            if stream is None:
                ex.record("s2c", "sse", b"", problem="no event stream to answer on", injected=injected)
                return
            event = _frame(None, raw)
            await stream.emit(event)
            stream.ex.record("s2c", "sse", event, sse_event_id=None, body=raw, injected=injected)
            return
        accept = ctx.accept.lower()
        if b"text/event-stream" in accept and b"application/json" not in accept and b"*/*" not in accept:
            event = _frame(None, raw)
            heads = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
            await send({"type": "http.response.start", "status": 200, "headers": heads})
            await send({"type": "http.response.body", "body": event, "more_body": False})
            ex.status, ex.response_headers = 200, _strings(heads)
            ex.record("s2c", "http-response", b"", head=True, injected=injected)
            ex.record("s2c", "sse", event, body=raw, injected=injected)
            return
        heads = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": heads})
        await send({"type": "http.response.body", "body": raw, "more_body": False})
        ex.status, ex.response_headers = 200, _strings(heads)
        ex.record("s2c", "http-response", raw, head=True, injected=injected)

    async def _http_error(self, send: Callable, ex: HttpExchange, error: HttpError, iv: Intervention) -> None:
        heads = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in error.headers.items()]
        if error.body and not any(k == b"content-type" for k, _ in heads):
            heads.append((b"content-type", b"text/plain; charset=utf-8"))
        heads = [(k, v) for k, v in heads if k != b"content-length"]
        heads.append((b"content-length", str(len(error.body)).encode()))
        await send({"type": "http.response.start", "status": error.status, "headers": heads})
        await send({"type": "http.response.body", "body": error.body, "more_body": False})
        ex.status, ex.response_headers = error.status, _strings(heads)
        jsonrpc = is_json_body(b"application/json", error.body) if error.body else False
        ex.record("s2c", "http-response", error.body, head=True, jsonrpc=jsonrpc, injected=iv.injected_meta())

    async def _accepted(self, send: Callable, ex: HttpExchange, iv: Intervention) -> None:
        """202 with no body: a notification taken (and, here, not forwarded)."""
        heads = [(b"content-length", b"0")]
        await send({"type": "http.response.start", "status": 202, "headers": heads})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        ex.status, ex.response_headers = 202, _strings(heads)
        ex.record("s2c", "http-response", b"", head=True, jsonrpc=False, injected=iv.injected_meta())

    # --- the response side: a JSON body ---------------------------------------------------------

    async def _relay_body(
        self,
        response: UpstreamResponse,
        send: Callable,
        ex: HttpExchange,
        sent_headers: list[tuple[bytes, bytes]],
        content_type: bytes,
        rewritten: dict[str, str],
    ) -> None:
        ctx = self._contexts.get(ex.number)
        if ctx is None or "auth_step" in ex.labels or content_type != b"application/json":
            await super()._relay_body(response, send, ex, sent_headers, content_type, rewritten)
            return
        chunks: list[bytes] = []
        broke: str | None = None
        try:
            async for chunk in response.aiter_raw():
                chunks.append(chunk)
        except UpstreamError as exc:
            broke = f"upstream response broke: {exc}"
        wire = b"".join(chunks)
        ex.raw_response_headers = response.headers
        encoding = header(response.headers, b"content-encoding")
        body, decoded = decoded_body(wire, encoding.decode("latin-1").lower() if encoding else None)
        meta: dict[str, Any] = dict(decoded or {})
        if broke is not None:
            meta["problem"] = broke
        if rewritten:
            meta["rewritten_to"] = rewritten
        jsonrpc = is_json_body(content_type, body)
        decision = None
        if broke is None and jsonrpc and not meta.get("problem"):
            seen = Seen.of("s2c", body, self._tracker(ctx.sid))
            decision = await self._decide(seen, ctx.receive)
            if decision is None:
                ex.record(
                    "s2c",
                    "http-response",
                    body,
                    head=True,
                    problem="the client left while the answer was held",
                )
                return
        if decision is None or decision.intervention is None:
            await send({"type": "http.response.start", "status": response.status, "headers": sent_headers})
            await send({"type": "http.response.body", "body": wire, "more_body": broke is not None})
            ex.record("s2c", "http-response", body, head=True, jsonrpc=jsonrpc, **meta)
            return
        await self._intercept_body(response, send, ex, sent_headers, body, wire, meta, seen, decision, ctx)

    async def _intercept_body(
        self,
        response: UpstreamResponse,
        send: Callable,
        ex: HttpExchange,
        sent_headers: list[tuple[bytes, bytes]],
        body: bytes,
        wire: bytes,
        meta: dict[str, Any],
        seen: Seen,
        decision: Decision,
        ctx: _Context,
    ) -> None:
        iv = decision.intervention
        assert iv is not None
        delivers = [e for e in decision.effects if isinstance(e, Deliver)]
        if iv.action == "reorder":
            mine = self._dispatch(delivers)
            ex.record("s2c", "http-response", body, head=True, intercept=iv.meta(), **meta)
            delivers = [d for d in mine if d.of is seen or d.of is None]
            if not delivers:
                released = await self._held(seen, ctx.receive)
                if released is None:
                    return
                delivers = [released]
        else:
            ex.record("s2c", "http-response", body, head=True, intercept=iv.meta(), **meta)
        drip = ctx.drip
        for effect in decision.effects:
            if isinstance(effect, Disconnect):
                await send({"type": ABORT})
                self._cut_session(ctx.sid, effect.reason)
                return
            if isinstance(effect, HttpError):
                await self._http_error(send, ex, effect, iv)
                return
            if isinstance(effect, Drip):
                drip = effect
        if not delivers:  # dropped: the client waits for an answer that never comes
            await _until_disconnect(ctx.receive)
            ex.record("c2s", "http-request", b"", problem="client gave up on a dropped response")
            return
        injected = iv.injected_meta()
        if len(delivers) > 1 and b"text/event-stream" in ctx.accept.lower():
            # Copies of one JSON answer: only an event stream can carry more than one.
            heads = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
            await send({"type": "http.response.start", "status": response.status, "headers": heads})
            for i, d in enumerate(delivers):
                if d.delay_s > 0:
                    await asyncio.sleep(d.delay_s)
                event = _frame(None, d.raw)
                await send({"type": "http.response.body", "body": event, "more_body": i + 1 < len(delivers)})
                ex.record("s2c", "sse", event, body=d.raw, injected=injected)
            return
        d = delivers[0]
        if d.delay_s > 0:
            await asyncio.sleep(d.delay_s)
        if d.raw == body and not d.injected:
            out, heads = wire, sent_headers
        else:
            out = d.raw
            heads = [
                (k, v) for k, v in sent_headers if k.lower() not in (b"content-length", b"content-encoding")
            ]
            heads.append((b"content-length", str(len(out)).encode()))
        await send({"type": "http.response.start", "status": response.status, "headers": heads})
        if drip is None:
            await send({"type": "http.response.body", "body": out, "more_body": False})
        else:
            for i in range(0, len(out), drip.chunk):
                if i:
                    await asyncio.sleep(drip.interval_s)
                end = i + drip.chunk >= len(out)
                await send(
                    {"type": "http.response.body", "body": out[i : i + drip.chunk], "more_body": not end}
                )
            if not out:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        if out is not wire:
            ex.response_headers = _strings(heads)
            ex.record("s2c", "http-response", out, head=True, injected=injected)

    # --- the response side: event streams -------------------------------------------------------

    async def _relay_events(
        self,
        response: UpstreamResponse,
        send: Callable,
        receive: Callable,
        ex: HttpExchange,
        sid: int,
    ) -> str | None:
        ctx = self._contexts.get(ex.number)
        stream = _Stream(send, ex, ctx.drip if ctx else None, ctx.close_after if ctx else None)
        framer = SSEFramer()
        state = {"finished": False, "disconnected": False}
        watcher = asyncio.ensure_future(_watch_disconnect(receive, asyncio.current_task(), state))
        try:
            if stream.closing:
                return await self._cut(stream, state, sid)
            async for chunk in response.aiter_raw():
                events = framer.feed(chunk)
                if response.at_end:
                    events += framer.close()
                for event in events:
                    reason = await self._event(event, stream, sid, state)
                    if reason is not None:
                        return reason
                    if stream.released:
                        await stream.drain()
                    if stream.closing:
                        return await self._cut(stream, state, sid)
                if response.at_end:
                    break
            for event in framer.close():
                reason = await self._event(event, stream, sid, state)
                if reason is not None:
                    return reason
            # The stream's end: what a reorder still holds of it goes out first.
            self._dispatch(self.interceptor.flush("s2c"))
            await stream.drain()
            state["finished"] = True
            stream.closed = True
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return self._stream_end(sid, "the server closed the event stream")
        except (UpstreamError, OSError) as exc:
            ex.record("s2c", "sse", b"", problem=f"upstream stream broke: {exc}")
            return self._stream_end(sid, "the server's event stream broke")
        except asyncio.CancelledError:
            if not state["disconnected"]:
                raise
            ex.record("c2s", "http-request", b"", problem="client disconnected from the event stream")
            return self._stream_end(sid, "the client closed the event stream")
        finally:
            stream.closed = True
            if self._legacy.get(sid) is stream:
                del self._legacy[sid]
            watcher.cancel()

    async def _cut(self, stream: _Stream, state: dict[str, bool], sid: int) -> str | None:
        """`close_stream`: end the response here (the upstream stream is closed with it)."""
        state["finished"] = True
        async with stream.lock:
            stream.closed = True
            await stream.send({"type": "http.response.body", "body": b"", "more_body": False})
        return self._stream_end(sid, "the event stream was closed by an intercept rule")

    async def _event(self, event: SSEEvent, stream: _Stream, sid: int, state: dict[str, bool]) -> str | None:
        """Relay one event, intercepted when it carries a message; a reason when the stream must end."""
        ex = stream.ex
        if event.event == "endpoint":
            sent, rewrite = self._rewrite_endpoint(event, sid)
            await stream.emit(sent)
            if self.router.is_legacy_stream(sid):
                self._legacy[sid] = stream
            ex.record("s2c", "sse", event.raw, jsonrpc=False, sse_event_id=event.id, body=event.data_bytes,
                      event=event.event, **rewrite)  # fmt: skip
            return None
        if event.is_comment_only:
            await stream.emit(event.raw)
            return None
        meta: dict[str, Any] = {}
        if event.event != "message":
            meta["event"] = event.event
        if not event.complete:
            meta["problem"] = "event cut off by the end of the stream"
        jsonrpc = event.event == "message" and bool(event.data_bytes)
        if not jsonrpc or not event.complete:
            await stream.emit(event.raw)
            ex.record(
                "s2c", "sse", event.raw, jsonrpc=jsonrpc, sse_event_id=event.id, body=event.data_bytes, **meta
            )
            return None
        seen = Seen.of("s2c", event.data_bytes, self._tracker(sid))
        decision = await self._decide(seen, None)
        assert decision is not None
        iv = decision.intervention
        if iv is None:
            await stream.emit(event.raw)
            ex.record("s2c", "sse", event.raw, sse_event_id=event.id, body=event.data_bytes)
            return None
        record = iv.meta()
        injected = iv.injected_meta()
        drip: Drip | None = None
        for effect in decision.effects:
            if isinstance(effect, CloseStream):
                stream.close_after = stream.sent + effect.events
                if effect.events == 0:
                    record["delivered"] = False
            elif isinstance(effect, Drip):
                drip = effect
        ex.record("s2c", "sse", event.raw, sse_event_id=event.id, body=event.data_bytes, intercept=record)
        for effect in decision.effects:
            if isinstance(effect, Disconnect):
                state["finished"] = True
                stream.closed = True
                await stream.send({"type": ABORT})
                self._cut_session(sid, effect.reason)
                return effect.reason
            if isinstance(effect, HttpError):
                ex.record(
                    "s2c", "sse", b"", problem="http_error cannot answer an event of a stream already sent"
                )
            if isinstance(effect, Reply):  # a server's request answered by the inspector
                self._spawn(self._answer_server(self._contexts.get(ex.number), ex, effect.raw, iv, sid))
        if stream.closing:
            return None
        delivers = [e for e in decision.effects if isinstance(e, Deliver)]
        if iv.action == "reorder":
            self._owners[id(seen)] = functools.partial(_release_event, stream, event)
            delivers = self._dispatch(delivers)  # (all have an owner: a stream or a request)
        for d in delivers:
            if d.delay_s > 0:
                await asyncio.sleep(d.delay_s)
            if d.raw == event.data_bytes and not d.injected:
                await stream.emit(event.raw, drip)
            else:
                out = event.raw if d.raw == event.data_bytes else _frame(event, d.raw)
                await stream.emit(out, drip)
                ex.record("s2c", "sse", out, sse_event_id=event.id, body=d.raw, injected=injected)
            if stream.closing:
                break
        return None


# --- the command's wiring (`mcp-inspect proxy --faults/--intercept`) ---------------------------------


def proxy_interceptor(
    faults: str | None,
    *,
    intercept: bool,
    seed: int | None,
    pause_timeout: float | None,
    pause_default: str | None,
) -> Interceptor:
    """The interceptor the flags describe (`RulesError`, an `InspectorError`, for a bad rules file)."""
    from inspector.intercept.wrap import build_interceptor

    return build_interceptor(
        faults,
        intercept=intercept,
        seed=seed,
        pause_timeout=pause_timeout,
        pause_default=pause_default,
        transport="http",
    )


def describe(interceptor: Interceptor, intercept: bool = False, width: int = 80) -> str:
    """The start-up lines about interception: the seed and the rules, folded at `width` columns."""
    names = [r.name for r in interceptor.rules()]
    if proxy_class(interceptor, intercept) is RecordingFactsProxy:
        text = f"[mcp-inspect] no rule is active ({len(names)} in the file): forwarding as a plain proxy"
        return textwrap.fill(text, width, subsequent_indent=" " * 14)
    head = f"[mcp-inspect] intercepting with seed {interceptor.seed}: "
    text = head + (
        f"{len(names)} rule{'s' * (len(names) != 1)}: " + ", ".join(names) if names else "no rules"
    )
    return textwrap.fill(
        text, width, subsequent_indent=" " * 14, break_long_words=False, break_on_hyphens=False
    )


def start_proxy_control(proxy: InterceptingProxy, recorder: Recorder, target: str, engine: Any) -> Any:
    """The control channel (`--intercept`), announcing the proxy's open sessions and their database;
    None when this build has none."""
    try:
        from inspector.control.server import start_control  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None

    def sessions() -> list[int]:
        ids = (recorder.session_id(handle) for handle in list(proxy.taps))
        return sorted(i for i in ids if i is not None)

    handle = start_control(
        proxy.interceptor, kind="proxy", target=target, sessions=sessions, db=_db_key(engine)
    )
    proxy.on_session = handle.announce
    return handle


def _db_key(engine: Any) -> str:
    """The database as `inspector.scenario.control.db_key` names it (importing that module is slow)."""
    url = engine.url
    if url.get_backend_name() == "sqlite" and url.database:
        return "sqlite:" + os.path.abspath(url.database)
    return str(url.render_as_string(hide_password=True))


# --- helpers ------------------------------------------------------------------------------------


def _release_event(stream: _Stream, event: SSEEvent, deliver: Deliver) -> None:
    stream.released.append(event.raw if deliver.raw == event.data_bytes else _frame(event, deliver.raw))
    if not stream.closed:
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().create_task(stream.drain())


def _frame(event: SSEEvent | None, data: bytes) -> bytes:
    """An SSE event carrying `data`, with `event`'s name and id (a `message` event without one)."""
    lines = []
    if event is not None and (event.event != "message" or _EVENT_FIELD.search(event.raw)):
        lines.append(b"event: " + event.event.encode())
    if event is not None and event.id is not None:
        lines.append(b"id: " + event.id.encode())
    lines += [b"data: " + line for line in data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")]
    return b"\n".join(lines) + b"\n\n"


def _with_length(headers: list[tuple[bytes, bytes]], body: bytes) -> list[tuple[bytes, bytes]]:
    """The request's headers, its content-length that of `body` (which may have been altered)."""
    out = [(k, v) for k, v in headers if k.lower() not in (b"content-length", b"transfer-encoding")]
    out.append((b"content-length", str(len(body)).encode()))
    return out


def _strings(heads: list[tuple[bytes, bytes]]) -> list[list[str]]:
    return [[k.decode("latin-1"), v.decode("latin-1")] for k, v in heads]


def _request_row(ex: HttpExchange, body: bytes, headers: list, meta: dict[str, Any]) -> None:
    """The client's request as it sent it, with what was done to it."""
    ex.tap.submit_message(
        "c2s",
        "http-request",
        body,
        ts_ns=ex.started,
        jsonrpc=True,
        http_method=ex.method,
        http_path=ex.path,
        http_raw_headers=headers,
        meta={"exchange": ex.number, **ex.labels, **meta},
    )


async def _read_body(receive: Callable) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


async def _until_disconnect(receive: Callable) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _unless_gone(future: asyncio.Future[Any], receive: Callable) -> Any:
    """`future`'s result, or None if the client disconnects first."""
    gone = asyncio.ensure_future(_until_disconnect(receive))
    try:
        await asyncio.wait({future, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    return future.result() if future.done() and not future.cancelled() else None
