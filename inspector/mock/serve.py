"""Mock-server transports: NDJSON on our own stdin/stdout, and Streamable HTTP.

Both record the session (kind `mock-server`) through a tap, byte for byte
on stdio and as HTTP exchanges over HTTP, and hand client messages to a
`MockSession`. Over HTTP each request's reaction is streamed on the SSE
response of its POST; the client's answers to our requests arrive as POSTs
of their own; `Mcp-Session-Id` is assigned on `initialize` (requests of the
stateless 2026-07-28 revision carry none and share one mock session).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import Any

import anyio
import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from inspector.capture import Tap
from inspector.mock.session import MockSession
from inspector.protocol import Kind, LineFramer, classify
from inspector.transports.http_record import HttpExchange

__all__ = ["mock_http_app", "serve_stdio"]

_PARSE_ERROR = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}


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


async def serve_stdio(session: MockSession, tap: Tap, *, stdin_fd: int = 0, stdout_fd: int = 1) -> None:
    """Serve one client on stdin/stdout until its EOF."""
    lock = anyio.Lock()

    async def out(message: dict[str, Any]) -> None:
        data = orjson.dumps(message) + b"\n"
        async with lock:
            tap.submit("s2c", "stdout", data)
            await anyio.to_thread.run_sync(_write_all, stdout_fd, data)

    framer = LineFramer()
    async with anyio.create_task_group() as tg:
        while True:
            chunk = await anyio.to_thread.run_sync(os.read, stdin_fd, 1 << 16, abandon_on_cancel=True)
            if not chunk:
                break
            tap.submit("c2s", "stdin", chunk)
            for line in framer.feed(chunk):
                if not line.body.strip():
                    continue
                messages, parsed = _messages(line.body)
                if not parsed:
                    tg.start_soon(out, _PARSE_ERROR)
                for message in messages:
                    tg.start_soon(session.handle, message, out)
    tap.end_stream("c2s", "stdin")


class _HttpSessions:
    def __init__(self, make_session: Callable[[], tuple[MockSession, Tap]]) -> None:
        self.make_session = make_session
        self.by_id: dict[str, tuple[MockSession, Tap]] = {}
        self.stateless: tuple[MockSession, Tap] | None = None
        self.numbers = iter(range(1, 1 << 62))

    def find(
        self, session_id: str | None, messages: list[dict[str, Any]]
    ) -> tuple[str | None, tuple[MockSession, Tap]]:
        if session_id and session_id in self.by_id:
            return session_id, self.by_id[session_id]
        if any(m.get("method") == "initialize" for m in messages):
            new_id = uuid.uuid4().hex
            self.by_id[new_id] = self.make_session()
            return new_id, self.by_id[new_id]
        if self.stateless is None:
            self.stateless = self.make_session()
        return None, self.stateless


def mock_http_app(make_session: Callable[[], tuple[MockSession, Tap]], path: str = "/mcp") -> Starlette:
    """A Streamable HTTP endpoint at `path`; each MCP session gets its own `MockSession` and tap."""
    sessions = _HttpSessions(make_session)

    async def post(request: Request) -> Response:
        raw = await request.body()
        messages, parsed = _messages(raw)
        sid, (session, tap) = sessions.find(request.headers.get("mcp-session-id"), messages)
        ex = HttpExchange(tap, next(sessions.numbers), "POST", request.url.path, request.url.query)
        ex.request(raw, list(request.headers.raw), False)
        headers = {"mcp-session-id": sid} if sid else {}
        if not parsed:
            body = orjson.dumps(_PARSE_ERROR)
            _head(ex, 400, "application/json", headers)
            ex.record("s2c", "http-response", body, head=True)
            return Response(body, 400, headers, media_type="application/json")
        requests = [m for m in messages if "method" in m and "id" in m]
        if not requests:
            for m in messages:
                await session.handle(m, _discard)
            _head(ex, 202, None, headers)
            ex.record("s2c", "http-response", b"", head=True)
            return Response(status_code=202, headers=headers)
        send, receive = anyio.create_memory_object_stream[dict[str, Any]](100)
        _head(ex, 200, "text/event-stream", headers)
        ex.record("s2c", "http-response", b"", head=True)

        async def run() -> None:
            async with send, anyio.create_task_group() as tg:
                for m in messages:
                    tg.start_soon(session.handle, m, send.send)

        async def events():  # type: ignore[no-untyped-def]
            async with anyio.create_task_group() as tg:
                tg.start_soon(run)
                async with receive:
                    async for message in receive:
                        data = orjson.dumps(message)
                        ex.record("s2c", "sse", data)
                        yield b"event: message\ndata: " + data + b"\n\n"

        return StreamingResponse(events(), media_type="text/event-stream", headers=headers)

    async def get(request: Request) -> Response:
        return Response("this mock server has no standalone event stream\n", 405, {"allow": "POST, DELETE"})

    async def delete(request: Request) -> Response:
        sid = request.headers.get("mcp-session-id")
        found = sessions.by_id.pop(sid, None) if sid else None
        if found is None:
            return Response(status_code=404)
        found[1].end(None, "DELETE")
        return Response(status_code=200)

    return Starlette(
        routes=[
            Route(path, post, methods=["POST"]),
            Route(path, get, methods=["GET"]),
            Route(path, delete, methods=["DELETE"]),
        ]
    )


async def _discard(_message: dict[str, Any]) -> None:
    return None


def _head(ex: HttpExchange, status: int, content_type: str | None, headers: dict[str, str]) -> None:
    ex.status = status
    ex.response_headers = [["content-type", content_type]] if content_type else []
    ex.response_headers += [[k, v] for k, v in headers.items()]
