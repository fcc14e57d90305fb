"""The 2026-07-28 routing headers: value encoding against the spec's table, round trips, body agreement."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.lint import check_rows
from inspector.protocol.routing_headers import decode_value, encode_value, param_headers, routing_of
from tests.lint_recordings import Stdio, request, result
from tests.lint_wire_recordings import META, REGION_TOOL

# basic/transports/streamable-http, "Value Encoding", the encoding examples table.
SPEC_TABLE = [
    ("us-west1", "us-west1"),
    ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
    (" padded ", "=?base64?IHBhZGRlZCA=?="),
    ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
    ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
]


@pytest.mark.parametrize(("value", "header"), SPEC_TABLE)
def test_the_spec_encoding_table(value: str, header: str) -> None:
    assert encode_value(value) == header
    assert decode_value(header) == (value, header != value, None)


@settings(max_examples=60, deadline=None)
@given(st.text())
def test_any_text_round_trips(value: str) -> None:
    header = encode_value(value)
    assert all(0x20 <= ord(ch) <= 0x7E for ch in header)
    assert decode_value(header)[0] == value


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=1))
def test_a_sentinel_of_bytes_that_are_not_utf8_is_invalid(data: bytes) -> None:
    header = "=?base64?" + base64.b64encode(data).decode() + "?="
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        assert decode_value(header)[0] is None and decode_value(header)[2]
    else:
        assert decode_value(header)[0] == text


@pytest.mark.parametrize("bad", ["=?base64?not base64!?=", "=?base64?SGk?=", "=?base64?SGl=?="])
def test_malformed_or_non_canonical_base64_is_invalid(bad: str) -> None:
    decoded, encoded, problem = decode_value(bad)
    assert decoded is None and encoded and problem


def test_a_plain_value_with_a_control_character_is_invalid() -> None:
    assert decode_value("a\x01b")[0] is None


def test_x_mcp_header_paths_follow_properties_only() -> None:
    schema = {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "nested": {
                "type": "object",
                "properties": {"tenant": {"type": "string", "x-mcp-header": "Tenant"}},
            },
            "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
        },
    }
    assert param_headers(schema) == {
        "region": ("Region", ("region",)),
        "tenant": ("Tenant", ("nested", "tenant")),
    }


def _call(name: str, arguments: dict[str, object]) -> dict[str, object]:
    return request(1, "tools/call", {"name": name, "arguments": arguments, "_meta": META})


def test_routing_of_a_request_checks_every_header_against_the_body() -> None:
    body = _call("execute_sql", {"region": "eu 🇪🇺", "query": "x"})
    headers = [
        ["MCP-Protocol-Version", "2026-07-28"],
        ["Mcp-Method", "tools/call"],
        ["Mcp-Name", "execute_sql"],
        ["Mcp-Param-Region", encode_value("eu 🇪🇺")],
    ]
    routing = routing_of(headers, body, tool_schemas={"execute_sql": REGION_TOOL["inputSchema"]})
    assert routing is not None and routing.required
    assert [(h.name, h.status) for h in routing.headers] == [
        ("MCP-Protocol-Version", "agrees"),
        ("Mcp-Method", "agrees"),
        ("Mcp-Name", "agrees"),
        ("Mcp-Param-Region", "agrees"),
    ]
    assert routing.headers[3].decoded == "eu 🇪🇺" and routing.headers[3].encoded
    assert routing.problems == []


def test_routing_without_the_tool_schema_shows_param_headers_unchecked() -> None:
    body = _call("execute_sql", {"region": "a"})
    headers = {
        "Mcp-Method": "tools/call",
        "Mcp-Name": "execute_sql",
        "Mcp-Param-Region": "b",
        "MCP-Protocol-Version": "2026-07-28",
    }
    routing = routing_of(headers, body)
    assert routing is not None
    assert [(h.name, h.status) for h in routing.headers][-1] == ("Mcp-Param-Region", "unchecked")


def test_integers_compare_numerically() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}}
    body = _call("t", {"n": 42})
    headers = {
        "Mcp-Method": "tools/call",
        "Mcp-Name": "t",
        "Mcp-Param-N": "42.0",
        "MCP-Protocol-Version": "2026-07-28",
    }
    routing = routing_of(headers, body, tool_schemas={"t": schema})
    assert routing is not None and routing.problems == []


def test_an_older_request_has_nothing_required() -> None:
    routing = routing_of({}, request(1, "tools/list", {}))
    assert routing is not None and not routing.required and routing.headers == []
    assert routing_of({}, {"jsonrpc": "2.0", "method": "notifications/x"}) is None


def test_tasks_methods_are_not_unknown_when_the_server_declares_the_extension() -> None:
    def run(extensions: dict[str, object]) -> list[str]:
        s = Stdio()
        discover = {
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}, "extensions": extensions},
            "serverInfo": {"name": "s", "version": "1"},
            "resultType": "complete",
            "ttlMs": 0,
            "cacheScope": "private",
        }
        s.send("c2s", request(1, "server/discover", {"_meta": META}))
        s.send("s2c", result(1, discover))
        s.send("c2s", request(2, "tasks/get", {"taskId": "t1", "_meta": META}))
        return [f.rule for f in check_rows(s.rows)]

    assert run({"io.modelcontextprotocol/tasks": {}}) == []
    assert run({}) == ["unknown-method"]


def test_dynamic_client_registration_is_told_deprecated_in_a_2026_session_only() -> None:
    from tests.lint_auth_recordings import AuthFlow, good_flow
    from tests.lint_wire_recordings import CACHE, call, headers

    flow = AuthFlow()
    seqs = flow.authorize()
    flow.post(
        call(1, "tools/list"),
        headers("tools/list"),
        answer=result(1, {"tools": [], **CACHE, "resultType": "complete"}),
    )
    found = [(f.rule, f.seq, f.severity) for f in check_rows(flow.rows)]
    assert found == [("feature-deprecated", seqs["register_req"], "info")]
    assert "Client ID Metadata" in check_rows(flow.rows)[0].explanation
    older, _ = good_flow("2025-11-25")
    assert check_rows(older.rows) == []


def test_the_spec_examples_are_lint_clean() -> None:
    """tools/list naming an x-mcp-header tool, its call with Mcp-Param-Region, a base64 Mcp-Name."""
    from tests.lint_wire_recordings import clean

    assert check_rows(clean().rows) == []
