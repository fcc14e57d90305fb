"""Recording one HTTP exchange (request, response head, body or SSE events) through a session's tap.

Shared by the recording proxy and our own outbound HTTP connections. Every
row of an exchange carries `meta.exchange` (a number unique in the
process), so the UI can group them and the builder can pair an error whose
JSON-RPC id is null with the request of the same exchange.
"""

from __future__ import annotations

import time
from typing import Any

from inspector.capture import Tap
from inspector.protocol.framing import Cut

__all__ = ["HttpExchange"]


class HttpExchange:
    """One HTTP request/response pair: records its parts with their HTTP metadata and exchange number."""

    __slots__ = (
        "tap", "number", "method", "path", "status", "response_headers", "raw_response_headers", "started",
        "labels",
    )  # fmt: skip

    def __init__(self, tap: Tap, number: int, method: str, path: str, query: str) -> None:
        self.tap = tap
        self.number = number
        self.method = method
        self.path = path + (f"?{query}" if query else "")
        self.status: int | None = None
        self.response_headers: list[list[str]] | None = None
        # Or the (name, value) byte pairs as received: decoded on the recording thread, not here.
        self.raw_response_headers: list[tuple[bytes, bytes]] | None = None
        self.started = time.time_ns()
        self.labels: dict[str, Any] = {}  # meta on every row recorded from now on (e.g. `auth_step`)

    def request(
        self,
        body: bytes,
        headers: list[tuple[bytes, bytes]],
        *,
        jsonrpc: bool = True,
        cut: Cut | None = None,
    ) -> None:
        """The request's body and headers (the recorder redacts secrets, `capture/redact.py`);
        `cut`: the body is longer than the record's cap and `body` its first bytes (`Capped`).

        `headers` are the raw (name, value) byte pairs: the recording thread decodes them (the
        caller must not change the list afterwards), so the forwarding path does not."""
        self.tap.submit_message(
            "c2s",
            "http-request",
            body,
            ts_ns=self.started,
            jsonrpc=jsonrpc,
            http_method=self.method,
            http_path=self.path,
            http_raw_headers=headers,
            meta={"exchange": self.number, **self.labels, **({"truncated": cut} if cut else {})},
        )

    def record(
        self,
        direction: str,
        channel: str,
        raw: bytes,
        *,
        head: bool = False,
        jsonrpc: bool = True,
        http_status: int | None = None,
        sse_event_id: str | None = None,
        body: bytes | None = None,
        **meta: Any,
    ) -> None:
        """A part of this exchange; `head` rows carry the response status and headers.

        `body` is the JSON-RPC part when `raw` holds more (an SSE event's data)."""
        self.tap.submit_message(
            direction,
            channel,
            raw,
            jsonrpc=jsonrpc,
            body=body,
            http_method=self.method,
            http_path=self.path,
            http_status=http_status if http_status is not None else (self.status if head else None),
            http_headers=self.response_headers if head else None,
            http_raw_headers=self.raw_response_headers if head and self.response_headers is None else None,
            sse_event_id=sse_event_id,
            meta={"exchange": self.number, **self.labels, **meta},
        )
