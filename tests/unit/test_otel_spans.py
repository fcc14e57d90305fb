"""The sans-IO mapping of recorded rows to OpenTelemetry span descriptions (`inspector/otel/spans.py`).

Rows come from the recorder's own `MessageBuilder` fed the bytes a peer would
send, so pairing (answers_seq, batch items, cancels) is the recorder's.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import inspector.otel.spans
from inspector.capture.builder import MessageBuilder
from inspector.otel.spans import CLIENT_DURATION, SERVER_DURATION, SpanMapper, parse_traceparent
from inspector.store.models import MessageRow

TRACE = "0af7651916cd43dd8448eb211c80319c"
PARENT = "b7ad6b7169203331"


class Wire:
    """Bytes in, rows out, spans out: one stdio session."""

    def __init__(self, mapper: SpanMapper | None = None) -> None:
        self.builder = MessageBuilder(7)
        self.mapper = mapper or SpanMapper(7)
        self.ts = 1_000_000_000
        self.rows: list[MessageRow] = []

    def send(self, direction: str, *messages: Any, gap_ms: int = 10) -> list[Any]:
        self.ts += gap_ms * 1_000_000
        data = b"".join(json.dumps(m).encode() + b"\n" for m in messages)
        channel = "stdin" if direction == "c2s" else "stdout"
        rows = self.builder.feed(self.ts, direction, channel, data)  # type: ignore[arg-type]
        self.rows.extend(rows)
        return [span for row in rows for span in self.mapper.feed(row)]

    def batch(self, direction: str, items: list[Any]) -> list[Any]:
        self.ts += 10_000_000
        channel = "stdin" if direction == "c2s" else "stdout"
        rows = self.builder.feed(self.ts, direction, channel, json.dumps(items).encode() + b"\n")  # type: ignore[arg-type]
        return [span for row in rows for span in self.mapper.feed(row)]


def req(i: Any, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "method": method, "params": params}


def ok(i: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "result": result}


def handshake(wire: Wire) -> None:
    assert wire.send("c2s", req(1, "initialize", protocolVersion="2025-06-18", capabilities={})) == []
    [span] = wire.send("s2c", ok(1, {"protocolVersion": "2025-06-18", "capabilities": {}}))
    assert span.name == "initialize" and span.attributes["mcp.protocol.version"] == "2025-06-18"


def test_client_request_is_a_client_span_with_recorded_times_and_attributes() -> None:
    wire = Wire()
    handshake(wire)
    wire.send("c2s", req(2, "tools/call", name="echo", arguments={"text": "hi"}))
    start = wire.ts
    [span] = wire.send("s2c", ok(2, {"content": [{"type": "text", "text": "hi"}]}), gap_ms=250)
    assert span.name == "tools/call echo"
    assert span.kind == "client" and span.metric == CLIENT_DURATION
    assert (span.start_ns, span.end_ns) == (start, start + 250_000_000)
    assert span.duration_s == 0.25
    assert span.attributes == {
        "mcp.method.name": "tools/call",
        "jsonrpc.request.id": "2",
        "network.transport": "pipe",
        "mcp.protocol.version": "2025-06-18",
        "gen_ai.tool.name": "echo",
        "gen_ai.operation.name": "execute_tool",
        "mcp_inspector.session.id": 7,
        "mcp_inspector.request.seq": 3,
    }
    assert not span.error and span.parent is None
    assert "gen_ai.tool.call.arguments" not in span.attributes  # opt-in only
    assert span.metric_attributes() == {
        "mcp.method.name": "tools/call",
        "mcp.protocol.version": "2025-06-18",
        "network.transport": "pipe",
        "gen_ai.tool.name": "echo",
        "gen_ai.operation.name": "execute_tool",
    }


def test_server_to_client_request_flips_the_kind() -> None:
    wire = Wire()
    handshake(wire)
    assert wire.send("s2c", req(0, "sampling/createMessage", messages=[], maxTokens=5)) == []
    [span] = wire.send("c2s", ok(0, {"role": "assistant", "content": {"type": "text", "text": "42"}}))
    assert span.kind == "server" and span.metric == SERVER_DURATION
    assert span.name == "sampling/createMessage"
    assert span.attributes["jsonrpc.request.id"] == "0"


def test_errors_tool_errors_and_their_status() -> None:
    wire = Wire()
    handshake(wire)
    wire.send("c2s", req("a", "resources/read", uri="demo://x"))
    [failed] = wire.send(
        "s2c", {"jsonrpc": "2.0", "id": "a", "error": {"code": -32002, "message": "no such"}}
    )
    assert failed.error and failed.status_message == "no such"
    assert failed.attributes["error.type"] == "-32002"
    assert failed.attributes["rpc.response.status_code"] == "-32002"
    assert failed.attributes["jsonrpc.request.id"] == "a"  # a string id as itself, not as JSON text
    assert failed.attributes["mcp.resource.uri"] == "demo://x"
    assert failed.metric_attributes()["error.type"] == "-32002"
    wire.send("c2s", req(3, "tools/call", name="fail", arguments={}))
    [tool] = wire.send("s2c", ok(3, {"content": [], "isError": True}))
    assert tool.error and tool.attributes["error.type"] == "tool_error"
    assert "rpc.response.status_code" not in tool.attributes


def test_notifications_are_no_spans_and_cancel_or_silence_end_at_the_session_end() -> None:
    wire = Wire()
    handshake(wire)
    assert wire.send("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}) == []
    wire.send("c2s", req(5, "tools/call", name="slow", arguments={}, _meta={"progressToken": 1}))
    assert (
        wire.send(
            "s2c",
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": 1, "progress": 1},
            },
        )
        == []
    )
    assert (
        wire.send("c2s", {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}})
        == []
    )
    cancelled_at = wire.ts
    wire.send("c2s", req(6, "ping"))
    spans = wire.mapper.finish(wire.ts + 5)
    assert [(s.name, s.attributes["error.type"], s.error) for s in spans] == [
        ("tools/call slow", "cancelled", True),
        ("ping", "no_response", True),
    ]
    assert spans[0].end_ns == cancelled_at and spans[1].end_ns == wire.ts + 5
    assert wire.mapper.finish(wire.ts + 10) == []  # each once


def test_batch_items_pair_as_recorded() -> None:
    wire = Wire()
    handshake(wire)
    assert (
        wire.batch(
            "c2s",
            [
                req(10, "tools/list"),
                req(11, "prompts/get", name="review"),
                {"jsonrpc": "2.0", "method": "notifications/x"},
            ],
        )
        == []
    )
    spans = wire.batch(
        "s2c",
        [
            ok(11, {"messages": []}),
            {"jsonrpc": "2.0", "id": 10, "error": {"code": -32601, "message": "nope"}},
        ],
    )
    by_name = {s.name: s for s in spans}
    assert set(by_name) == {"tools/list", "prompts/get review"}
    assert by_name["prompts/get review"].attributes["gen_ai.prompt.name"] == "review"
    assert by_name["tools/list"].attributes["error.type"] == "-32601"
    assert all(s.attributes["mcp_inspector.request.seq"] == 3 for s in spans)  # the batch's row


def test_traceparent_in_meta_names_the_parent() -> None:
    wire = Wire()
    handshake(wire)
    meta = {"traceparent": f"00-{TRACE}-{PARENT}-01", "tracestate": "vendor=x"}
    wire.send("c2s", req(2, "tools/list", _meta=meta))
    [span] = wire.send("s2c", ok(2, {"tools": []}))
    assert span.parent is not None
    assert (span.parent.trace_id, span.parent.span_id, span.parent.flags) == (
        int(TRACE, 16),
        int(PARENT, 16),
        1,
    )
    assert span.parent.tracestate == "vendor=x"


def test_traceparent_validation() -> None:
    assert parse_traceparent(f"00-{TRACE}-{PARENT}-00") is not None
    assert parse_traceparent(f"00-{'0' * 32}-{PARENT}-01") is None  # all-zero trace id
    assert parse_traceparent(f"00-{TRACE}-{'0' * 16}-01") is None
    assert parse_traceparent(f"ff-{TRACE}-{PARENT}-01") is None
    assert parse_traceparent(f"00-{TRACE.upper()}-{PARENT}-01") is None
    assert parse_traceparent(f"00-{TRACE}-{PARENT}-01-extra") is None  # version 00 has no more fields
    assert parse_traceparent(f"01-{TRACE}-{PARENT}-01-extra") is not None  # a later version may
    assert parse_traceparent(42) is None and parse_traceparent("garbage") is None


def test_tool_content_only_when_opted_in() -> None:
    wire = Wire(SpanMapper(7, content=True))
    handshake(wire)
    wire.send("c2s", req(2, "tools/call", name="echo", arguments={"text": "hi"}))
    [span] = wire.send("s2c", ok(2, {"content": [{"type": "text", "text": "hi"}]}))
    assert json.loads(str(span.attributes["gen_ai.tool.call.arguments"])) == {"text": "hi"}
    assert json.loads(str(span.attributes["gen_ai.tool.call.result"])) == {
        "content": [{"type": "text", "text": "hi"}]
    }


def test_stateless_revision_version_from_meta_and_http_session_id_from_headers() -> None:
    builder = MessageBuilder(3)
    mapper = SpanMapper(3, transport="tcp")
    pv = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    body = json.dumps(req(1, "tools/list", _meta=pv)).encode()
    headers = [["content-type", "application/json"], ["Mcp-Session-Id", "abc123"]]
    row = builder.message(
        1, "c2s", "http-request", body, http_method="POST", http_path="/mcp", http_headers=headers
    )
    assert mapper.feed(row) == []
    answer = builder.message(
        2, "s2c", "http-response", json.dumps(ok(1, {"tools": []})).encode(), http_status=200
    )
    [span] = mapper.feed(answer)
    assert span.attributes["mcp.protocol.version"] == "2026-07-28"
    assert span.attributes["mcp.session.id"] == "abc123"
    assert span.attributes["network.transport"] == "tcp"
    assert span.attributes["network.protocol.name"] == "http"
    inferred = SpanMapper(3, transport=None)
    inferred.feed(row)
    assert inferred.feed(answer)[0].attributes["network.transport"] == "tcp"


def test_a_row_that_is_not_json_or_unpaired_gives_nothing() -> None:
    wire = Wire()
    assert wire.send("s2c", ok(99, {})) == []  # an orphan response
    wire.ts += 1
    rows = wire.builder.feed(wire.ts, "c2s", "stdin", b"not json\n")
    assert [s for r in rows for s in wire.mapper.feed(r)] == []


def test_the_mapping_is_sans_io() -> None:
    tree = ast.parse(Path(inspector.otel.spans.__file__).read_text())
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert not {
        m
        for m in imported
        if m.split(".")[0] in {"opentelemetry", "socket", "threading", "time", "sqlalchemy", "os"}
    }


def test_client_spans_of_an_http_target_name_the_server() -> None:
    wire = Wire(SpanMapper(7, server_url="https://user:pw@mcp.example.com/mcp?x=1"))
    handshake(wire)
    wire.send("c2s", req(2, "tools/list"))
    [client] = wire.send("s2c", ok(2, {"tools": []}))
    assert (client.attributes["server.address"], client.attributes["server.port"]) == ("mcp.example.com", 443)
    wire.send("s2c", req(0, "roots/list"))
    [server] = wire.send("c2s", ok(0, {"roots": []}))
    assert "server.address" not in server.attributes  # the server is the caller there
    assert (
        "server.address" not in server.metric_attributes() and "server.port" not in client.metric_attributes()
    )
    for url, expected in (
        ("http://127.0.0.1:8000/mcp", ("127.0.0.1", 8000)),
        ("http://[::1]:9/", ("::1", 9)),
        ("http://localhost", ("localhost", 80)),
    ):
        wire = Wire(SpanMapper(7, server_url=url))
        wire.send("c2s", req(1, "ping"))
        [span] = wire.send("s2c", ok(1, {}))
        assert (span.attributes["server.address"], span.attributes["server.port"]) == expected
    wire = Wire(SpanMapper(7, server_url="not a url"))
    wire.send("c2s", req(1, "ping"))
    assert "server.address" not in wire.send("s2c", ok(1, {}))[0].attributes
