"""Streamable HTTP rules: Accept and Content-Type, 202 without a body, GET answered with an event
stream, Mcp-Session-Id, MCP-Protocol-Version.

Sans-IO, over the HTTP metadata the proxy keeps on each row (method, status,
headers, `meta.exchange`). Only Streamable HTTP sessions are judged: a
session whose server sent a legacy HTTP+SSE `endpoint` event follows the
2024-11-05 transport, which has none of these headers.
"""

from __future__ import annotations

from collections.abc import Iterator

from inspector.lint.auth import is_auth_leg
from inspector.lint.revision import RowContext, header, headers_of
from inspector.lint.scan import SessionScan
from inspector.protocol import Kind
from inspector.protocol.mcp_tables import is_version_at_least

__all__ = ["HttpCheck"]

Hit = tuple[str, str]


def _media_types(value: str | None) -> set[str]:
    return {part.split(";")[0].strip().lower() for part in (value or "").split(",") if part.strip()}


def _accepts(accept: set[str], media: str) -> bool:
    return media in accept or "*/*" in accept or f"{media.split('/')[0]}/*" in accept


class HttpCheck:
    """Header rules of the Streamable HTTP transport (2025-03-26 and later)."""

    def __init__(self, scan: SessionScan) -> None:
        self._active = not scan.legacy_sse and scan.http
        self._session_id: str | None = None  # assigned by the server with the initialize answer
        self._init_exchanges: set[int] = set()
        self._carries_request: dict[int, bool] = {}  # exchange -> its POST body holds a request

    def check(self, ctx: RowContext) -> Iterator[Hit]:
        if not self._active:
            return
        row = ctx.row
        # The OAuth legs (metadata, registration, authorization, token) are not MCP requests.
        request = row if row.get("channel") == "http-request" else ctx.request_row
        if request is not None and is_auth_leg(request):
            return
        # A request row without headers is the proxy's own note (e.g. the client left a stream), not a request.
        if (
            row.get("channel") == "http-request"
            and row.get("http_method")
            and row.get("http_headers") is not None
        ):
            yield from self._request(ctx)
        elif row.get("channel") == "http-response" and row.get("http_status") is not None:
            yield from self._response_head(ctx)

    def _request(self, ctx: RowContext) -> Iterator[Hit]:
        row, method = ctx.row, str(ctx.row.get("http_method")).upper()
        headers = headers_of(row)
        is_init = any(i.kind is Kind.REQUEST and i.method == "initialize" for i in ctx.items)
        exchange = (row.get("meta") or {}).get("exchange")
        if exchange is not None:
            self._carries_request[exchange] = any(i.kind is Kind.REQUEST for i in ctx.items)
            if is_init:
                self._init_exchanges.add(exchange)
        accept = _media_types(headers.get("accept"))
        if method == "POST" and not (
            _accepts(accept, "application/json") and _accepts(accept, "text/event-stream")
        ):
            yield "http-accept-header", f"POST with Accept: {headers.get('accept', '(none)')}"
        elif method == "GET" and not _accepts(accept, "text/event-stream"):
            yield "http-accept-header", f"GET with Accept: {headers.get('accept', '(none)')}"
        if is_init or ctx.stateless or ctx.facts.era != "handshake":
            return
        if self._session_id is not None and headers.get("mcp-session-id") is None:
            yield "http-session-id-missing", f"{method} without the Mcp-Session-Id the server assigned"
        negotiated = ctx.facts.protocol_version
        if ctx.init_answered and negotiated and is_version_at_least(negotiated, "2025-06-18"):
            sent = headers.get("mcp-protocol-version")
            if sent is None:
                yield (
                    "http-protocol-version-missing",
                    f"{method} after initialization without MCP-Protocol-Version",
                )
            elif sent != negotiated:
                yield (
                    "http-protocol-version-mismatch",
                    f"MCP-Protocol-Version: {sent}, but {negotiated} was negotiated",
                )

    def _response_head(self, ctx: RowContext) -> Iterator[Hit]:
        row, request = ctx.row, ctx.request_row
        if request is None or ctx.direction != "s2c":
            return
        exchange = (row.get("meta") or {}).get("exchange")
        if exchange in self._init_exchanges and (sid := header(row, "mcp-session-id")) is not None:
            self._session_id = sid
            if not sid or any(not 0x21 <= ord(ch) <= 0x7E for ch in sid):
                yield "http-session-id-invalid", f"Mcp-Session-Id {sid!r} has characters outside 0x21-0x7E"
        status = row["http_status"]
        method = str(request.get("http_method")).upper()
        if status == 202:
            if row.get("raw"):  # its bytes are not read as a message (`revision.SessionWalk.context`)
                size = row.get("size") or len(row["raw"])
                yield "http-202-with-body", f"a {method} answered 202 Accepted with a body of {size} bytes"
            return
        if status is None or not 200 <= status < 300:
            return
        media = _media_types(header(row, "content-type"))
        carries_request = self._carries_request.get(exchange, False) if exchange is not None else False
        if method == "POST" and carries_request and not media & {"application/json", "text/event-stream"}:
            yield (
                "http-content-type",
                f"a POST with requests answered {status} with Content-Type {sorted(media) or '(none)'}",
            )
        elif method == "GET" and "text/event-stream" not in media:
            yield (
                "http-get-answer",
                f"a GET answered {status} with Content-Type {sorted(media) or '(none)'}, "
                "not an event stream (nor 405)",
            )
