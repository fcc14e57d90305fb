"""Verdicts on the HTTP proxy: what the addons decide (`inspector.flow`), done in HTTP terms.

`HttpProxy` builds an `Intervener` only when an addon decides (`proxy --faults`
/ `--intercept`: `intercept.addon.InterceptAddon`); the plain proxy never
reaches this module. Here every message is a `Flow` handed to the addons,
and their `Verdict` becomes HTTP:

Where messages are seen and decided:
- c2s (`request` hook): the JSON-RPC body of a client POST (a batch is one
  message), on Streamable HTTP and on a legacy message endpoint; the whole
  body is read before deciding.
- s2c (`response` hook): a JSON response body (read whole before deciding);
  (`event` hook) the data of each `message` event of an event stream (a POST's
  answer, the standalone GET stream, the legacy stream). Priming events (no
  data), comments and the legacy `endpoint` event pass untouched.

How the verdicts become HTTP:
- delay (a send's `delay_s`): the request is forwarded (the response or event
  sent) later.
- drop (no send): a c2s notification is answered 202 without forwarding; a c2s
  request is never forwarded and the client's POST is held open until it
  gives up; a JSON response likewise; an SSE event is not sent. On a legacy
  message endpoint a dropped POST is answered 202 (as the server would: the
  answer was due on the event stream).
- duplicate (more than one send): a POST is forwarded again once its answer is
  complete, the second answer recorded (`meta.discarded`) and not sent to the
  client; an SSE event is sent twice; a JSON response becomes an event stream
  of the copies when the client accepts one (else it is sent once).
- reorder (`deferred`): SSE events (and POSTs) are held and released in the
  rule's order (`Connection.send(..., of=flow)` hands a released one back).
- corrupt / truncate / replace: the altered body or event data is sent (an SSE
  event keeps its id and event name).
- reply (a send toward the sender): on a request, the inspector answers, as
  JSON with its content-length, or as one SSE event when the client accepts
  only `text/event-stream`; on a legacy endpoint the POST gets 202 and the
  answer goes out on the session's event stream. Never forwarded. On a
  server's request (an event), the answer is POSTed to the server.
- disconnect: the client's connection is cut (`http_listener.ABORT`); the
  recorded session ends with `disconnected by rule <name>`.
- http_error: the request is answered with that status, body and headers
  (e.g. 404 on a session, 429 with Retry-After, 401 with a challenge); never
  forwarded.
- drip: an SSE event (every event of the answer, when the verdict was on the
  request; a JSON body likewise) is sent in `chunk`-byte pieces every
  `interval_s`.
- close_after: on a request, its answer's event stream ends after that many
  events (priming events count); on an event, the stream ends after that many
  events counted from that one (0: before it). The client resumes with GET and
  `Last-Event-ID`, forwarded and recorded as usual.
- hold: the message waits until its hold is decided (an asyncio future woken
  from the deciding thread); other exchanges keep flowing.

Rows: the sender's message keeps its exact bytes with `meta.intercept`; each
body or event the inspector sent instead or in addition is its own row with
`meta.injected` (contract of issue #17, section 2).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import re
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.errors import UpstreamError
from inspector.flow import (
    Addons,
    Direction,
    Drip,
    Flow,
    HttpContext,
    HttpStatus,
    InjectedMeta,
    InterceptMeta,
    Send,
    Verdict,
)
from inspector.protocol.http_exchange import decoded_body, forward_headers, header, is_json_body
from inspector.protocol.jsonrpc import Kind, classify
from inspector.protocol.sse import SSEEvent, SSEFramer
from inspector.transports.http_call import STREAM_FAILURES, stream_failed, watch_disconnect
from inspector.transports.http_call import read_body as _read_body
from inspector.transports.http_call import unless_gone as _unless_gone
from inspector.transports.http_call import until_disconnect as _until_disconnect
from inspector.transports.http_listener import ABORT
from inspector.transports.http_record import HttpExchange
from inspector.transports.upstream import UpstreamResponse

if TYPE_CHECKING:
    from inspector.transports.http_call import Call, Headers, ProxyCore, Receive
    from inspector.transports.http_call import Send as AsgiSend

__all__ = ["Intervener", "frame", "with_length"]

_EVENT_FIELD = re.compile(rb"(?:^|[\r\n])event:")  # an event that names its type, even "message"
_Hook = Callable[[Flow], "Verdict | None"]


@dataclass(slots=True)
class _Context:
    """What the response side of one decided exchange needs from its request side."""

    call: Call
    accept: bytes
    drip: Drip | None = None
    close_after: int | None = None  # end the answer's event stream after this many events


@dataclass(slots=True)
class _Stream:
    """An event stream being relayed to a client: its sends are serialised, counted and may be cut."""

    send: AsgiSend
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


class Intervener:
    """The proxy's decided path: flows to the addons, verdicts to HTTP (see the module docstring).
    It is the addons' `flow.Connection`: a timer's released messages come back through `send`."""

    def __init__(self, proxy: ProxyCore, addons: Addons) -> None:
        self.proxy = proxy
        self.addons = addons
        self._contexts: dict[int, _Context] = {}  # by exchange number
        self._legacy: dict[int, _Stream] = {}  # a legacy session's event stream, to answer on it
        self._owners: dict[int, tuple[Flow, Callable[[Send], None]]] = {}  # id(flow) held back -> release
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = 0

    # --- the connection the addons see --------------------------------------------------------

    def _start(self) -> None:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._thread = threading.get_ident()
            self.addons.connection_start(self)

    def close(self) -> None:
        """At shutdown: the addons' end, the spawned work cancelled."""
        if self._loop is not None:
            self.addons.connection_end(self)
        for task in list(self._tasks):
            task.cancel()

    def send(self, to: Direction, raw: bytes, delay_s: float = 0.0, of: Flow | None = None) -> None:
        """A held-back message released (a reorder): given to the exchange that holds it, if any."""
        if of is None or self._loop is None:
            return  # nobody holds it here
        d = Send(raw, to, delay_s, None, of)
        if threading.get_ident() == self._thread:
            self._release([d])
        else:
            self._loop.call_soon_threadsafe(self._release, [d])

    def disconnect(self, reason: str) -> None:
        """Addons cut connections through a flow's verdict (`disconnect`), not out of turn."""

    def session_ended(self, sid: int) -> None:
        self._legacy.pop(sid, None)

    def _release(self, sends: Sequence[Send], keep: Flow | None = None, orphans: bool = False) -> list[Send]:
        """Hand released messages to the exchanges holding them; returns those of `keep` (the flow
        being decided, not held by anyone yet), and with `orphans` those nobody holds (else dropped)."""
        mine = []
        for d in sends:
            if d.of is keep and keep is not None:
                mine.append(d)
                continue
            owner = self._owners.pop(id(d.of), None) if d.of is not None else None
            if owner is not None and owner[0] is d.of:
                owner[1](d)
            elif orphans:
                mine.append(d)
        return mine

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _flow(self, call: Call, direction: Direction, raw: bytes) -> Flow:
        return Flow(raw, direction, time.time_ns(), self._context(call))

    def _context(self, call: Call) -> HttpContext:
        sid = header(call.headers, b"mcp-session-id")
        return HttpContext(
            call.method, call.url, call.headers, self.proxy.target, call.origin or "", call.sid,
            call.ex.number, sid.decode("latin-1") if sid else None, call.key, call.scope,
        )  # fmt: skip

    async def _decide(self, hook: _Hook, flow: Flow, receive: Receive | None) -> tuple[bool, Verdict | None]:
        """The addons' verdict, once every hold is decided; (False, None) if the client left first."""
        verdict = hook(flow)
        while verdict is not None and verdict.hold is not None:
            hold = verdict.hold
            loop = asyncio.get_running_loop()
            future: asyncio.Future[bool] = loop.create_future()

            hold.when_decided(functools.partial(loop.call_soon_threadsafe, _settle, future))
            if receive is None:
                await future
            elif await _unless_gone(future, receive) is None:
                return False, None
            verdict = hold.wait(1.0)
        return True, verdict

    # --- the request side -----------------------------------------------------------------------

    async def forward(self, call: Call) -> None:
        """A client's request: read whole, decided when it is a JSON-RPC POST, then relayed."""
        self._start()
        proxy, ex = self.proxy, call.ex
        body = await _read_body(call.receive)
        if (step := proxy.auth.step(call.method, call.scope["path"], body)) is not None:
            ex.labels["auth_step"] = step
        ctx = self._contexts[ex.number] = _Context(call, header(call.headers, b"accept") or b"")
        try:
            if step is not None or call.method != "POST" or not body:
                ex.request(body, call.headers, jsonrpc=step is None)
                await self._upstream(call, body)
                return
            await self._request(call, body, ctx)
        finally:
            self._contexts.pop(ex.number, None)

    async def _request(self, call: Call, body: bytes, ctx: _Context) -> None:
        ex, headers = call.ex, call.headers
        flow = self._flow(call, "c2s", body)
        present, verdict = await self._decide(self.addons.request, flow, call.receive)
        if not present:
            _request_row(ex, body, headers, {"problem": "the client left while the request was held"})
            return
        iv = flow.meta.get("intercept")
        if verdict is None or iv is None:  # passes untouched
            ex.request(body, headers)
            await self._upstream(call, body)
            return
        ctx.drip = verdict.drip
        ctx.close_after = verdict.close_after
        injected = _injected(iv)
        replies = [d for d in verdict.sends if d.of is flow and d.to == "s2c"]
        to_server = [d for d in verdict.sends if not (d.of is flow and d.to == "s2c")]
        legacy = self.proxy.router.is_legacy_stream(call.sid)
        _request_row(ex, body, headers, {"intercept": iv})
        delivers = self._release(to_server, keep=flow)
        if verdict.deferred and not delivers:
            released = await self._held(flow, call.receive)
            if released is None:
                return
            delivers = [released]
        if verdict.disconnect is not None:
            await call.send({"type": ABORT})
            self.proxy.cut_session(call.sid, verdict.disconnect)
            return
        if verdict.http_error is not None:
            await _http_error(call.send, ex, verdict.http_error, injected)
            return
        if replies:
            await self._reply(call, replies[0].raw, injected, ctx, legacy)
            return
        if not delivers:  # dropped
            if (
                classify(body).kind in (Kind.REQUEST, Kind.BATCH) and not legacy
            ):  # (a batch may hold requests)
                await _until_disconnect(call.receive)  # held open: the client's own timeout decides
                ex.record("c2s", "http-request", b"", problem="client gave up on a dropped request")
            else:
                await _accepted(call.send, ex, injected)
            return
        first, *copies = delivers
        if first.delay_s > 0:
            await asyncio.sleep(first.delay_s)
        sent = first.raw
        if first.injected:
            ex.record("c2s", "http-request", sent, injected=injected)
        await self._upstream(call, sent, sent != body)
        if copies:
            self._spawn(self._duplicates(call, copies, injected))

    async def _held(self, flow: Flow, receive: Receive) -> Send | None:
        """Wait until a reorder releases this request (None: the client left first)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Send] = loop.create_future()

        def release(d: Send) -> None:
            if not future.done():
                future.set_result(d)

        self._owners[id(flow)] = (flow, release)
        released: Send | None = await _unless_gone(future, receive)
        if released is None:
            self._owners.pop(id(flow), None)
        return released

    async def _upstream(self, call: Call, body: bytes, altered: bool = False) -> None:
        """Forward a whole request and relay its answer (edited bodies get a new Content-Length)."""
        sent_headers = forward_headers(call.headers)
        if altered:
            sent_headers = with_length(sent_headers, body)
        await self.proxy.relay(call, sent_headers, body)

    async def _duplicates(self, call: Call, copies: list[Send], injected: InjectedMeta) -> None:
        """Send a POST again (after the client's answer is complete); record and discard the answers."""
        ex, headers = call.ex, call.headers
        for copy in copies:
            if copy.delay_s > 0:
                await asyncio.sleep(copy.delay_s)
            dup = HttpExchange(ex.tap, next(self.proxy._exchanges), "POST", ex.path, "")
            dup.tap.submit_message(
                "c2s", "http-request", copy.raw, jsonrpc=True, http_method="POST", http_path=ex.path,
                http_raw_headers=headers, meta={"exchange": dup.number, "injected": injected},
            )  # fmt: skip
            try:
                response = await self.proxy.client.request(
                    "POST", call.url, with_length(forward_headers(headers), copy.raw), copy.raw
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
        self, ctx: _Context | None, ex: HttpExchange, raw: bytes, injected: InjectedMeta, sid: int
    ) -> None:
        """POST the inspector's answer to a server's request, as the client would have."""
        if ctx is None or self.proxy.router.is_legacy_stream(sid):
            ex.record("c2s", "http-request", b"", injected=injected,
                      problem="no endpoint known to send the inspector's answer to")  # fmt: skip
            return
        skip = (b"accept", b"last-event-id", b"content-length", b"content-type")
        heads = [(k, v) for k, v in forward_headers(ctx.call.headers) if k.lower() not in skip]
        heads += [(b"content-type", b"application/json"), (b"accept", b"application/json, text/event-stream")]
        out = HttpExchange(ex.tap, next(self.proxy._exchanges), "POST", ex.path.partition("?")[0], "")
        out.tap.submit_message(
            "c2s", "http-request", raw, jsonrpc=True, http_method="POST", http_path=out.path,
            http_raw_headers=heads, meta={"exchange": out.number, "injected": injected},
        )  # fmt: skip
        try:
            response = await self.proxy.client.request("POST", ctx.call.url, with_length(heads, raw), raw)
            try:
                body = await response.aread()
            finally:
                await response.aclose()
        except UpstreamError as exc:
            out.record("s2c", "http-response", b"", discarded=True, problem=f"upstream failed: {exc}")
            return
        out.status, out.raw_response_headers = response.status, response.headers
        out.record("s2c", "http-response", body, head=True, jsonrpc=False, discarded=True)

    async def _reply(
        self, call: Call, raw: bytes, injected: InjectedMeta, ctx: _Context, legacy: bool
    ) -> None:
        ex, send = call.ex, call.send
        if legacy:  # the answer goes on the session's event stream; the POST is accepted
            stream = self._legacy.get(call.sid)
            await _accepted(send, ex, injected)
            if stream is None:
                ex.record("s2c", "sse", b"", problem="no event stream to answer on", injected=injected)
                return
            event = frame(None, raw)
            await stream.emit(event)
            stream.ex.record("s2c", "sse", event, sse_event_id=None, body=raw, injected=injected)
            return
        accept = ctx.accept.lower()
        if b"text/event-stream" in accept and b"application/json" not in accept and b"*/*" not in accept:
            event = frame(None, raw)
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

    # --- the response side: a JSON body ---------------------------------------------------------

    async def relay_body(
        self,
        response: UpstreamResponse,
        call: Call,
        sent_headers: Headers,
        content_type: bytes,
        rewritten: dict[str, str],
    ) -> bool:
        """A JSON answer, read whole and decided; False: not one to decide (the proxy relays it)."""
        ex, send = call.ex, call.send
        ctx = self._contexts.get(ex.number)
        if ctx is None or "auth_step" in ex.labels or content_type != b"application/json":
            return False
        wire, broke = await response.aread_or_broke()
        ex.raw_response_headers = response.headers
        encoding = header(response.headers, b"content-encoding")
        body, decoded = decoded_body(wire, encoding.decode("latin-1").lower() if encoding else None)
        meta: dict[str, Any] = dict(decoded or {})
        if broke is not None:
            meta["problem"] = broke
        if rewritten:
            meta["rewritten_to"] = rewritten
        jsonrpc = is_json_body(content_type, body)
        verdict: Verdict | None = None
        flow: Flow | None = None
        if broke is None and jsonrpc and not meta.get("problem"):
            flow = self._flow(call, "s2c", body)
            present, verdict = await self._decide(self.addons.response, flow, call.receive)
            if not present:
                ex.record(
                    "s2c",
                    "http-response",
                    body,
                    head=True,
                    problem="the client left while the answer was held",
                )
                return True
        iv = flow.meta.get("intercept") if flow is not None else None
        if verdict is None or flow is None or iv is None:
            await send({"type": "http.response.start", "status": response.status, "headers": sent_headers})
            await send({"type": "http.response.body", "body": wire, "more_body": broke is not None})
            ex.record("s2c", "http-response", body, head=True, jsonrpc=jsonrpc, **meta)
            return True
        await self._decided_body(response, call, sent_headers, body, wire, meta, flow, iv, verdict, ctx)
        return True

    async def _decided_body(
        self,
        response: UpstreamResponse,
        call: Call,
        sent_headers: Headers,
        body: bytes,
        wire: bytes,
        meta: dict[str, Any],
        flow: Flow,
        iv: InterceptMeta,
        verdict: Verdict,
        ctx: _Context,
    ) -> None:
        ex, send = call.ex, call.send
        delivers = self._release([d for d in verdict.sends if d.to == "s2c" or d.of is not flow], keep=flow)
        ex.record("s2c", "http-response", body, head=True, intercept=iv, **meta)
        if verdict.deferred and not delivers:
            released = await self._held(flow, call.receive)
            if released is None:
                return
            delivers = [released]
        injected = _injected(iv)
        if verdict.disconnect is not None:
            await send({"type": ABORT})
            self.proxy.cut_session(call.sid, verdict.disconnect)
            return
        if verdict.http_error is not None:
            await _http_error(send, ex, verdict.http_error, injected)
            return
        drip = verdict.drip or ctx.drip
        if not delivers:  # dropped: the client waits for an answer that never comes
            await _until_disconnect(call.receive)
            ex.record("c2s", "http-request", b"", problem="client gave up on a dropped response")
            return
        if len(delivers) > 1 and b"text/event-stream" in ctx.accept.lower():
            # Copies of one JSON answer: only an event stream can carry more than one.
            heads = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
            await send({"type": "http.response.start", "status": response.status, "headers": heads})
            for i, d in enumerate(delivers):
                if d.delay_s > 0:
                    await asyncio.sleep(d.delay_s)
                event = frame(None, d.raw)
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

    async def relay_events(self, response: UpstreamResponse, call: Call) -> str | None:
        """Relay an event stream, each `message` event decided; for a legacy session's stream, how it ended."""
        ex, sid, send = call.ex, call.sid, call.send
        proxy = self.proxy
        ctx = self._contexts.get(ex.number)
        stream = _Stream(send, ex, ctx.drip if ctx else None, ctx.close_after if ctx else None)
        framer = SSEFramer()
        state = {"finished": False, "disconnected": False}
        watcher = asyncio.ensure_future(watch_disconnect(call.receive, asyncio.current_task(), state))
        try:
            if stream.closing:
                return await self._cut(stream, state, sid)
            async for chunk in response.aiter_raw():
                events = framer.feed(chunk)
                if response.at_end:
                    events += framer.close()
                for event in events:
                    reason = await self._event(event, stream, call, state)
                    if reason is not None:
                        return reason
                    if stream.released:
                        await stream.drain()
                    if stream.closing:
                        return await self._cut(stream, state, sid)
                if response.at_end:
                    break
            for event in framer.close():
                reason = await self._event(event, stream, call, state)
                if reason is not None:
                    return reason
            # The stream's end: what a reorder still holds of it goes out first.
            self.addons.stream_end(self, "s2c")
            await stream.drain()
            state["finished"] = True
            stream.closed = True
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return proxy.stream_end(sid, "the server closed the event stream")
        except STREAM_FAILURES as exc:
            return stream_failed(exc, ex, state, lambda reason: proxy.stream_end(sid, reason))
        finally:
            stream.closed = True
            if self._legacy.get(sid) is stream:
                del self._legacy[sid]
            watcher.cancel()

    async def _cut(self, stream: _Stream, state: dict[str, bool], sid: int) -> str | None:
        """`close_after`: end the response here (the upstream stream is closed with it)."""
        state["finished"] = True
        async with stream.lock:
            stream.closed = True
            await stream.send({"type": "http.response.body", "body": b"", "more_body": False})
        return self.proxy.stream_end(sid, "the event stream was closed by an intercept rule")

    async def _event(
        self, event: SSEEvent, stream: _Stream, call: Call, state: dict[str, bool]
    ) -> str | None:
        """Relay one event, decided when it carries a message; a reason when the stream must end."""
        ex, sid = stream.ex, call.sid
        if event.event == "endpoint":
            sent, rewrite = self.proxy.rewrite_endpoint(event, sid)
            await stream.emit(sent)
            if self.proxy.router.is_legacy_stream(sid):
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
        flow = self._flow(call, "s2c", event.data_bytes)
        _, verdict = await self._decide(self.addons.event, flow, None)
        iv = flow.meta.get("intercept")
        if verdict is None or iv is None:
            await stream.emit(event.raw)
            ex.record("s2c", "sse", event.raw, sse_event_id=event.id, body=event.data_bytes)
            return None
        injected = _injected(iv)
        if verdict.close_after is not None:
            stream.close_after = stream.sent + verdict.close_after
            if verdict.close_after == 0:
                iv["delivered"] = False
        ex.record("s2c", "sse", event.raw, sse_event_id=event.id, body=event.data_bytes, intercept=iv)
        if verdict.disconnect is not None:
            state["finished"] = True
            stream.closed = True
            await stream.send({"type": ABORT})
            self.proxy.cut_session(sid, verdict.disconnect)
            return verdict.disconnect
        if verdict.http_error is not None:
            ex.record("s2c", "sse", b"", problem="http_error cannot answer an event of a stream already sent")
        replies = [d for d in verdict.sends if d.of is flow and d.to == "c2s"]
        for reply in replies:  # a server's request answered by the inspector
            self._spawn(self._answer_server(self._contexts.get(ex.number), ex, reply.raw, injected, sid))
        if stream.closing:
            return None
        delivers = [d for d in verdict.sends if not (d.of is flow and d.to == "c2s")]
        if verdict.deferred:
            self._owners[id(flow)] = (flow, functools.partial(_release_event, stream, event))
            delivers = self._release(delivers, orphans=True)  # (all have an owner: a stream or a request)
        for d in delivers:
            if d.delay_s > 0:
                await asyncio.sleep(d.delay_s)
            if d.raw == event.data_bytes and not d.injected:
                await stream.emit(event.raw, verdict.drip)
            else:
                out = event.raw if d.raw == event.data_bytes else frame(event, d.raw)
                await stream.emit(out, verdict.drip)
                ex.record("s2c", "sse", out, sse_event_id=event.id, body=d.raw, injected=injected)
            if stream.closing:
                break
        return None


# --- answers the inspector gives ----------------------------------------------------------------


async def _http_error(send: AsgiSend, ex: HttpExchange, error: HttpStatus, injected: InjectedMeta) -> None:
    heads = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in error.headers.items()]
    if error.body and not any(k == b"content-type" for k, _ in heads):
        heads.append((b"content-type", b"text/plain; charset=utf-8"))
    heads = [(k, v) for k, v in heads if k != b"content-length"]
    heads.append((b"content-length", str(len(error.body)).encode()))
    await send({"type": "http.response.start", "status": error.status, "headers": heads})
    await send({"type": "http.response.body", "body": error.body, "more_body": False})
    ex.status, ex.response_headers = error.status, _strings(heads)
    jsonrpc = is_json_body(b"application/json", error.body) if error.body else False
    ex.record("s2c", "http-response", error.body, head=True, jsonrpc=jsonrpc, injected=injected)


async def _accepted(send: AsgiSend, ex: HttpExchange, injected: InjectedMeta) -> None:
    """202 with no body: a notification taken (and, here, not forwarded)."""
    heads = [(b"content-length", b"0")]
    await send({"type": "http.response.start", "status": 202, "headers": heads})
    await send({"type": "http.response.body", "body": b"", "more_body": False})
    ex.status, ex.response_headers = 202, _strings(heads)
    ex.record("s2c", "http-response", b"", head=True, jsonrpc=False, injected=injected)


# --- helpers ------------------------------------------------------------------------------------


def _settle(future: asyncio.Future[bool]) -> None:
    if not future.done():
        future.set_result(True)


def _injected(iv: InterceptMeta) -> InjectedMeta:
    """`meta.injected` of a row the inspector sent for the intervention `iv`."""
    return InjectedMeta(n=iv["n"], action=iv["action"], by=iv["by"])


def _release_event(stream: _Stream, event: SSEEvent, deliver: Send) -> None:
    stream.released.append(event.raw if deliver.raw == event.data_bytes else frame(event, deliver.raw))
    if not stream.closed:
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().create_task(stream.drain())


def frame(event: SSEEvent | None, data: bytes) -> bytes:
    """An SSE event carrying `data`, with `event`'s name and id (a `message` event without one)."""
    lines = []
    if event is not None and (event.event != "message" or _EVENT_FIELD.search(event.raw)):
        lines.append(b"event: " + event.event.encode())
    if event is not None and event.id is not None:
        lines.append(b"id: " + event.id.encode())
    lines += [b"data: " + line for line in data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")]
    return b"\n".join(lines) + b"\n\n"


def with_length(headers: Headers, body: bytes) -> Headers:
    """The request's headers, its content-length that of `body` (which may have been altered)."""
    out = [(k, v) for k, v in headers if k.lower() not in (b"content-length", b"transfer-encoding")]
    out.append((b"content-length", str(len(body)).encode()))
    return out


def _strings(heads: Headers) -> list[list[str]]:
    return [[k.decode("latin-1"), v.decode("latin-1")] for k, v in heads]


def _request_row(ex: HttpExchange, body: bytes, headers: Headers, meta: dict[str, Any]) -> None:
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
