"""Recorded rows to span descriptions, after the OpenTelemetry semantic conventions for MCP (sans-IO).

One `SpanMapper` per recorded session. It is fed the session's rows in seq
order (live from the recorder, or read back from the store) and returns a
`SpanDescription` for each request once its response (or error) row arrives:
name `{mcp.method.name} {target}`, the request's read time as start and the
response's read time as end, the attributes of the conventions
(docs/gen-ai/mcp.md, model/mcp/*.yaml of open-telemetry/semantic-conventions),
and the parent named by `traceparent` in the request's `params._meta`.

Choices (docs/how-to/otel.md says what the spans carry):
- The spans are the MCP client's side of each operation: a client-to-server
  request is a CLIENT span (`mcp.client.operation.duration`), a
  server-to-client request (sampling, elicitation, roots) a SERVER span
  (`mcp.server.operation.duration`). The inspector sits next to the client
  (the host starts `wrap`, points its client at `proxy`).
- Notifications are no spans: they have no duration (one read time) and
  progress and log notifications would flood a trace; they stay in the
  recording. A request cancelled by `notifications/cancelled` ends then, with
  `error.type` `cancelled`; one never answered when the session ends, with
  `no_response` at the session's end.
- A request without `traceparent` starts its own trace (a root span): a trace
  per session would need a session span that ends only when the session does.
  `mcp_inspector.session.id` and `mcp.session.id` group a session's spans.
- Tool arguments and results (`gen_ai.tool.call.arguments` / `.result`) only
  with `content=True` (opt-in, as the conventions say). They are read from the
  stored (redacted) bytes, as everything here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from inspector.protocol.jsonrpc import id_key
from inspector.protocol.sse import stored_body

__all__ = [
    "CLIENT_DURATION",
    "SERVER_DURATION",
    "SpanDescription",
    "SpanMapper",
    "TraceParent",
    "parse_traceparent",
]

CLIENT_DURATION = "mcp.client.operation.duration"
SERVER_DURATION = "mcp.server.operation.duration"
# Attributes the duration histograms carry (model/mcp/metrics.yaml: the common MCP attributes).
_METRIC_KEYS = (
    "mcp.method.name",
    "mcp.protocol.version",
    "network.transport",
    "network.protocol.name",
    "error.type",
    "rpc.response.status_code",
    "gen_ai.tool.name",
    "gen_ai.prompt.name",
    "gen_ai.operation.name",
)
_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$")
_RESOURCE_METHODS = frozenset({"resources/read", "resources/subscribe", "resources/unsubscribe"})
_MAX_CONTENT = 64 * 1024  # an opted-in argument or result attribute is cut beyond this many characters

Attr = str | int | float | bool


@dataclass(frozen=True, slots=True)
class TraceParent:
    """A W3C trace context taken from a request's `params._meta`."""

    trace_id: int
    span_id: int
    flags: int
    tracestate: str | None = None


def parse_traceparent(value: Any, tracestate: Any = None) -> TraceParent | None:
    """A valid `traceparent` header value (W3C Trace Context level 1), else None."""
    if not isinstance(value, str):
        return None
    m = _TRACEPARENT.match(value.strip())
    if m is None or m.group(1) == "ff" or (m.group(1) == "00" and m.end(4) != len(value.strip())):
        return None
    trace_id, span_id = int(m.group(2), 16), int(m.group(3), 16)
    if not trace_id or not span_id:
        return None
    state = tracestate if isinstance(tracestate, str) and tracestate.strip() else None
    return TraceParent(trace_id, span_id, int(m.group(4), 16), state)


@dataclass(slots=True)
class SpanDescription:
    """One span to export: what the SDK needs, nothing of it."""

    name: str
    kind: str  # "client" | "server"
    start_ns: int
    end_ns: int
    attributes: dict[str, Attr]
    parent: TraceParent | None = None
    error: bool = False  # status ERROR (`error.type` is set)
    status_message: str | None = None  # the JSON-RPC error's message

    @property
    def metric(self) -> str:
        """The duration histogram this operation counts in."""
        return CLIENT_DURATION if self.kind == "client" else SERVER_DURATION

    @property
    def duration_s(self) -> float:
        return max(self.end_ns - self.start_ns, 0) / 1e9

    def metric_attributes(self) -> dict[str, Attr]:
        return {k: self.attributes[k] for k in _METRIC_KEYS if k in self.attributes}


@dataclass(slots=True)
class _Request:
    seq: int
    ts_ns: int
    direction: str
    rpc_id: str  # canonical JSON text
    id_value: Any
    method: str
    params: dict[str, Any]
    protocol_version: str | None
    mcp_session_id: str | None
    cancelled_ns: int | None = None  # when a notifications/cancelled named it


def _header(headers: Any, name: str) -> str | None:
    if not isinstance(headers, list):
        return None
    for pair in headers:
        if isinstance(pair, (list, tuple)) and len(pair) == 2 and str(pair[0]).lower() == name:
            return str(pair[1])
    return None


def _json(row: Any) -> Any:
    body = stored_body(row["channel"], row["raw"])
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:  # invalid JSON or UTF-8, or an integer beyond 64 bits
        try:
            return json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return None


def _server(url: str) -> dict[str, Attr]:
    """server.address and server.port of an http(s) URL ({} for anything else)."""
    m = re.match(r"^(https?)://(?:[^@/]*@)?(\[[^\]]+\]|[^:/?#]+)(?::(\d+))?", url, re.IGNORECASE)
    if m is None:
        return {}
    host = m.group(2).strip("[]")
    port = int(m.group(3)) if m.group(3) else (443 if m.group(1).lower() == "https" else 80)
    return {"server.address": host, "server.port": port}


def _content(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= _MAX_CONTENT else text[:_MAX_CONTENT] + "..."


@dataclass
class SpanMapper:
    """Spans of one recorded session, built from its rows fed in order."""

    session_id: int
    transport: str | None = "pipe"  # network.transport: pipe (stdio) or tcp (HTTP); None: from the rows
    content: bool = False  # opt-in: tool arguments and results as attributes
    protocol_version: str | None = None  # the session's negotiated version, when known
    server_url: str | None = None  # an HTTP target: server.address and server.port of client spans
    _pending: dict[int, list[_Request]] = field(default_factory=dict)  # request seq -> its requests
    _mcp_session_id: str | None = None

    def facts(self, facts: dict[str, Any]) -> None:
        """The session's facts changed (the recorder's facts, or the stored session's columns)."""
        version = facts.get("protocol_version")
        if isinstance(version, str):
            self.protocol_version = version

    def feed(self, row: Any) -> list[SpanDescription]:
        """One row (a `MessageRow` / `StoredRow`); the spans it completes."""
        if self.transport is None:
            self.transport = "pipe" if row["channel"] in ("stdin", "stdout", "stderr") else "tcp"
        sid = _header(row.get("http_headers"), "mcp-session-id")  # also on HTTP rows without JSON-RPC
        if sid:
            self._mcp_session_id = sid
        kind = row["kind"]
        if kind not in ("request", "response", "error", "batch", "notification"):
            return []
        if kind == "notification":
            self._on_notification(row)
            return []
        body = _json(row)
        if kind == "request":
            if isinstance(body, dict):
                self._on_request(row, body)
            return []
        if kind in ("response", "error"):
            span = self._on_response(row, body, row.get("answers_seq")) if isinstance(body, dict) else None
            return [span] if span else []
        out: list[SpanDescription] = []  # a batch: its requests wait, its responses complete spans
        items = (row.get("meta") or {}).get("items") or []
        for i, item in enumerate(body if isinstance(body, list) else []):
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("method"), str) and "id" in item:
                self._on_request(row, item)
            elif "result" in item or "error" in item:
                pairing = items[i] if i < len(items) and isinstance(items[i], dict) else {}
                span = self._on_response(row, item, pairing.get("answers_seq"))
                if span:
                    out.append(span)
        return out

    def finish(self, end_ns: int) -> list[SpanDescription]:
        """The session ended (at `end_ns`): a span for each request never answered, ending then, or
        when it was cancelled."""
        out = []
        for reqs in self._pending.values():
            for req in reqs:
                if req.cancelled_ns is not None:  # the operation ended for its caller when it cancelled
                    span = self._span(req, req.cancelled_ns, {"error.type": "cancelled"}, error=True)
                    span.status_message = "cancelled by notifications/cancelled"
                else:
                    span = self._span(req, end_ns, {"error.type": "no_response"}, error=True)
                    span.status_message = "never answered"
                out.append(span)
        self._pending.clear()
        out.sort(key=lambda s: s.start_ns)
        return out

    def _on_notification(self, row: Any) -> None:
        if row.get("method") != "notifications/cancelled":
            return
        related = (row.get("meta") or {}).get("related_seq")
        for req in self._pending.get(related, []) if isinstance(related, int) else []:
            if req.cancelled_ns is None:
                req.cancelled_ns = row["ts_ns"]

    def _on_request(self, row: Any, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        if not isinstance(method, str) or "id" not in msg:
            return
        params = msg.get("params")
        params = params if isinstance(params, dict) else {}
        meta = params.get("_meta")
        version = None
        if isinstance(meta, dict):
            pv = meta.get("io.modelcontextprotocol/protocolVersion")
            version = pv if isinstance(pv, str) else None
        version = version or _header(row.get("http_headers"), "mcp-protocol-version")
        req = _Request(
            seq=row["seq"],
            ts_ns=row["ts_ns"],
            direction=row["direction"],
            rpc_id=id_key(msg["id"]),
            id_value=msg["id"],
            method=method,
            params=params,
            protocol_version=version,
            mcp_session_id=_header(row.get("http_headers"), "mcp-session-id"),
        )
        self._pending.setdefault(row["seq"], []).append(req)

    def _take(self, answers_seq: Any, rpc_id: str) -> _Request | None:
        reqs = self._pending.get(answers_seq) if isinstance(answers_seq, int) else None
        if not reqs:
            return None
        req = next((r for r in reqs if r.rpc_id == rpc_id), None)
        if req is None:
            if len(reqs) != 1:
                return None
            req = reqs[0]  # an error with id null, paired by the recorder from elsewhere
        reqs.remove(req)
        if not reqs:
            del self._pending[answers_seq]
        return req

    def _on_response(self, row: Any, msg: dict[str, Any], answers_seq: Any) -> SpanDescription | None:
        rpc_id = id_key(msg.get("id"))
        req = self._take(answers_seq, rpc_id)
        if req is None:
            return None
        attrs: dict[str, Attr] = {}
        error = False
        message = None
        err = msg.get("error")
        result = msg.get("result")
        if isinstance(err, dict):
            code = err.get("code")
            code_text = str(code) if isinstance(code, int) else "_OTHER"
            attrs["rpc.response.status_code"] = code_text
            attrs["error.type"] = code_text
            error = True
            message = err.get("message") if isinstance(err.get("message"), str) else None
        elif isinstance(result, dict):
            if result.get("isError") is True:
                attrs["error.type"] = "tool_error"
                error = True
            if req.method == "initialize" and isinstance(result.get("protocolVersion"), str):
                # The negotiated version, learnt from the rows themselves (facts may come later).
                attrs["mcp.protocol.version"] = self.protocol_version = result["protocolVersion"]
            if self.content and req.method == "tools/call":
                attrs["gen_ai.tool.call.result"] = _content(result)
        if req.mcp_session_id is None:  # initialize: the session id comes with its answer
            req.mcp_session_id = _header(row.get("http_headers"), "mcp-session-id")
        span = self._span(req, row["ts_ns"], attrs, error=error)
        span.status_message = message
        return span

    def _span(self, req: _Request, end_ns: int, extra: dict[str, Attr], *, error: bool) -> SpanDescription:
        params = req.params
        attrs: dict[str, Attr] = {
            "mcp.method.name": req.method,
            "jsonrpc.request.id": req.id_value if isinstance(req.id_value, str) else req.rpc_id,
            "network.transport": self.transport or "pipe",
        }
        if self.transport == "tcp":
            attrs["network.protocol.name"] = "http"
        version = req.protocol_version or self.protocol_version
        if version:
            attrs["mcp.protocol.version"] = version
        sid = req.mcp_session_id or self._mcp_session_id
        if sid:
            attrs["mcp.session.id"] = sid
        target = None
        name = params.get("name")
        if req.method == "tools/call" and isinstance(name, str):
            attrs["gen_ai.tool.name"] = target = name
            attrs["gen_ai.operation.name"] = "execute_tool"
            if self.content and "arguments" in params:
                attrs["gen_ai.tool.call.arguments"] = _content(params["arguments"])
        elif req.method == "prompts/get" and isinstance(name, str):
            attrs["gen_ai.prompt.name"] = target = name
        if req.method in _RESOURCE_METHODS and isinstance(params.get("uri"), str):
            attrs["mcp.resource.uri"] = params["uri"]
        if req.direction == "c2s" and self.server_url:
            attrs.update(_server(self.server_url))
        attrs["mcp_inspector.session.id"] = self.session_id
        attrs["mcp_inspector.request.seq"] = req.seq
        attrs.update(extra)
        meta = params.get("_meta")
        parent = (
            parse_traceparent(meta.get("traceparent"), meta.get("tracestate"))
            if isinstance(meta, dict)
            else None
        )
        return SpanDescription(
            name=f"{req.method} {target}" if target else req.method,
            kind="client" if req.direction == "c2s" else "server",
            start_ns=req.ts_ns,
            end_ns=max(end_ns, req.ts_ns),
            attributes=attrs,
            parent=parent,
            error=error,
        )
