"""The HTTP man-in-the-middle: a recording reverse proxy for Streamable HTTP and legacy HTTP+SSE.

A raw ASGI app (no framework routing on the hot path) served by uvicorn;
upstream requests go through `upstream.UpstreamClient` (llhttp on asyncio
protocols, a keep-alive pool per origin; with httpx or aiohttp the proxy
added about 3x or 1.6x as much latency: see that module). Bodies are
streamed both ways: upstream chunks are forwarded as they arrive, SSE
events one by one as soon as each is complete (`protocol.sse.SSEFramer`).
Copies go to the recorder through the session's `Tap`; nothing on the
forwarding path waits for the database.

What is changed on the way, and only this: hop-by-hop headers are dropped
and `Host` names the upstream; the legacy `endpoint` event's URL is
rewritten to point at the proxy when it names the upstream's origin; with
`rewrite_auth_metadata`, the upstream-origin URLs of `WWW-Authenticate`
`resource_metadata` and of OAuth metadata documents are pointed at the
proxy (`protocol/auth_legs.py`; rows keep what the server sent,
`meta.rewritten_to` what the client got). The authorization legs are
labelled with `meta.auth_step` like the mock client's.
An unreachable upstream gives the client a 502 with a clear message.
Host, Origin and the JSON content type of MCP POSTs are checked before this
app by the shared `inspector.guard.ListenerGuard` (the CLI wraps it), which
reads `mcp_paths`: the target's path and the legacy endpoints learned here.

Features are addons (`inspector.flow`, `addons=`): each is told when a recorded
session opens and ends; when one decides (`proxy --faults/--intercept`: the
intercept addon), requests, JSON answers and SSE events become flows and its
verdicts are done in HTTP terms by `http_intervene.Intervener`. Without addons
the forwarding path is the plain one: no flow is built, one None check.
A request on its way is one `Call` (its ASGI callables, route and exchange).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Callable, MutableMapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from inspector.capture import Recorder, Tap
from inspector.capture.redact import Redaction, header_pairs
from inspector.errors import UpstreamError
from inspector.protocol.auth_legs import AuthLegs, rewrite_challenge, rewrite_metadata
from inspector.protocol.client_identity import client_identity, opens_session, peer_key
from inspector.protocol.framing import Capped
from inspector.protocol.http_exchange import (
    CLIENT_GRACE,
    PEER_GAP,
    SessionRouter,
    decoded_body,
    forward_headers,
    header,
    is_event_stream,
    is_json_body,
    legacy_session_param,
    media_type,
    path_forms,
    rewrite_endpoint,
)
from inspector.protocol.sse import SSEEvent, SSEFramer
from inspector.transports.http_call import (
    STREAM_FAILURES,
    Call,
    Headers,
    Receive,
    Scope,
    Send,
    stream_failed,
    watch_disconnect,
)
from inspector.transports.http_record import HttpExchange
from inspector.transports.upstream import UpstreamClient, UpstreamResponse

if TYPE_CHECKING:
    from inspector.flow import Addons
    from inspector.transports.http_intervene import Intervener

__all__ = ["Call", "HttpProxy"]


# Sessions with no traffic and no open stream for this long are ended (`proxy --idle-end`).
DEFAULT_IDLE_AFTER = 300.0
# A session quiet for this long gets the `idle` fact (since when, when it will be ended), so that
# `sessions`, `show` and the API say "idle" rather than "recording" for a client that left.
IDLE_SHOWN = 10.0


class HttpProxy:
    """ASGI app forwarding every path to `target`'s origin and recording each exchange."""

    def __init__(
        self,
        target: str,
        recorder: Recorder,
        create_session: Callable[[str], int],
        *,
        client: UpstreamClient | None = None,
        idle_after: float | None = DEFAULT_IDLE_AFTER,
        peer_gap: float = PEER_GAP,
        rewrite_auth_metadata: bool = False,
        mount: str = "",
        session_facts: dict[str, Any] | None = None,
        idle_shown: float = IDLE_SHOWN,
        addons: Addons | None = None,
    ) -> None:
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"--target must be an http(s) URL, got {target!r}")
        self.target = target
        self.upstream_origin = f"{parts.scheme}://{parts.netloc}"
        self.recorder = recorder
        # The paths clients POST MCP messages to: only these must carry JSON (OAuth form posts
        # to other paths, e.g. /token, are forwarded as they are).
        self.mcp_paths: set[str] = path_forms(parts.path or "/")
        self.auth = AuthLegs(self.mcp_paths)  # the same set: endpoints learned later count too
        self.rewrite_auth_metadata = rewrite_auth_metadata
        # Behind a gateway (`transports/gateway.py`) the upstream's origin is served under this path
        # prefix: URLs the proxy points at itself (auth metadata, legacy endpoints) carry it.
        self.mount = mount
        self.session_facts = session_facts  # facts every recorded session starts with (its route)
        self.record: str | None = None  # a gateway route's rule; None: the recorder's
        self.redaction: Redaction | None = None  # a gateway route's rules; None: the recorder's
        self.taps: dict[int, Tap] = {}  # by the tap's handle (the session row is created off this loop)
        self._exchanges = itertools.count(1)
        self._create = create_session
        self.router = SessionRouter(self._open_session, idle_after, peer_gap=peer_gap)
        self._sweeper: asyncio.TimerHandle | None = None
        self._grouped: dict[int, dict[str, Any]] = {}  # the `grouping` fact last given per session
        self.idle_shown = idle_shown
        self._idle: dict[int, float | None] = {}  # sessions with the `idle` fact: when they end (monotonic)
        # Connect timeout 10 s, no read timeout (SSE streams stay open); redirects are the client's business.
        self.client = client or UpstreamClient(connect_timeout=10.0)
        # Features over the proxy (`inspector.flow`): told of sessions; when one decides (interception),
        # requests, JSON answers and SSE events go through `http_intervene.Intervener` as flows.
        # None (the plain proxy): no flow is built, one None check per request.
        self.addons = addons
        self._intervener: Intervener | None = None
        if addons is not None and addons.deciders:
            from inspector.transports.http_intervene import Intervener

            self._intervener = Intervener(self, addons)
        self._cut_reasons: dict[int, str] = {}  # sessions a verdict cut (`disconnect`): why they end

    def _open_session(self, hint: str) -> int:
        # The session row is inserted on the recorder thread: nothing here waits on the database.
        create = self._create
        tap = self.recorder.open_new(lambda: create(hint), record=self.record, redaction=self.redaction)
        self.taps[tap.session_id] = tap
        if self.session_facts:
            tap.add_facts(self.session_facts)
        if self.addons is not None:
            self.addons.session_start(tap.session_id, tap)
        self._schedule_sweep()
        return tap.session_id

    def cut_session(self, sid: int, reason: str) -> None:
        """A verdict cut a connection of the session: the session ends with that reason once nothing of
        it is under way (its other streams keep being recorded until they close; nothing is lost).
        A session grouped by client identity spans connections: the client may come back on another
        one (2026-07-28: it re-issues the request), so only that connection is cut."""
        if self.router.grouping(sid) is not None:
            return
        self._cut_reasons[sid] = reason
        if self.router.close(sid, reason) is not None:
            self.end_session(sid, reason)

    def end_session(self, sid: int, reason: str, status: int | None = None) -> None:
        if self._cut_reasons:
            reason = self._cut_reasons.pop(sid, reason)  # however it ends, the verdict's cut is why
        if self._intervener is not None:
            self._intervener.session_ended(sid)
        if self.addons is not None and (open_tap := self.taps.get(sid)) is not None:
            self.addons.session_end(sid, open_tap)
        tap = self.taps.pop(sid, None)
        self.router.forget(sid)
        self._grouped.pop(sid, None)
        if tap is not None:
            if self._idle.pop(sid, False) is not False:
                tap.add_facts({"idle": None})
            tap.end(status, reason)

    def connection_closed(self, client: tuple[str, int]) -> None:
        """The server saw a client connection close (a stateless client's session ends with it)."""
        closed = self.router.connection_closed(f"{client[0]}:{client[1]}")
        if closed is not None:
            self.end_session(*closed)

    def _schedule_sweep(self) -> None:
        idle = self.router.idle_after
        if self._sweeper is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._sweeper = loop.call_later(min(idle / 2, 1.0) if idle else 1.0, self._sweep)

    def _sweep(self) -> None:
        """End the sessions idle for `idle_after` seconds; look again while any is open."""
        self._sweeper = None
        idle = self.router.idle_after
        now = time.monotonic()
        for sid in self.router.idle(now):
            gone = self.router.grouping(sid) is not None and not self.router.connections_open(sid)
            why = f"no client connection open for {CLIENT_GRACE:g} s" if gone else None
            if self.router.is_peer_keyed(sid) and not self.router.connections_open(sid):
                why = f"no client connection open for {self.router.peer_gap:g} s"
            self.end_session(sid, why or f"no traffic for {idle or 0:g} s")
        self._mark_idle(now)
        if self.taps:
            self._schedule_sweep()

    def _mark_idle(self, now: float) -> None:
        """Give the `idle` fact to sessions quiet for `idle_shown` seconds (again when their end moved)."""
        wall = time.time()
        for sid, tap in self.taps.items():
            quiet = self.router.quiet(sid, now)
            if quiet is None or quiet[0] < self.idle_shown:
                if self._idle.pop(sid, False) is not False:
                    tap.add_facts({"idle": None})
                continue
            quiet_s, ends = quiet
            if sid in self._idle and self._idle[sid] == ends:
                continue
            self._idle[sid] = ends
            since_ns = int((wall - quiet_s) * 1e9)
            ends_ns = int((wall + ends - now) * 1e9) if ends is not None else None
            tap.add_facts({"idle": {"since_ns": since_ns, "ends_ns": ends_ns}})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] == "websocket":  # not part of MCP: refuse the handshake (403)
            await receive()
            await send({"type": "websocket.close", "code": 1003})
            return
        if scope["type"] != "http":
            return
        await self._exchange(scope, receive, send, scope["headers"])

    async def aclose(self) -> None:
        """Close the upstream connections (at the server's lifespan shutdown)."""
        if self._intervener is not None:
            self._intervener.close()
        await self.client.aclose()

    async def stop(self) -> None:
        """At shutdown: no more idle sweeps, the upstream connections closed."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        await self.aclose()

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _exchange(self, scope: Scope, receive: Receive, send: Send, headers: Headers) -> None:
        method: str = scope["method"]
        path: str = scope["path"]
        query = scope["query_string"].decode("latin-1")
        raw_path = scope.get("raw_path") or path.encode()
        url = self.upstream_origin + raw_path.decode("latin-1") + (f"?{query}" if query else "")
        mcp_sid = header(headers, b"mcp-session-id")
        client_addr = scope.get("client") or ("?", 0)
        identity = None
        peer: str | None = None
        opening = False
        if mcp_sid is None and legacy_session_param(query) is None:
            authorization = header(headers, b"authorization")
            if method == "POST" or header(headers, b"mcp-protocol-version") is not None:
                # A Streamable HTTP client's request (not a legacy client's GET of its stream).
                peer = peer_key(str(client_addr[0]), header(headers, b"user-agent"), authorization)
            if method == "POST":
                # No session id: the client identity its body declares groups its requests (2026-07-28).
                first = await receive()
                receive = _replayed(first, receive)
                if not first.get("more_body"):
                    identity = client_identity(first.get("body", b""), authorization)
                    opening = opens_session(first.get("body", b""))
        sid, key = self.router.route(
            mcp_sid.decode("latin-1") if mcp_sid else None,
            query,
            f"{client_addr[0]}:{client_addr[1]}",
            identity,
            peer=peer,
            opening=opening,
        )
        if (grouping := self.router.grouping(sid)) is not None and grouping != self._grouped.get(sid):
            self._grouped[sid] = grouping
            self.taps[sid].add_facts({"grouping": grouping})
        ex = HttpExchange(self.taps[sid], next(self._exchanges), method, path, query)
        proxy_origin = _proxy_origin(scope, headers) + self.mount if self.rewrite_auth_metadata else None
        self.router.begin(sid, time.monotonic())
        if self._idle.pop(sid, False) is not False:  # the client is back
            self.taps[sid].add_facts({"idle": None})
        try:
            await self._forward(Call(scope, receive, send, headers, method, url, ex, sid, key, proxy_origin))
        finally:
            if (reason := self.router.finish(sid, time.monotonic())) is not None:
                self.end_session(sid, reason)

    async def _forward(self, call: Call) -> None:
        if self._intervener is not None:  # an addon decides: the request is read whole first
            await self._intervener.forward(call)
            return
        receive, headers, ex = call.receive, call.headers, call.ex
        first = await receive()
        body = first.get("body", b"")
        # The recorded copy of a body streamed through: at most the record's cap (the rest is
        # forwarded, counted and hashed), so a body of any size costs the proxy bounded memory.
        copy: Capped | None = None
        content: bytes | AsyncIterator[bytes] = body
        if first.get("more_body"):
            copy = Capped(self.recorder.max_record_bytes)
            copy.add(body)
            content = _request_body(body, receive, copy)
        if (step := self.auth.step(call.method, call.scope["path"], body)) is not None:
            ex.labels["auth_step"] = step
        late: Callable[[], None] | None = None
        if copy is None:
            # Record before forwarding, so an answer arriving on another stream is never recorded first.
            if len(body) > self.recorder.max_record_bytes:  # arrived in one piece, but still past the cap
                kept, cut = Capped(self.recorder.max_record_bytes).done(body)
                ex.request(kept, headers, jsonrpc=step is None, cut=cut)
            else:
                ex.request(body, headers, jsonrpc=step is None)
        else:
            streamed = copy

            def late() -> None:
                kept, cut = streamed.done()
                ex.request(kept, headers, jsonrpc=step is None, cut=cut)

        await self.relay(call, forward_headers(headers), content, late)

    async def relay(
        self,
        call: Call,
        sent_headers: Headers,
        content: bytes | AsyncIterator[bytes],
        late_request: Callable[[], None] | None = None,
    ) -> None:
        """Send one request upstream and relay its answer (`late_request` records a streamed body)."""
        ex = call.ex
        sent_headers = self._origin_upstream(call, sent_headers)
        try:
            response = await self.client.request(call.method, call.url, sent_headers, content)
        except UpstreamError as exc:
            if late_request is not None:
                late_request()
            message = (
                f"mcp-inspect proxy: upstream {self.upstream_origin} failed: {type(exc).__name__}: {exc}"
            )
            await _plain(call.send, 502, message + "\n")
            ex.record("s2c", "http-response", b"", http_status=502, problem=message)
            return
        if late_request is not None:
            late_request()
        try:
            ended = await self._respond(response, call)
            if ended is not None:  # a legacy session's event stream: the session ends with it
                self.router.close(call.sid, ended)
        except OSError as exc:  # the client went away while we were sending
            ex.record("c2s", "http-request", b"", problem=f"client disconnected: {exc}")
        finally:
            await response.aclose()
        if call.method == "DELETE" and response.status < 300:
            self.end_session(call.sid, f"DELETE answered {response.status}")

    def _origin_upstream(self, call: Call, headers: Headers) -> Headers:
        """An Origin naming the proxy itself (its own origin, which its guard admits) names the
        upstream's origin instead, as the Host header does: the upstream's own DNS-rebinding check
        then sees a same-origin request, as it would without the proxy. Any other Origin (one
        allowed with --allow-origin) goes on as sent."""
        own = _proxy_origin(call.scope, call.headers).lower().encode("latin-1")
        upstream = self.upstream_origin.encode("latin-1")
        return [
            (name, upstream if name.lower() == b"origin" and value.lower() == own else value)
            for name, value in headers
        ]

    async def _respond(self, response: UpstreamResponse, call: Call) -> str | None:
        """Forward the response; for the event stream of a legacy session, how it ended."""
        ex, sid, send = call.ex, call.sid, call.send
        raw_headers = response.headers
        assigned = header(raw_headers, b"mcp-session-id")
        if assigned:
            self.router.bind_mcp_session(call.key, assigned.decode("latin-1"))
            if self._grouped.pop(sid, None) is not None:  # grouped by its session id now
                self.taps[sid].add_facts({"grouping": None})
        sent_headers = forward_headers(raw_headers)
        rewritten: dict[str, str] = {}
        if response.status in (401, 403):
            if (refused := self.auth.refused(call.scope["path"], response.status)) is not None:
                ex.labels["auth_step"] = refused
            if call.origin is not None:
                sent_headers = self._rewrite_challenges(sent_headers, call.origin, rewritten)
        ex.status = response.status  # for the head row, recorded below (after forwarding: not on the way)
        content_type = media_type(raw_headers)
        if ex.labels.get("auth_step") in ("resource-metadata", "as-metadata") and not is_event_stream(
            content_type
        ):
            await self._respond_metadata(response, send, ex, sent_headers, call.origin, rewritten)
            return None
        intervener = self._intervener
        if is_event_stream(content_type):
            await send({"type": "http.response.start", "status": response.status, "headers": sent_headers})
            ex.raw_response_headers = raw_headers
            ex.record("s2c", "http-response", b"", head=True)
            if intervener is not None:
                return await intervener.relay_events(response, call)
            return await self._relay_events(response, call)
        if intervener is not None and await intervener.relay_body(
            response, call, sent_headers, content_type, rewritten
        ):
            return None
        await self._relay_body(response, send, ex, sent_headers, content_type, rewritten)
        return None

    async def _relay_body(
        self,
        response: UpstreamResponse,
        send: Send,
        ex: HttpExchange,
        sent_headers: Headers,
        content_type: bytes,
        rewritten: dict[str, str],
    ) -> None:
        """A response that is not an event stream: its head, then its body streamed as it arrives."""
        await send({"type": "http.response.start", "status": response.status, "headers": sent_headers})
        raw_headers = response.headers
        # The end of the body goes out with its last bytes when they are known to be the last.
        copy = Capped(self.recorder.max_record_bytes)  # what is recorded (the whole body is forwarded)
        broke: str | None = None
        ended = False
        try:
            async for chunk in response.aiter_raw():
                copy.add(chunk)
                ended = response.at_end
                await send({"type": "http.response.body", "body": chunk, "more_body": not ended})
        except UpstreamError as exc:  # the client sees the response cut short: no end is sent
            broke = f"upstream response broke: {exc}"
        if not ended and broke is None:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        ex.raw_response_headers = raw_headers
        encoding = header(raw_headers, b"content-encoding")
        wire, cut = copy.done()
        meta: dict[str, Any] | None
        if cut is None:
            body, meta = decoded_body(wire, encoding.decode("latin-1").lower() if encoding else None)
        else:  # a prefix of a compressed body is recorded as sent (it does not decompress whole)
            body, meta = wire, {"truncated": cut}
            if encoding:
                meta["content_encoding"] = encoding.decode("latin-1").lower()
        if broke is not None:
            meta = {**(meta or {}), "problem": broke}
        if rewritten:
            meta = {**(meta or {}), "rewritten_to": rewritten}
        jsonrpc = is_json_body(content_type, body) and "auth_step" not in ex.labels
        ex.record("s2c", "http-response", body, head=True, jsonrpc=jsonrpc, **(meta or {}))

    def _rewrite_challenges(
        self, headers: list[tuple[bytes, bytes]], proxy_origin: str, rewritten: dict[str, str]
    ) -> list[tuple[bytes, bytes]]:
        """`WWW-Authenticate` challenges with their upstream `resource_metadata` URL moved to the proxy."""
        out = []
        for name, value in headers:
            if name.lower() == b"www-authenticate":
                new = rewrite_challenge(value.decode("latin-1"), self.upstream_origin, proxy_origin)
                if new is not None:
                    rewritten["www-authenticate"] = new
                    value = new.encode("latin-1")
            out.append((name, value))
        return out

    async def _respond_metadata(
        self,
        response: UpstreamResponse,
        send: Send,
        ex: HttpExchange,
        sent_headers: Headers,
        proxy_origin: str | None,
        rewritten: dict[str, str],
    ) -> None:
        """A metadata document: read whole (small), learned from, rewritten when asked, then sent."""
        wire, broke = await response.aread_or_broke()
        encoding = header(response.headers, b"content-encoding")
        body, meta = decoded_body(wire, encoding.decode("latin-1").lower() if encoding else None)
        ok = broke is None and 200 <= response.status < 300 and not (meta or {}).get("problem")
        if ok and ex.labels.get("auth_step") == "as-metadata":
            self.auth.learn(body)
        sent = wire
        if ok and proxy_origin is not None:
            new = rewrite_metadata(body, self.upstream_origin, proxy_origin)
            if new is not None:
                sent = new
                rewritten["body"] = new.decode()
                sent_headers = [
                    (n, v)
                    for n, v in sent_headers
                    if n.lower() not in (b"content-length", b"content-encoding")
                ] + [(b"content-length", str(len(new)).encode())]
        await send({"type": "http.response.start", "status": response.status, "headers": sent_headers})
        # A broken upstream answer is cut short for the client too (no end is sent).
        await send({"type": "http.response.body", "body": sent, "more_body": broke is not None})
        ex.response_headers = header_pairs(response.headers)
        extra: dict[str, Any] = dict(meta or {})
        if broke is not None:
            extra["problem"] = broke
        if rewritten:
            extra["rewritten_to"] = rewritten
        ex.record("s2c", "http-response", body, head=True, jsonrpc=False, **extra)

    async def _relay_events(self, response: UpstreamResponse, call: Call) -> str | None:
        send, ex, sid = call.send, call.ex, call.sid
        framer = SSEFramer()
        state = {"finished": False, "disconnected": False}
        # A plain asyncio task watches for the client leaving (uvicorn drops sends to a gone
        # client silently, so a long stream would otherwise be read forever); an anyio task
        # group cost about 180 us per response here.
        watcher = asyncio.ensure_future(watch_disconnect(call.receive, asyncio.current_task(), state))
        try:
            async for chunk in response.aiter_raw():
                events = framer.feed(chunk)
                if response.at_end:  # the stream's last bytes: its end goes out with its last event
                    events += framer.close()
                    if events:
                        last = events.pop()
                        for event in events:
                            await self._send_event(event, send, ex, sid)
                        state["finished"] = True
                        await self._send_event(last, send, ex, sid, more_body=False)
                        return self.stream_end(sid, "the server closed the event stream")
                for event in events:
                    await self._send_event(event, send, ex, sid)
            for event in framer.close():
                await self._send_event(event, send, ex, sid)
            state["finished"] = True  # uvicorn reports a disconnect once the response is complete
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return self.stream_end(sid, "the server closed the event stream")
        except STREAM_FAILURES as exc:
            return stream_failed(exc, ex, state, lambda reason: self.stream_end(sid, reason))
        finally:
            watcher.cancel()

    def stream_end(self, sid: int, reason: str) -> str | None:
        return reason if self.router.is_legacy_stream(sid) else None

    async def _send_event(
        self, event: SSEEvent, send: Send, ex: HttpExchange, sid: int, more_body: bool = True
    ) -> None:
        sent = event.raw
        meta: dict[str, Any] = {}
        if event.event == "endpoint":
            sent, meta = self.rewrite_endpoint(event, sid)
        await send({"type": "http.response.body", "body": sent, "more_body": more_body})
        if event.is_comment_only:
            return
        if event.event != "message":
            meta["event"] = event.event
        if not event.complete:
            meta["problem"] = "event cut off by the end of the stream"
        # The row keeps the event's exact bytes (as the server sent them); its data is classified.
        ex.record(
            "s2c",
            "sse",
            event.raw,
            jsonrpc=event.event == "message" and bool(event.data_bytes),
            sse_event_id=event.id,
            body=event.data_bytes,
            **meta,
        )

    def rewrite_endpoint(self, event: SSEEvent, sid: int) -> tuple[bytes, dict[str, Any]]:
        """Point the legacy `endpoint` event at the proxy and learn the session id it carries."""
        rewrite = rewrite_endpoint(event.raw, event.data, self.upstream_origin, self.mount)
        if rewrite.legacy_id is not None:
            self.router.bind_legacy(sid, rewrite.legacy_id)
        self.mcp_paths |= rewrite.mcp_paths
        return rewrite.raw, rewrite.meta


def _proxy_origin(scope: Scope, headers: Headers) -> str:
    """The origin the client used to reach the proxy (its Host header, checked by the guard)."""
    host = header(headers, b"host")
    if host:
        authority = host.decode("latin-1")
    else:
        server = scope.get("server") or ("127.0.0.1", 0)
        authority = f"{server[0]}:{server[1]}"
    return f"{scope.get('scheme', 'http')}://{authority}"


async def _request_body(first: bytes, receive: Receive, copy: Capped) -> AsyncIterator[bytes]:
    yield first
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        chunk = message.get("body", b"")
        copy.add(chunk)
        yield chunk
        if not message.get("more_body"):
            return


def _replayed(first: MutableMapping[str, Any], receive: Receive) -> Receive:
    """`receive` with `first` (already read) given back first."""
    given = False

    async def again() -> MutableMapping[str, Any]:
        nonlocal given
        if not given:
            given = True
            return first
        return await receive()

    return again


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})
