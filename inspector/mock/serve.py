"""Mock-server transports: NDJSON on our own stdin/stdout, and Streamable HTTP.

Both record the session (kind `mock-server`) through a tap, byte for byte
on stdio and as HTTP exchanges over HTTP, and hand client messages to a
`MockSession`. Over HTTP each request's reaction is streamed on the SSE
response of its POST; the client's answers to our requests arrive as POSTs
of their own; `Mcp-Session-Id` is assigned on `initialize` (requests of the
stateless 2026-07-28 revision carry none and share one mock session).
What belongs to no request (reactions to notifications, timers, requests
pushed from the UI) goes to the session's `background` out: stdout, or over
HTTP a buffer that the session's GET event stream drains.

A recorded end (`end` action: the recorded server exited or its connection
broke) is played as the client would have seen it: over stdio stdout is
closed and the process exits with the recorded status; over HTTP the event
stream it happens on is closed without an answer and the MCP session is
gone (its id then gets 404, as for a terminated session); when only that
exchange broke in the recording (an upstream failure), only its stream closes.
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
import orjson
from anyio.from_thread import BlockingPortal
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from inspector.capture import Tap
from inspector.mock.script import PLAYED_END, RecordedAnswer
from inspector.mock.session import MockSession
from inspector.protocol import Kind, LineFramer, classify
from inspector.protocol.mcp_tables import CLIENT_CAPABILITIES_META_KEY
from inspector.protocol.versions import MODERN_PROTOCOL_VERSIONS
from inspector.transports.http_record import HttpExchange

if TYPE_CHECKING:  # loaded only with --faults (`mock/intercept.py`)
    from inspector.mock.intercept import HttpIntercept, MockIntercept

__all__ = ["mock_http_app", "serve_stdio"]

_PARSE_ERROR = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
_PV_KEY = "io.modelcontextprotocol/protocolVersion"
# 2026-07-28 over HTTP: the status of an error answer to a per-request-versioned request (SEP-2575):
# method not found 404; header mismatch, missing client capability, unsupported version 400.
_ERROR_STATUS = {-32601: 404, -32020: 400, -32021: 400, -32022: 400}
HEADER_MISMATCH = -32020


def _error_code(message: dict[str, Any]) -> int:
    error = message.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, int) else 0


def _per_request(message: dict[str, Any]) -> bool:
    """A request that names its protocol version in its own _meta (the 2026-07-28 wire)."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and _PV_KEY in meta


def _stateless_refusal(request: Request, message: dict[str, Any]) -> dict[str, Any] | None:
    """A 2026-07-28 request (its MCP-Protocol-Version header names that revision, no session) that
    the revision refuses with 400: _meta without the protocol version or the client capabilities
    (-32602), or a _meta version that is not the header's (HeaderMismatch, -32020)."""
    version = request.headers.get("mcp-protocol-version")
    if version not in MODERN_PROTOCOL_VERSIONS or request.headers.get("mcp-session-id"):
        return None
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict) or _PV_KEY not in meta or CLIENT_CAPABILITIES_META_KEY not in meta:
        missing = (
            "_meta"
            if not isinstance(meta, dict)
            else (
                f"_meta[{_PV_KEY!r}]" if _PV_KEY not in meta else f"_meta[{CLIENT_CAPABILITIES_META_KEY!r}]"
            )
        )
        error = {"code": -32602, "message": f"Invalid params: a {version} request needs {missing}"}
    elif meta[_PV_KEY] != version:
        error = {
            "code": HEADER_MISMATCH,
            "message": f"MCP-Protocol-Version header {version} does not match _meta {meta[_PV_KEY]!r}",
        }
    else:
        return None
    return {"jsonrpc": "2.0", "id": message.get("id"), "error": error}


def _messages(raw: bytes) -> tuple[list[dict[str, Any]], bool]:
    """The JSON-RPC objects in a body (a batch gives several), and whether it parsed."""
    msg = classify(raw)
    if msg.kind is Kind.INVALID and msg.payload is None:
        return [], False
    items = msg.items if msg.kind is Kind.BATCH else [msg]
    return [i.payload for i in items if isinstance(i.payload, dict)], True


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


async def serve_stdio(
    session: MockSession,
    tap: Tap,
    *,
    stdin_fd: int = 0,
    stdout_fd: int = 1,
    intercept: MockIntercept | None = None,
) -> dict[str, Any] | None:
    """Serve one client on stdin/stdout until its EOF, or until a recorded end is played: then
    stdout is closed at once (the client sees the server go) and the end is returned
    ({"exit_status", "reason", ...}: the caller ends the session and exits with that status).

    With `intercept` (`--faults`) every line both ways goes through it (`mock/intercept.py`); a
    disconnect by a rule ends like a recorded end, returning {"disconnected": reason}."""
    lock = anyio.Lock()
    ended: list[dict[str, Any]] = []

    async def write(data: bytes) -> None:
        async with lock:
            if ended:  # the recorded server is gone: nothing more reaches the client
                return
            await anyio.to_thread.run_sync(_write_all, stdout_fd, data)

    async def out(message: dict[str, Any] | bytes) -> None:
        data = _line(message)
        if intercept is not None:
            await intercept.outbound(data)
            return
        async with lock:
            if ended:
                return
            tap.submit("s2c", "stdout", data)
            await anyio.to_thread.run_sync(_write_all, stdout_fd, data)

    session.background = out
    framer = LineFramer()
    async with anyio.create_task_group() as tg:

        async def end(payload: dict[str, Any], _out: Any) -> None:
            async with lock:  # after any write in progress
                ended.append(payload)
                # Close our end of the client's pipe but keep fd 1 valid for whatever writes later.
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, stdout_fd)
                os.close(devnull)
            tap.end_stream("s2c", "stdout")
            tg.cancel_scope.cancel()  # stop reading the client: the recorded server read no more

        def take(body: bytes) -> None:
            if not body.strip():
                return
            messages, parsed = _messages(body)
            if not parsed:
                tg.start_soon(out, _PARSE_ERROR)
            for message in messages:
                tg.start_soon(session.handle, message, out)

        session.on_end = end
        ticking = anyio.CancelScope()
        if intercept is not None:
            intercept.deliver = {"c2s": _async(lambda raw: take(raw.rstrip(b"\r\n"))), "s2c": write}
            intercept.disconnect = lambda reason: end({"disconnected": reason}, None)
            tg.start_soon(_tick, intercept, ticking)
        async with _client_input(stdin_fd) as chunks:
            while chunk := await chunks.receive():
                if intercept is not None:
                    for line in framer.feed(chunk):
                        await intercept.inbound(line.raw)
                    continue
                tap.submit("c2s", "stdin", chunk)
                for line in framer.feed(chunk):
                    take(line.body)
        if intercept is not None:
            for line in framer.close():  # a last line without its newline
                await intercept.inbound(line.raw)
            await intercept.flush("c2s")
        ticking.cancel()
        session.close()
    if intercept is None:
        tap.end_stream("c2s", "stdin")
    return ended[0] if ended else None


@contextlib.asynccontextmanager
async def _client_input(fd: int) -> AsyncIterator[MemoryObjectReceiveStream[bytes]]:
    """The client's bytes on `fd` as they come (b"" at its end), read by a daemon thread of ours.

    Not an anyio worker thread: one blocked reading a stdin its client keeps open was joined at the
    interpreter's exit, so SIGINT/SIGTERM ended the session but never the process (issue #34). The
    thread hands each chunk over through a portal and stops once nobody receives (the stream closed
    or the event loop gone); one left blocked in its read dies with the process."""
    send, receive = anyio.create_memory_object_stream[bytes](0)
    async with BlockingPortal() as portal, receive:
        threading.Thread(target=_pump, args=(fd, portal, send), name="mcp-inspect-stdin", daemon=True).start()
        yield receive


def _pump(fd: int, portal: BlockingPortal, send: MemoryObjectSendStream[bytes]) -> None:
    """Read `fd` until its end, each chunk sent to the event loop (`_client_input`)."""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:  # a closed or unreadable stdin: its end
            chunk = b""
        try:
            portal.call(send.send, chunk)
        except Exception:  # noqa: BLE001  # nobody reads any more (stream closed, portal or loop stopped)
            return
        if not chunk:
            return


def _async(fn: Callable[[bytes], None]) -> Callable[[bytes], Awaitable[None]]:
    async def call(data: bytes) -> None:
        fn(data)

    return call


async def _tick(intercept: MockIntercept, scope: anyio.CancelScope) -> None:
    from inspector.mock.intercept import TICK_S

    with scope:
        while True:
            await anyio.sleep(TICK_S)
            await intercept.tick()


def _line(message: dict[str, Any] | bytes) -> bytes:
    if isinstance(message, bytes):
        return message if message.endswith(b"\n") else message + b"\n"
    return orjson.dumps(message) + b"\n"


class _End:
    """Travels an HTTP session's event streams in place of a message: the recorded end is played here."""

    __slots__ = ("payload",)

    def __init__(self, payload: dict[str, Any]) -> None:
        self.payload = payload


class _HttpSessions:
    def __init__(self, make_session: Callable[[], tuple[MockSession, Tap]]) -> None:
        self._make = make_session
        self.by_id: dict[str, tuple[MockSession, Tap]] = {}
        self.stateless: tuple[MockSession, Tap] | None = None
        self.numbers = iter(range(1, 1 << 62))
        self.streams: dict[int, tuple[MemoryObjectSendStream[Any], MemoryObjectReceiveStream[Any]]] = {}

    def make_session(self) -> tuple[MockSession, Tap]:
        """A new session whose background messages wait in a buffer for its GET stream."""
        session, tap = self._make()
        send, receive = anyio.create_memory_object_stream[dict[str, Any] | bytes | None](10_000)
        self.streams[id(session)] = (send, receive)

        async def background(message: dict[str, Any] | bytes) -> None:
            await send.send(message)

        async def end(payload: dict[str, Any], out: Any) -> None:
            if out is background or out is _discard:  # no request's stream to close
                if payload.get("scope") != "exchange":
                    self.end(session, tap, payload)
            else:
                await out(_End(payload))  # the stream of the request it ends closes there

        session.background = background
        session.on_end = end
        return session, tap

    def end(self, session: MockSession, tap: Tap, payload: dict[str, Any]) -> None:
        """The recorded server is gone: forget the session (its id now gets 404) and end its recording."""
        for key, found in list(self.by_id.items()):
            if found[0] is session:
                del self.by_id[key]
        if self.stateless is not None and self.stateless[0] is session:
            self.stateless = None
        streams = self.streams.pop(id(session), None)
        if streams is not None:
            streams[0].send_nowait(None)  # its GET stream ends too
        session.close()
        status = payload.get("exit_status")
        tap.end(status if isinstance(status, int) else None, f"{PLAYED_END}: {payload.get('reason')}")

    def find(
        self, session_id: str | None, messages: list[dict[str, Any]]
    ) -> tuple[str | None, tuple[MockSession, Tap]]:
        if session_id and session_id in self.by_id:
            return session_id, self.by_id[session_id]
        # An `initialize` opens a session, unless it is a 2026-07-28 (per-request) one: that revision
        # removed it (answered -32601) and has no sessions.
        if any(m.get("method") == "initialize" and not _per_request(m) for m in messages):
            new_id = uuid.uuid4().hex
            self.by_id[new_id] = self.make_session()
            return new_id, self.by_id[new_id]
        if self.stateless is None:
            self.stateless = self.make_session()
        return None, self.stateless


Gate = Callable[[Request, bytes, list[dict[str, Any]]], Awaitable[Response | None]]


def mock_http_app(
    make_session: Callable[[], tuple[MockSession, Tap]],
    path: str = "/mcp",
    *,
    gate: Gate | None = None,
    intercept: HttpIntercept | None = None,
) -> Starlette:
    """A Streamable HTTP endpoint at `path`; each MCP session gets its own `MockSession` and tap.

    `gate` (`serve --auth`: the bearer check) sees each request first; a response from it is
    the answer and the request goes no further. `intercept` (`--faults`) decides on each POST
    body before the mock sees it and on each event before the client does (`mock/intercept.py`)."""
    sessions = _HttpSessions(make_session)

    async def post(request: Request) -> Response:
        raw = await request.body()
        messages, parsed = _messages(raw)
        if gate is not None and (refused := await gate(request, raw, messages)) is not None:
            return refused
        sid, (session, tap) = sessions.find(request.headers.get("mcp-session-id"), messages)
        ex = HttpExchange(tap, next(sessions.numbers), "POST", request.url.path, request.url.query)
        headers = {"mcp-session-id": sid} if sid else {}
        if intercept is not None and parsed:
            taken = await _intercept_post(intercept, ex, raw, list(request.headers.raw), headers, messages)
            if isinstance(taken, Response):
                return taken
            messages, parsed = _messages(taken)
        else:
            ex.request(raw, list(request.headers.raw))
        if not parsed:
            body = orjson.dumps(_PARSE_ERROR)
            _head(ex, 400, "application/json", headers)
            ex.record("s2c", "http-response", body, head=True)
            return Response(body, 400, headers, media_type="application/json")
        requests = [m for m in messages if "method" in m and "id" in m]
        if not requests:
            answers = [m for m in messages if "method" not in m]
            for m in answers:
                await session.handle(m, _discard)
            _head(ex, 202, None, headers)
            ex.record("s2c", "http-response", b"", head=True)
            # Reactions to notifications (e.g. timers after `initialized`) belong to no request.
            later = [m for m in messages if "method" in m]
            task = BackgroundTask(_react_later, session, later) if later else None
            return Response(status_code=202, headers=headers, background=task)
        if len(messages) == 1 and (refusal := _stateless_refusal(request, messages[0])) is not None:
            body = orjson.dumps(refusal)
            _head(ex, 400, "application/json", headers)
            ex.record("s2c", "http-response", body, head=True)
            return Response(body, 400, headers, media_type="application/json")
        per_request = len(messages) == 1 and _per_request(messages[0])
        send, receive = anyio.create_memory_object_stream[dict[str, Any] | bytes](100)
        # One request whose recorded answer was one HTTP body: that body is served as recorded
        # (`_Answer`); otherwise the answer is an event stream, its head recorded before its events.
        wire_ok = intercept is None and len(messages) == 1
        headed = False

        def head() -> None:
            nonlocal headed
            if not headed:
                headed = True
                _head(ex, 200, "text/event-stream", headers)
                ex.record("s2c", "http-response", b"", head=True)

        if not wire_ok:
            head()

        async def run() -> None:
            async with send, anyio.create_task_group() as tg:
                for m in messages:
                    tg.start_soon(session.handle, m, send.send)

        async def events() -> AsyncIterator[bytes | RecordedAnswer]:
            answer_dropped = False
            served = False  # the recorded wire went out: nothing more belongs to this response
            async with anyio.create_task_group() as tg:
                tg.start_soon(run)
                async with receive:
                    async for message in receive:
                        if (
                            per_request
                            and wire_ok
                            and not headed
                            and not isinstance(message, RecordedAnswer)
                            and isinstance(message, dict)
                            and "error" in message
                            and (status := _ERROR_STATUS.get(_error_code(message)))
                        ):  # 2026-07-28: this error is the answer's HTTP status too
                            body = orjson.dumps(message)
                            message = RecordedAnswer(
                                message, status, [("content-type", "application/json")], body
                            )
                        if isinstance(message, RecordedAnswer) and wire_ok and not headed and not served:
                            served = True
                            _record_wire(ex, message, headers)
                            yield message
                            continue
                        if isinstance(message, _End):
                            if not served:
                                head()
                            why = f"{PLAYED_END}: {message.payload.get('reason')}"
                            ex.record("s2c", "sse", b"", jsonrpc=False, problem=why)
                            if message.payload.get("scope") != "exchange":  # the server went away
                                sessions.end(session, tap, message.payload)
                            tg.cancel_scope.cancel()
                            return
                        if served:
                            continue
                        if intercept is None:
                            head()
                            yield _sse(ex, message)
                            continue
                        sent = await _intercept_event(intercept, ex, message, session)
                        for event in sent:
                            yield event
                        answer_dropped |= not sent and isinstance(message, dict) and "method" not in message
            if not served:
                head()
            if answer_dropped:  # as with a server that never answered: silent until the client gives up
                await anyio.sleep_forever()

        return _Answer(events(), media_type="text/event-stream", headers=headers)

    async def get(request: Request) -> Response:
        if gate is not None and (refused := await gate(request, b"", [])) is not None:
            return refused
        sid = request.headers.get("mcp-session-id")
        found = sessions.by_id.get(sid) if sid else None
        if found is None:
            return Response(
                "this mock server has no standalone event stream without a session\n",
                405,
                {"allow": "POST, DELETE"},
            )
        session, tap = found
        ex = HttpExchange(tap, next(sessions.numbers), "GET", request.url.path, request.url.query)
        ex.request(b"", list(request.headers.raw))
        _head(ex, 200, "text/event-stream", {"mcp-session-id": sid or ""})
        ex.record("s2c", "http-response", b"", head=True)
        receive = sessions.streams[id(session)][1].clone()

        async def events() -> AsyncIterator[bytes]:
            async with receive:
                async for message in receive:
                    if message is None or isinstance(message, _End):  # deleted, or the recorded end
                        return
                    if intercept is None:
                        yield _sse(ex, message)
                        continue
                    for event in await _intercept_event(intercept, ex, message, session):
                        yield event

        return StreamingResponse(
            events(), media_type="text/event-stream", headers={"mcp-session-id": sid or ""}
        )

    async def delete(request: Request) -> Response:
        if gate is not None and (refused := await gate(request, b"", [])) is not None:
            return refused
        sid = request.headers.get("mcp-session-id")
        found = sessions.by_id.pop(sid, None) if sid else None
        if found is None:
            return Response(status_code=404)
        found[0].close()
        sessions.streams.pop(id(found[0]))[0].send_nowait(None)
        found[1].end(None, "DELETE")
        return Response(status_code=200)

    return Starlette(
        routes=[
            Route(path, post, methods=["POST"]),
            Route(path, get, methods=["GET"]),
            Route(path, delete, methods=["DELETE"]),
        ]
    )


class _Answer(StreamingResponse):
    """An event stream, unless the first thing its events give is a `RecordedAnswer`: then the
    recorded status, headers and body bytes are the response (the rest is played, not sent).
    Its events are kept as they are typed (Starlette's `body_iterator` holds only bytes or text)."""

    def __init__(
        self, events: AsyncIterator[bytes | RecordedAnswer], *, media_type: str, headers: dict[str, str]
    ) -> None:
        super().__init__(_no_events(), media_type=media_type, headers=headers)
        self.events = events

    async def stream_response(self, send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        events = self.events.__aiter__()
        first = await anext(events, None)
        if isinstance(first, RecordedAnswer):
            names = {name.lower() for name, _ in first.headers}
            head = [(n.encode("latin-1"), v.encode("latin-1")) for n, v in first.headers]
            head += [
                (n.encode("latin-1"), v.encode("latin-1"))
                for n, v in self.headers.items()
                if n.lower() not in names and n.lower() not in ("content-type", "content-length")
            ]
            head.append((b"content-length", str(len(first.raw)).encode()))
            await send({"type": "http.response.start", "status": first.status, "headers": head})
            await send({"type": "http.response.body", "body": first.raw, "more_body": False})
            async for _ in events:  # what the reaction does after its answer (a recorded end)
                pass
            return
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        if first is not None:
            await send({"type": "http.response.body", "body": first, "more_body": True})
            async for chunk in events:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def _record_wire(ex: HttpExchange, answer: RecordedAnswer, headers: dict[str, str]) -> None:
    ex.status = answer.status
    ex.response_headers = [[n, v] for n, v in answer.headers]
    ex.response_headers += [[k, v] for k, v in headers.items()]
    ex.record("s2c", "http-response", answer.raw, head=True)


async def _discard(_message: dict[str, Any] | bytes) -> None:
    return None


async def _react_later(session: MockSession, messages: list[dict[str, Any]]) -> None:
    for m in messages:
        await session.handle(m, session.background or _discard)


def _sse(ex: HttpExchange, message: dict[str, Any] | bytes) -> bytes:
    # Malformed bytes on purpose still travel as one SSE event (a newline would end the data field).
    data = message.replace(b"\n", b" ") if isinstance(message, bytes) else orjson.dumps(message)
    event = b"event: message\ndata: " + data + b"\n\n"
    ex.record("s2c", "sse", event, body=data)  # the event's exact bytes, its data classified
    return event


async def _intercept_post(
    hook: HttpIntercept,
    ex: HttpExchange,
    raw: bytes,
    request_headers: list[tuple[bytes, bytes]],
    headers: dict[str, str],
    messages: list[dict[str, Any]],
) -> bytes | Response:
    """Record a POST body and apply the interceptor's decision: the body the mock handles, or the
    response the client gets instead (the inspector's answer, an HTTP error, nothing at all)."""
    flow, verdict = await hook.decide("c2s", raw)
    iv = flow.meta.get("intercept")
    if verdict is None or iv is None:
        ex.request(raw, request_headers)
        return raw
    ex.labels = {"intercept": iv}
    ex.request(raw, request_headers)
    ex.labels = {}
    injected = {"n": iv["n"], "action": iv["action"], "by": iv["by"]}
    body: bytes | None = None
    for send in verdict.sends:
        if send.to == "c2s":
            if send.injected is not None:
                ex.record("c2s", "http-request", send.raw, injected=injected)
            if send.delay_s > 0:
                await anyio.sleep(send.delay_s)
            body = send.raw if body is None else body  # one POST is one body: a duplicate is recorded only
        else:  # the inspector's answer
            _head(ex, 200, "application/json", headers)
            ex.record("s2c", "http-response", send.raw, head=True, injected=injected)
            return Response(send.raw, 200, headers, media_type="application/json")
    if (error := verdict.http_error) is not None:
        ex.status = error.status
        ex.response_headers = [[k, v] for k, v in {**error.headers, **headers}.items()]
        json_body = error.body.lstrip().startswith((b"{", b"["))
        ex.record("s2c", "http-response", error.body, head=True, jsonrpc=json_body, injected=injected)
        return Response(error.body, error.status, {**error.headers, **headers})
    if verdict.disconnect is not None:  # the exchange breaks: its stream closes without an answer
        _head(ex, 200, "text/event-stream", headers)
        ex.record("s2c", "http-response", b"", head=True)
        ex.record("s2c", "sse", b"", jsonrpc=False, problem=verdict.disconnect)
        return StreamingResponse(_no_events(), media_type="text/event-stream", headers=headers)
    if body is not None:
        return body
    if not any("method" in m and "id" in m for m in messages):  # a notification or an answer: accepted
        _head(ex, 202, None, headers)
        ex.record("s2c", "http-response", b"", head=True)
        return Response(status_code=202, headers=headers)
    # A dropped request: the stream stays open and silent until the client gives up.
    _head(ex, 200, "text/event-stream", headers)
    ex.record("s2c", "http-response", b"", head=True)
    return StreamingResponse(_silence(), media_type="text/event-stream", headers=headers)


async def _intercept_event(
    hook: HttpIntercept, ex: HttpExchange, message: dict[str, Any] | bytes, session: MockSession
) -> list[bytes]:
    """The SSE events to send for one message of the mock, after the interceptor's decision."""
    data = message.replace(b"\n", b" ") if isinstance(message, bytes) else orjson.dumps(message)
    flow, verdict = await hook.decide("s2c", data)
    iv = flow.meta.get("intercept")
    if verdict is None or iv is None:
        return [_sse(ex, message)]
    ex.record("s2c", "sse", _event(data), body=data, intercept=iv)
    injected = {"n": iv["n"], "action": iv["action"], "by": iv["by"]}
    out: list[bytes] = []
    for send in verdict.sends:
        if send.to == "s2c":
            raw = send.raw.replace(b"\n", b" ")
            if send.injected is not None:
                ex.record("s2c", "sse", _event(raw), body=raw, injected=injected)
            if send.delay_s > 0:
                await anyio.sleep(send.delay_s)
            out.append(_event(raw))
        else:  # the inspector answers the mock's own request to the client
            ex.record("c2s", "http-request", send.raw, injected=injected)
            answers, _ = _messages(send.raw)
            for answer in answers:
                await session.handle(answer, _discard)
    return out


async def _silence() -> AsyncIterator[bytes]:
    await anyio.sleep_forever()
    yield b""  # never reached


async def _no_events() -> AsyncIterator[bytes]:
    return
    yield b""  # an async generator that ends at once


def _event(data: bytes) -> bytes:
    return b"event: message\ndata: " + data + b"\n\n"


def _head(ex: HttpExchange, status: int, content_type: str | None, headers: dict[str, str]) -> None:
    ex.status = status
    ex.response_headers = [["content-type", content_type]] if content_type else []
    ex.response_headers += [[k, v] for k, v in headers.items()]
