"""2026-07-28 wire rules: routing headers, per-request log level, session ids, error codes, deprecations.

Sans-IO, over the rows `check_rows` walks. The routing headers are judged by
`inspector.protocol.routing_headers` (the same result the network view
shows); `Mcp-Param-*` headers are checked against the inputSchema of the
called tool when the session recorded a `tools/list` answer naming it.
Removed methods and cache hints are judged with the shapes
(`inspector.lint.shapes`), so each violation gives one finding.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from inspector.lint.auth import AuthCheck
from inspector.lint.revision import RowContext, header
from inspector.lint.scan import SessionScan
from inspector.protocol import Classified, Kind
from inspector.protocol.routing_headers import (
    PROTOCOL_VERSION,
    routing_of_row,
    row_body,
)
from inspector.store.models import StoredRow

__all__ = ["DEPRECATED_FEATURES", "WireCheck"]

Hit = tuple[str, str]
_LOG_LEVEL = "io.modelcontextprotocol/logLevel"

# Codes the 2026-07-28 draft first gave these errors, renumbered into the MCP range (basic/index, Error Codes).
_RENUMBERED = {
    -32001: ("HeaderMismatch", -32020, ("header",)),
    -32003: ("MissingRequiredClientCapability", -32021, ("capabilit",)),
    -32004: ("UnsupportedProtocolVersion", -32022, ("protocol version", "unsupported")),
}

# Feature -> how a person recognises it; flagged once per session (info) from 2026-07-28 on.
DEPRECATED_FEATURES = {
    "roots": "Roots (roots/list): pass directories via tool parameters, resource URIs or configuration",
    "sampling": "Sampling (sampling/createMessage): integrate with the LLM provider directly",
    "logging": "Logging (notifications/message): log to stderr or use OpenTelemetry",
    "includeContext": "includeContext thisServer/allServers: omit it or use none",
    "http+sse": "the HTTP+SSE transport: migrate to Streamable HTTP",
    "dcr": "OAuth Dynamic Client Registration: use Client ID Metadata Documents",
}


def _input_methods(result: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    requests = result.get("inputRequests")
    for entry in requests.values() if isinstance(requests, dict) else []:
        if isinstance(entry, dict) and isinstance(entry.get("method"), str):
            params = entry.get("params")
            yield entry["method"], params if isinstance(params, dict) else {}


class WireCheck:
    """Routing headers, log level per request, no session ids, error codes and deprecations (2026-07-28)."""

    def __init__(self, scan: SessionScan) -> None:
        self._schemas = scan.tool_schemas
        self._legacy_sse = scan.legacy_sse
        self._told: set[str] = set()  # deprecated features already reported in this session
        # Registration legs come before any MCP request: a session is 2026-07-28 when its requests say so.
        self._modern = scan.modern

    def check(self, ctx: RowContext) -> Iterator[Hit]:
        row = ctx.row
        if self._legacy_sse and "http+sse" not in self._told and row.get("channel") == "http-request":
            self._told.add("http+sse")
            yield (
                "feature-deprecated",
                f"{DEPRECATED_FEATURES['http+sse']} (the server sent an endpoint event)",
            )
        if (
            self._modern
            and row.get("channel") == "http-request"
            and str(row.get("http_method")).upper() == "POST"
            and AuthCheck.step(row) == "registration"
        ):
            yield from self._deprecated("dcr")
        if not ctx.stateless:
            return
        if row.get("channel") == "http-request" and row.get("http_headers") is not None:
            yield from self._routing(row)
            if header(row, "mcp-session-id") is not None:
                yield "session-id-in-2026", "the client sent an Mcp-Session-Id header on a 2026-07-28 request"
        elif (
            row.get("channel") == "http-response"
            and ctx.direction == "s2c"
            and header(row, "mcp-session-id") is not None
            and row.get("http_status") is not None
        ):
            yield "session-id-in-2026", "the server sent an Mcp-Session-Id header in a 2026-07-28 answer"
        for item in ctx.items:
            yield from self._item(ctx, item)

    def _routing(self, row: StoredRow) -> Iterator[Hit]:
        routing = routing_of_row(row, self._schemas)
        if routing is None or not routing.required:
            return
        for h in routing.problems:
            if h.status == "invalid":
                yield "routing-header-invalid", f"{h.name}: {h.raw!r} {h.problem}"
            elif h.status == "missing":
                yield (
                    "routing-header-missing",
                    f"{routing.method} POST without {h.name} ({h.source} is {h.expected!r})",
                )
            elif h.name == PROTOCOL_VERSION:
                yield (
                    "protocol-version-header-mismatch",
                    f"{h.name}: {h.decoded}, but {h.source} is {h.expected}",
                )
            else:
                yield "routing-header-mismatch", f"{h.name}: {h.problem}"

    def _item(self, ctx: RowContext, item: Classified) -> Iterator[Hit]:
        if (
            item.kind is Kind.NOTIFICATION
            and ctx.direction == "s2c"
            and item.method == "notifications/message"
        ):
            request = ctx.request_row
            body = row_body(request) if request is not None else None
            params = body.get("params") if isinstance(body, dict) else None
            meta = params.get("_meta") if isinstance(params, dict) else None
            if isinstance(body, dict) and not (isinstance(meta, dict) and _LOG_LEVEL in meta):
                yield (
                    "log-message-without-level",
                    f"notifications/message on the stream of {body.get('method')} (id {body.get('id')!r}), "
                    f"whose _meta has no {_LOG_LEVEL}",
                )
            else:  # a log the client asked for: the feature itself is what is deprecated
                yield from self._deprecated("logging")
        elif item.kind is Kind.REQUEST and ctx.direction == "s2c":
            yield from self._server_request(item.method or "", item.params)
        elif item.kind is Kind.RESPONSE and ctx.direction == "s2c":
            for method, params in _input_methods(item.result):
                yield from self._server_request(method, params)
        elif item.kind is Kind.ERROR and ctx.direction == "s2c":
            yield from self._error(ctx, item)

    def _server_request(self, method: str, params: dict[str, Any]) -> Iterator[Hit]:
        if method == "roots/list":
            yield from self._deprecated("roots")
        elif method == "sampling/createMessage":
            yield from self._deprecated("sampling")
            if params.get("includeContext") in ("thisServer", "allServers"):
                yield from self._deprecated("includeContext")

    def _deprecated(self, feature: str) -> Iterator[Hit]:
        if feature not in self._told:
            self._told.add(feature)
            yield "feature-deprecated", DEPRECATED_FEATURES[feature]

    def _error(self, ctx: RowContext, item: Classified) -> Iterator[Hit]:
        error = item.payload.get("error") if isinstance(item.payload, dict) else None
        if not isinstance(error, dict) or not isinstance(error.get("code"), int):
            return
        code, message = error["code"], str(error.get("message") or "").lower()
        if code == -32002 and ctx.row.get("method") == "resources/read":
            yield (
                "error-code-renumbered",
                "resources/read answered -32002 for a missing resource; 2026-07-28 servers MUST use -32602",
            )
        elif code in _RENUMBERED and any(word in message for word in _RENUMBERED[code][2]):
            name, new, _words = _RENUMBERED[code]
            yield "error-code-renumbered", f"{name} sent as {code}; 2026-07-28 numbers it {new}"
