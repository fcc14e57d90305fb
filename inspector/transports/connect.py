"""Outbound connections for our own endpoints (replay, mock client): stdio, Streamable HTTP, legacy SSE.

A `Connection` moves whole JSON-RPC messages (bytes, no framing) to and
from a server and records every byte it sends and receives through a
session's `Tap`, exactly as the recording transports do:

- `StdioConnection` spawns the server and speaks NDJSON over its pipes;
- `StreamableHttpConnection` POSTs each message, reads JSON or SSE answers,
  keeps `Mcp-Session-Id`, opens the standalone GET stream once the session
  is initialised, and sends DELETE when closed;
- `LegacySseConnection` opens the GET event stream, waits for the
  `endpoint` event and POSTs messages there.

`open_connection(target, tap)` picks one: a list is a command, a URL
ending in `/sse` is legacy HTTP+SSE, any other URL is Streamable HTTP.
HTTP connections use the process's outbound settings (`outbound.active()`:
CA bundle, client certificate, `--insecure`, connection cap) and the forward
proxy the environment names for the URL (`outbound.proxy_for`). Their methods import httpx
themselves: a command that only speaks stdio (`call -- SERVER`) does not load it.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urljoin

import anyio
import orjson
from anyio.abc import Process, TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from inspector.capture import Tap
from inspector.capture.redact import header_pairs
from inspector.errors import ConnectionClosed, SpawnError
from inspector.protocol import Kind, LineFramer, classify
from inspector.protocol.mcp_tables import PROTOCOL_VERSION_META_KEY
from inspector.protocol.routing_headers import (
    METHOD,
    NAME,
    NAME_FIELDS,
    PROTOCOL_VERSION,
    encode_value,
    param_header_values,
)
from inspector.protocol.sse import SSEEvent, SSEFramer
from inspector.transports.http_record import HttpExchange
from inspector.transports.outbound import active, proxy_for

if TYPE_CHECKING:
    import httpx

__all__ = [
    "Connection",
    "LegacySseConnection",
    "StdioConnection",
    "StreamableHttpConnection",
    "open_connection",
]

_JSON_SSE = [(b"accept", b"application/json, text/event-stream"), (b"content-type", b"application/json")]


class Connection(Protocol):
    async def send(self, raw: bytes) -> None:
        """Send one JSON-RPC message (its bytes, without a line terminator)."""

    async def receive(self) -> bytes:
        """The next message from the server; raises ConnectionClosed at the end."""

    async def aclose(self) -> int | None:
        """Close politely (EOF / DELETE), then for good; the server process's exit status (stdio),
        else None."""


class _Inbox:
    """Messages from the server, in arrival order."""

    def __init__(self) -> None:
        send, receive = anyio.create_memory_object_stream[bytes](10_000)
        self.put: MemoryObjectSendStream[bytes] = send
        self.get: MemoryObjectReceiveStream[bytes] = receive

    async def receive(self) -> bytes:
        try:
            return await self.get.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise ConnectionClosed("the server closed the connection") from None


class StdioConnection:
    """A server process spoken to over NDJSON on its stdin/stdout."""

    STDERR_TAIL = 4096  # bytes of the server's last stderr output kept to explain its exit
    STDERR_SHOWN = 1500  # characters of that tail put in an error message

    def __init__(self, process: Process, tap: Tap, tg: TaskGroup, grace: float) -> None:
        self.process = process
        self.tap = tap
        self.grace = grace
        self.stderr_tail = bytearray()
        self.stderr_done = anyio.Event()  # the server's stderr is closed (it exited, as a rule)
        self._inbox = _Inbox()
        self._tg = tg
        tg.start_soon(self._read_stdout)
        tg.start_soon(self._read_stderr)

    @classmethod
    async def open(cls, argv: Sequence[str], tap: Tap, tg: TaskGroup, grace: float = 2.0) -> StdioConnection:
        try:
            process = await anyio.open_process(list(argv), stderr=subprocess.PIPE)
        except OSError as exc:
            raise SpawnError(f"cannot start {argv[0]!r}: {exc}") from exc
        return cls(process, tap, tg, grace)

    async def _read_stdout(self) -> None:
        framer = LineFramer()
        assert self.process.stdout is not None
        try:
            async for chunk in self.process.stdout:
                self.tap.submit("s2c", "stdout", chunk)
                for line in framer.feed(chunk):
                    if line.body.strip():
                        await self._inbox.put.send(line.body)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass
        finally:
            self.tap.end_stream("s2c", "stdout")
            self._inbox.put.close()

    async def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        try:
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                async for chunk in self.process.stderr:
                    self.tap.submit("s2c", "stderr", chunk)
                    self.stderr_tail += chunk
                    del self.stderr_tail[: -self.STDERR_TAIL]
            self.tap.end_stream("s2c", "stderr")
        finally:
            self.stderr_done.set()

    async def exit_status(self, timeout: float) -> int | None:
        """The process's exit status once it has exited and its stderr is read (None: still running)."""
        with anyio.move_on_after(timeout):
            await self.process.wait()
            await self.stderr_done.wait()
        return self.process.returncode

    async def exit_note(self, timeout: float = 5.0) -> tuple[int | None, str | None]:
        """Its exit status and "exited with status N; <stderr tail or: it wrote nothing on stderr>".

        (None, None) while the process still runs after `timeout` seconds."""
        status = await self.exit_status(timeout)
        if status is None:
            return None, None
        tail = bytes(self.stderr_tail).decode("utf-8", "replace").strip()[-self.STDERR_SHOWN :]
        said = f"its stderr ends with:\n{tail}" if tail else "it wrote nothing on stderr"
        return status, f"exited with status {status}; {said}"

    async def send(self, raw: bytes) -> None:
        data = raw if raw.endswith(b"\n") else raw + b"\n"
        self.tap.submit("c2s", "stdin", data)
        assert self.process.stdin is not None
        try:
            await self.process.stdin.send(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            # A closed pipe's exception often has no text: no dangling colon then.
            detail = f": {exc}" if str(exc) else ""
            raise ConnectionClosed(f"the server's stdin is closed{detail}") from None

    async def receive(self) -> bytes:
        return await self._inbox.receive()

    async def aclose(self) -> int | None:
        """Close stdin, wait `grace` seconds, then terminate; return the exit status."""
        if self.process.stdin is not None:
            with contextlib.suppress(Exception):
                await self.process.stdin.aclose()
        with anyio.move_on_after(self.grace):
            return await self.process.wait()
        self.process.terminate()
        with anyio.move_on_after(self.grace):
            return await self.process.wait()
        self.process.kill()
        return await self.process.wait()


RESUME_ATTEMPTS = 3  # GETs with Last-Event-ID for one request's stream that ended unanswered
GET_STREAM_WAIT = 5.0  # seconds the first request after the handshake waits for the standalone GET's answer


class _Resume:
    """What resuming one request's event stream needs: the last event id, the server's `retry`
    and whether the answer to request `rpc_id` has come."""

    def __init__(self, rpc_id: str) -> None:
        self.rpc_id = rpc_id
        self.last_id: str | None = None
        self.retry_ms: int | None = None
        self.answered = False

    def saw(self, event: SSEEvent) -> None:
        if event.id is not None:
            self.last_id = event.id or None  # an empty id resets it (the SSE rules)
        if event.retry is not None:
            self.retry_ms = event.retry
        if event.event == "message" and event.data:
            found = classify(event.data_bytes)
            if found.kind in (Kind.RESPONSE, Kind.ERROR) and found.rpc_id == self.rpc_id:
                self.answered = True


class _HttpBase:
    def __init__(
        self,
        url: str,
        tap: Tap,
        tg: TaskGroup,
        headers: dict[str, str] | None,
        auth: httpx.Auth | None = None,
    ) -> None:
        import httpx

        self.url = url
        self.tap = tap
        self._tg = tg
        self._inbox = _Inbox()
        self._extra = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        self._numbers = iter(range(1, 1 << 62))
        self.tool_schemas: dict[str, Any] = {}  # tool name -> inputSchema, from tools/list answers seen
        settings = active()
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(30.0, read=None),
            verify=settings.ssl_context(),
            proxy=proxy_for(url),
            limits=httpx.Limits(max_connections=settings.max_connections),
            trust_env=False,  # the proxy is chosen by proxy_for; no .netrc credentials added
            auth=auth,  # OAuth (inspector/auth/runner.py) when the client authorizes
        )

    async def _deliver(self, data: bytes) -> None:
        """Hand a message from the server to the client (learning the tool schemas it lists)."""
        if b'"tools"' in data and b'"inputSchema"' in data:
            learn_tool_schemas(data, self.tool_schemas)
        await self._inbox.put.send(data)

    def _exchange(self, method: str, url: str) -> HttpExchange:
        import httpx

        path = httpx.URL(url)
        return HttpExchange(self.tap, -next(self._numbers), method, path.path, path.query.decode("latin-1"))

    def _record_head(self, ex: HttpExchange, response: httpx.Response) -> None:
        ex.status = response.status_code
        ex.response_headers = header_pairs(response.headers.raw)

    async def _get_events(self, headers: list[tuple[bytes, bytes]]) -> tuple[httpx.Response, HttpExchange]:
        """Open a GET event stream, recording the exchange and its response head."""
        import httpx

        ex = self._exchange("GET", self.url)
        ex.request(b"", headers)
        try:
            response = await self.client.send(
                self.client.build_request("GET", self.url, headers=headers), stream=True
            )
        except httpx.HTTPError as exc:
            ex.record("s2c", "http-response", b"", problem=f"{type(exc).__name__}: {exc}")
            raise
        self._record_head(ex, response)
        ex.record("s2c", "http-response", b"", head=True)
        return response, ex

    async def _read_events(
        self, response: httpx.Response, ex: HttpExchange, resume: _Resume | None = None
    ) -> None:
        import httpx

        framer = SSEFramer()
        try:
            async for chunk in response.aiter_raw():
                for event in framer.feed(chunk):
                    if resume is not None:
                        resume.saw(event)
                    await self._on_event(event, ex)
        except (httpx.HTTPError, OSError) as exc:
            ex.record("s2c", "sse", b"", problem=f"event stream broke: {exc}")
        finally:
            with anyio.CancelScope(shield=True):  # also when the stream is aborted (cancelled)
                await response.aclose()

    async def _on_event(self, event: SSEEvent, ex: HttpExchange) -> None:
        if event.is_comment_only:
            return
        is_message = event.event == "message" and bool(event.data)
        meta: dict[str, Any] = {} if event.event == "message" else {"event": event.event}
        ex.record(
            "s2c", "sse", event.raw, jsonrpc=is_message, sse_event_id=event.id, body=event.data_bytes, **meta
        )
        if is_message:
            await self._deliver(event.data_bytes)

    async def receive(self) -> bytes:
        return await self._inbox.receive()


class StreamableHttpConnection(_HttpBase):
    """The Streamable HTTP transport (2025-03-26 and later), as a client."""

    def __init__(
        self,
        url: str,
        tap: Tap,
        tg: TaskGroup,
        headers: dict[str, str] | None = None,
        auth: httpx.Auth | None = None,
    ) -> None:
        super().__init__(url, tap, tg, headers, auth)
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self._get_stream_opened = False
        self._get_stream_ready = anyio.Event()  # the standalone GET's answer (or failure) came
        self._streams: dict[str, tuple[anyio.CancelScope, HttpExchange]] = {}  # by request id

    def _headers(self, raw: bytes = b"") -> list[tuple[bytes, bytes]]:
        headers = [*_JSON_SSE, *self._extra]
        if self.session_id:
            headers.append((b"mcp-session-id", self.session_id.encode()))
        routing = _routing_headers(raw, self.tool_schemas) if raw else []
        if routing:
            headers.extend(routing)
        elif self.protocol_version:
            headers.append((b"mcp-protocol-version", self.protocol_version.encode()))
        return headers

    async def send(self, raw: bytes) -> None:
        import httpx

        headers = self._headers(raw)
        ex = self._exchange("POST", self.url)
        ex.request(raw, headers)
        try:
            response = await self.client.send(
                self.client.build_request("POST", self.url, headers=headers, content=raw), stream=True
            )
        except httpx.HTTPError as exc:
            ex.record("s2c", "http-response", b"", problem=f"{type(exc).__name__}: {exc}")
            raise ConnectionClosed(f"POST {self.url} failed: {exc}") from None
        except anyio.get_cancelled_exc_class():
            ex.record(
                "c2s", "http-request", b"", jsonrpc=False, problem="closed by the client before the answer"
            )
            raise
        self._learn(response, stateless=any(k == b"mcp-method" for k, _ in headers))
        self._record_head(ex, response)
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type == "text/event-stream":
            ex.record("s2c", "http-response", b"", head=True)
            sent = classify(raw)
            if sent.kind is Kind.REQUEST and sent.rpc_id is not None:
                self._tg.start_soon(self._read_request_events, response, ex, sent.rpc_id)
            else:
                self._tg.start_soon(self._read_events, response, ex)
            return
        try:
            body = await response.aread()
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()
        is_json = content_type == "application/json" and bool(body)
        refused = response.status_code in (401, 403) and classify(raw).kind is Kind.REQUEST
        ex.record("s2c", "http-response", body, head=True, jsonrpc=is_json and not refused)
        if refused:
            # No JSON-RPC answer will come: say why now instead of waiting for the timeout.
            challenge = response.headers.get("www-authenticate")
            raise ConnectionClosed(
                f"the server answered {response.status_code} "
                f"{'Unauthorized' if response.status_code == 401 else 'Forbidden'}"
                + (f" (WWW-Authenticate: {challenge})" if challenge else "")
                + ": it requires authorization; --auth (call, replay, versions) authorizes with OAuth, "
                "--header 'Authorization: Bearer ...' sends a token you have"
            )
        if is_json:
            await self._deliver(_with_exchange_id(body, raw))
        if b'"notifications/initialized"' in raw and self.session_id and not self._get_stream_opened:
            self._get_stream_opened = True
            self._tg.start_soon(self._open_get_stream)
            # The stream is open (or refused) before the next request goes: what the server sends
            # on it meanwhile is not missed. Bounded: a server slow to answer a GET delays nothing more.
            with anyio.move_on_after(GET_STREAM_WAIT):
                await self._get_stream_ready.wait()

    async def _read_request_events(self, response: httpx.Response, ex: HttpExchange, rpc_id: str) -> None:
        """The event stream answering one request; `abort(rpc_id)` closes it.

        A stream that ends before the answer, after the server gave its events ids, is resumed
        (basic/transports, "Resumability and Redelivery"; SEP-1699): after the `retry` the server
        set, a GET with `Last-Event-ID` carries on where it stopped, at most RESUME_ATTEMPTS times."""
        import httpx

        resume = _Resume(rpc_id)
        with anyio.CancelScope() as scope:
            self._streams[rpc_id] = (scope, ex)
            try:
                await self._read_events(response, ex, resume)
                for _attempt in range(RESUME_ATTEMPTS):
                    if resume.answered or resume.last_id is None:
                        return
                    await anyio.sleep((resume.retry_ms if resume.retry_ms is not None else 1000) / 1000)
                    headers = [(k, v) for k, v in self._headers() if k != b"content-type"]
                    headers = [
                        (b"accept", b"text/event-stream") if k == b"accept" else (k, v) for k, v in headers
                    ]
                    headers.append((b"last-event-id", resume.last_id.encode()))
                    try:
                        response, ex = await self._get_events(headers)
                    except httpx.HTTPError:
                        return
                    if response.status_code != 200:
                        await response.aclose()
                        return
                    self._streams[rpc_id] = (scope, ex)
                    await self._read_events(response, ex, resume)
            finally:
                self._streams.pop(rpc_id, None)

    async def abort(self, rpc_id: str, reason: str | None = None) -> bool:
        """Close the stream answering request `rpc_id` (the 2026-07-28 HTTP way to cancel it);
        False when no such stream is open. The close is recorded on the exchange."""
        found = self._streams.pop(rpc_id, None)
        if found is None:
            return False
        scope, ex = found
        ex.record(
            "c2s",
            "http-request",
            b"",
            jsonrpc=False,
            problem="closed by the client to cancel the request",
            cancel_reason=reason,
        )
        scope.cancel()
        return True

    def _learn(self, response: httpx.Response, stateless: bool = False) -> None:
        """Keep the server's `Mcp-Session-Id`, except from the answer to a 2026-07-28 request:
        that revision has no sessions, its requests carry none (lint `session-id-in-2026`)."""
        if (sid := response.headers.get("mcp-session-id")) and not stateless:
            self.session_id = sid

    def learn_protocol_version(self, version: str) -> None:
        """Send `MCP-Protocol-Version` from now on (after the initialize result names it)."""
        self.protocol_version = version

    async def _open_get_stream(self) -> None:
        import httpx

        headers = [(k, v) for k, v in self._headers() if k != b"content-type"]
        headers = [(b"accept", b"text/event-stream") if k == b"accept" else (k, v) for k, v in headers]
        try:
            response, ex = await self._get_events(headers)
        except httpx.HTTPError:
            return
        finally:
            self._get_stream_ready.set()
        if response.status_code != 200:
            await response.aclose()
            return
        await self._read_events(response, ex)

    async def aclose(self) -> int | None:
        import httpx

        if self.session_id:
            headers = [(k, v) for k, v in self._headers() if k not in (b"content-type",)]
            ex = self._exchange("DELETE", self.url)
            ex.request(b"", headers)
            with contextlib.suppress(httpx.HTTPError):
                response = await self.client.delete(self.url, headers=headers)
                ex.status = response.status_code
                ex.record("s2c", "http-response", response.content, head=True, jsonrpc=False)
        await self.client.aclose()
        self._inbox.put.close()
        return None


class LegacySseConnection(_HttpBase):
    """The HTTP+SSE transport of 2024-11-05, as a client."""

    def __init__(
        self,
        url: str,
        tap: Tap,
        tg: TaskGroup,
        headers: dict[str, str] | None = None,
        auth: httpx.Auth | None = None,
    ) -> None:
        super().__init__(url, tap, tg, headers, auth)
        self.endpoint: str | None = None
        self._endpoint_known = anyio.Event()

    async def start(self) -> None:
        import httpx

        try:
            response, ex = await self._get_events([(b"accept", b"text/event-stream"), *self._extra])
        except httpx.HTTPError as exc:
            raise ConnectionClosed(f"GET {self.url} failed: {exc}") from None
        if response.status_code != 200:
            await response.aclose()
            raise ConnectionClosed(f"GET {self.url} answered {response.status_code}")
        self._tg.start_soon(self._read_events, response, ex)
        with anyio.fail_after(30):
            await self._endpoint_known.wait()

    async def _on_event(self, event: SSEEvent, ex: HttpExchange) -> None:
        if event.event == "endpoint":
            self.endpoint = urljoin(self.url, event.data.strip())
            self._endpoint_known.set()
        await super()._on_event(event, ex)

    async def send(self, raw: bytes) -> None:
        import httpx

        assert self.endpoint is not None
        headers = [(b"content-type", b"application/json"), *self._extra]
        ex = self._exchange("POST", self.endpoint)
        ex.request(raw, headers)
        try:
            response = await self.client.post(self.endpoint, headers=headers, content=raw)
        except httpx.HTTPError as exc:
            raise ConnectionClosed(f"POST {self.endpoint} failed: {exc}") from None
        ex.status = response.status_code
        ex.record("s2c", "http-response", response.content, head=True, jsonrpc=False)

    async def aclose(self) -> int | None:
        await self.client.aclose()
        self._inbox.put.close()
        return None


def _with_exchange_id(body: bytes, sent: bytes) -> bytes:
    """An error whose id is null (the server could not tell which request) answers the request of
    this exchange: hand it to our endpoint with that id, so nobody waits for it until a timeout.
    (The recording keeps the body as it was.)"""
    answer = classify(body)
    if answer.kind is not Kind.ERROR or answer.rpc_id != "null":
        return body
    request = classify(sent)
    if request.kind is not Kind.REQUEST or not isinstance(answer.payload, dict):
        return body
    return orjson.dumps({**answer.payload, "id": request.payload["id"]})


def _routing_headers(raw: bytes, tool_schemas: dict[str, Any]) -> list[tuple[bytes, bytes]]:
    """2026-07-28 requests name their protocol version, method and target in headers too, and a
    `tools/call` its `x-mcp-header` arguments (for a tool whose schema a tools/list answer gave)."""
    msg = classify(raw)
    if msg.kind not in (Kind.REQUEST, Kind.NOTIFICATION) or msg.method is None:
        return []
    meta = msg.params.get("_meta")
    version = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None
    if not isinstance(version, str):
        return []
    headers = [
        (PROTOCOL_VERSION.lower().encode(), version.encode()),
        (METHOD.lower().encode(), msg.method.encode()),
    ]
    name_key = NAME_FIELDS.get(msg.method)
    name = msg.params.get(name_key) if name_key else None
    if isinstance(name, str):
        headers.append((NAME.lower().encode(), encode_value(name).encode()))
        if msg.method == "tools/call" and name in tool_schemas:
            for header_name, value in param_header_values(tool_schemas[name], msg.params.get("arguments")):
                headers.append((header_name.lower().encode(), value.encode()))
    return headers


def learn_tool_schemas(data: bytes, into: dict[str, Any]) -> None:
    """Remember each tool's inputSchema from a tools/list answer (anything else is left alone)."""
    try:
        message = orjson.loads(data)
    except orjson.JSONDecodeError:
        return
    result = message.get("result") if isinstance(message, dict) else None
    tools = result.get("tools") if isinstance(result, dict) else None
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            into[tool["name"]] = tool.get("inputSchema")


async def open_connection(
    target: Sequence[str] | str,
    tap: Tap,
    tg: TaskGroup,
    *,
    headers: dict[str, str] | None = None,
    auth: httpx.Auth | None = None,
) -> Connection:
    """Connect to a command (a list) or a URL (`.../sse` means legacy HTTP+SSE); `auth` for HTTP."""
    if not isinstance(target, str):
        return await StdioConnection.open(target, tap, tg)
    if target.rstrip("/").endswith("/sse"):
        conn = LegacySseConnection(target, tap, tg, headers, auth)
        await conn.start()
        return conn
    return StreamableHttpConnection(target, tap, tg, headers, auth)
