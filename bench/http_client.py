"""The HTTP bench's client: a minimal blocking HTTP/1.1 client on one keep-alive socket, and an MCP session on it.

Why not httpx: its per-request cost (~100+ us of Python) would be part of
every figure. This client costs a few microseconds per request, and exactly
the same in every setup (direct, `mcp-inspect proxy`, mitmdump), so the
differences between setups are the programs in the middle. Requests are
pre-serialised bytes written with one `sendall`; responses are parsed
straight from `recv` (Content-Length or chunked bodies; SSE events are
split out as soon as their bytes arrive, so each can be timestamped on
arrival). TCP_NODELAY is set, as every HTTP client does.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import orjson

PROTOCOL_VERSION = "2025-06-18"  # a handshake-era revision: initialize, then Mcp-Session-Id
RECV_SIZE = 1 << 16


class HttpError(Exception):
    pass


@dataclass
class Response:
    status: int
    headers: dict[bytes, bytes]  # lower-case names; the last value of a repeated header
    body: bytes = b""  # the whole body (for SSE: the raw stream)
    events: list[bytes] = field(default_factory=list)  # SSE: the data of each event, in order
    event_times_ns: list[int] = field(default_factory=list)  # SSE: time.time_ns() when each was complete

    @property
    def is_sse(self) -> bool:
        return self.headers.get(b"content-type", b"").startswith(b"text/event-stream")


class HttpConnection:
    """One keep-alive connection to `url`'s origin; requests go to `url`'s path."""

    def __init__(self, url: str, timeout: float = 30.0) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.sock = socket.create_connection((self.host, self.port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buf = b""
        self.host_header = f"{self.host}:{self.port}".encode()

    def close(self) -> None:
        self.sock.close()

    def build(self, method: str, body: bytes, headers: list[tuple[str, str]]) -> bytes:
        lines = [f"{method} {self.path} HTTP/1.1".encode(), b"Host: " + self.host_header]
        lines += [f"{k}: {v}".encode() for k, v in headers]
        lines.append(b"Content-Length: %d" % len(body))
        return b"\r\n".join(lines) + b"\r\n\r\n" + body

    def exchange(self, request: bytes) -> Response:
        """Send pre-built request bytes; return once the whole response has been read."""
        self.sock.sendall(request)
        return self.read_response()

    # --- parsing -------------------------------------------------------------------------------

    def _fill(self) -> None:
        data = self.sock.recv(RECV_SIZE)
        if not data:
            raise HttpError("connection closed by the server")
        self._buf += data

    def read_response(self) -> Response:
        while (end := self._buf.find(b"\r\n\r\n")) < 0:
            self._fill()
        head = self._buf[:end].split(b"\r\n")
        self._buf = self._buf[end + 4 :]
        status = int(head[0].split(b" ", 2)[1])
        headers: dict[bytes, bytes] = {}
        for line in head[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        resp = Response(status, headers)
        sse = resp.is_sse
        length = headers.get(b"content-length")
        if length is not None:
            n = int(length)
            while len(self._buf) < n:
                self._fill()
            body, self._buf = self._buf[:n], self._buf[n:]
            resp.body = body
            if sse:
                _split_events(body, resp, time.time_ns())
        elif headers.get(b"transfer-encoding", b"").lower() == b"chunked":
            self._read_chunked(resp, sse)
        elif status in (204, 304) or 100 <= status < 200:
            pass
        else:  # no length: the body runs to the end of the connection
            parts = [self._buf]
            self._buf = b""
            while data := self.sock.recv(RECV_SIZE):
                parts.append(data)
            resp.body = b"".join(parts)
            if sse:
                _split_events(resp.body, resp, time.time_ns())
        return resp

    def _read_chunked(self, resp: Response, sse: bool) -> None:
        body = bytearray()
        pending = b""  # SSE bytes not yet closed by a blank line
        while True:
            while (nl := self._buf.find(b"\r\n")) < 0:
                self._fill()
            size = int(self._buf[:nl].split(b";", 1)[0], 16)
            self._buf = self._buf[nl + 2 :]
            if size == 0:
                while (nl := self._buf.find(b"\r\n")) < 0:  # trailers end with an empty line
                    self._fill()
                while nl != 0:
                    self._buf = self._buf[nl + 2 :]
                    while (nl := self._buf.find(b"\r\n")) < 0:
                        self._fill()
                self._buf = self._buf[2:]
                break
            while len(self._buf) < size + 2:
                self._fill()
            chunk = self._buf[:size]
            self._buf = self._buf[size + 2 :]
            body += chunk
            if sse:
                pending = _split_events(pending + chunk, resp, time.time_ns())
        resp.body = bytes(body)
        if sse and pending.strip():
            _split_events(pending + b"\n\n", resp, time.time_ns())


def _split_events(data: bytes, resp: Response, now_ns: int) -> bytes:
    """Append every complete SSE event in `data` to `resp`; return the incomplete rest."""
    data = data.replace(b"\r\n", b"\n")
    while (end := data.find(b"\n\n")) >= 0:
        block, data = data[:end], data[end + 2 :]
        lines = [ln[5:].lstrip(b" ") for ln in block.split(b"\n") if ln.startswith(b"data:")]
        if lines:
            resp.events.append(b"\n".join(lines))
            resp.event_times_ns.append(now_ns)
    return data


# --- an MCP session over one connection ---------------------------------------------------------


class McpSession:
    """initialize / notifications/initialized / tools/call / DELETE over one HttpConnection.

    Counts what it sent and got, for the proxy's completeness check: `requests`
    HTTP requests, `responses` HTTP responses, `events` SSE events (non-empty
    data), and the body bytes both ways.
    """

    def __init__(self, url: str) -> None:
        self.conn = HttpConnection(url)
        self.session_id: str | None = None
        self.requests = 0
        self.responses = 0
        self.events = 0
        self.request_body_bytes = 0
        self.response_body_bytes = 0  # JSON bodies, or the data of the SSE events
        self.next_id = 1

    def _headers(self) -> list[tuple[str, str]]:
        h = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")]
        if self.session_id:
            h += [("Mcp-Session-Id", self.session_id), ("Mcp-Protocol-Version", PROTOCOL_VERSION)]
        return h

    def request_bytes(self, body: bytes, method: str = "POST") -> bytes:
        return self.conn.build(method, body, self._headers())

    def count(self, body: bytes, resp: Response) -> None:
        self.requests += 1
        self.request_body_bytes += len(body)
        self.responses += 1
        self.events += sum(1 for e in resp.events if e)
        self.response_body_bytes += sum(len(e) for e in resp.events) if resp.is_sse else len(resp.body)

    def post(self, message: dict) -> Response:  # type: ignore[type-arg]
        body = orjson.dumps(message)
        resp = self.conn.exchange(self.request_bytes(body))
        self.count(body, resp)
        if resp.status >= 300:
            raise HttpError(f"HTTP {resp.status} for {message.get('method')}: {resp.body[:300]!r}")
        return resp

    def initialize(self) -> None:
        resp = self.post(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "mcp-inspector-bench", "version": "0"},
                },
            }
        )
        sid = resp.headers.get(b"mcp-session-id")
        if not sid:
            raise HttpError(f"initialize: no Mcp-Session-Id in the answer ({resp.status})")
        self.session_id = sid.decode()
        if not result_of(resp, 0):
            raise HttpError(f"initialize: unexpected answer {resp.body[:300]!r}")
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call_bytes(self, name: str, arguments: dict, meta: dict | None = None) -> tuple[int, bytes]:  # type: ignore[type-arg]
        """(id, body) of a tools/call request, pre-serialised."""
        rpc_id = self.next_id
        self.next_id += 1
        params: dict = {"name": name, "arguments": arguments}  # type: ignore[type-arg]
        if meta:
            params["_meta"] = meta
        return rpc_id, orjson.dumps(
            {"jsonrpc": "2.0", "id": rpc_id, "method": "tools/call", "params": params}
        )

    def delete(self) -> None:
        """End the MCP session (the proxy then ends its recorded session)."""
        req = self.conn.build("DELETE", b"", self._headers())
        resp = self.conn.exchange(req)
        self.count(b"", resp)

    def close(self) -> None:
        self.conn.close()


def result_of(resp: Response, rpc_id: int) -> dict | None:  # type: ignore[type-arg]
    """The `result` of the JSON-RPC response with `rpc_id` in an HTTP response (JSON or SSE), or None."""
    bodies = resp.events if resp.is_sse else [resp.body]
    for body in bodies:
        if not body:
            continue
        value = orjson.loads(body)
        if isinstance(value, dict) and value.get("id") == rpc_id and "method" not in value:
            return value.get("result")
    return None
