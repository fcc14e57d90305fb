"""Hand-made 2026-07-28 exchanges for the lint tests: a clean POST as the spec shows it, and one case
per 2026-07-28 wire rule (inspector/lint/wire2026.py), each breaking it once. Built through the
recorder's own `MessageBuilder` (`tests.lint_recordings.Http` / `Stdio`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.lint_recordings import ACCEPT_BOTH, Http, Stdio, notification, request, result

REV = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": REV,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "hand", "version": "1"},
}
REGION_TOOL = {
    "name": "execute_sql",
    "inputSchema": {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
        },
        "required": ["region", "query"],
    },
}
CACHE = {"ttlMs": 0, "cacheScope": "private"}
DONE = {"content": [{"type": "text", "text": "ok"}], "isError": False, "resultType": "complete"}

Case = Callable[[], tuple[list[dict[str, Any]], int]]
WIRE_CASES: dict[str, Case] = {}


def case(rule_id: str) -> Callable[[Case], Case]:
    def register(fn: Case) -> Case:
        WIRE_CASES[rule_id] = fn
        return fn

    return register


def call(rpc_id: int, method: str, params: dict[str, Any] | None = None, log: bool = False) -> dict[str, Any]:
    meta = {**META, "io.modelcontextprotocol/logLevel": "info"} if log else META
    return request(rpc_id, method, {**(params or {}), "_meta": meta})


def headers(method: str, name: str | None = None, **extra: str) -> dict[str, str]:
    out = {
        "accept": ACCEPT_BOTH,
        "content-type": "application/json",
        "mcp-protocol-version": REV,
        "mcp-method": method,
    }
    if name is not None:
        out["mcp-name"] = name
    return {**out, **extra}


def listed() -> Http:
    """A 2026-07-28 session whose tools/list named `execute_sql` (Region mirrored into a header)."""
    s = Http()
    s.post(
        call(1, "tools/list"),
        headers("tools/list"),
        answer=result(1, {"tools": [REGION_TOOL], **CACHE, "resultType": "complete"}),
    )
    return s


def sql(region: str = "us-west1") -> dict[str, Any]:
    return call(
        2, "tools/call", {"name": "execute_sql", "arguments": {"region": region, "query": "SELECT 1"}}
    )


def clean() -> Http:
    """Every rule kept: the spec's own examples."""
    s = listed()
    s.post(
        sql(),
        headers("tools/call", "execute_sql", **{"mcp-param-region": "us-west1"}),
        answer=result(2, DONE),
    )
    greeting = "Hello, 世界"
    s.post(
        call(3, "prompts/get", {"name": greeting}),
        headers("prompts/get", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        answer=result(3, {"messages": [], "resultType": "complete"}),
    )
    return s


@case("routing-header-mismatch")
def _name_mismatch() -> tuple[list[dict[str, Any]], int]:
    s = listed()
    return s.rows, s.post(sql(), headers("tools/call", "drop_tables", **{"mcp-param-region": "us-west1"}))


@case("routing-header-missing")
def _missing() -> tuple[list[dict[str, Any]], int]:
    s = listed()
    return s.rows, s.post(sql(), headers("tools/call", "execute_sql"))


@case("routing-header-invalid")
def _bad_base64() -> tuple[list[dict[str, Any]], int]:
    s = listed()
    return s.rows, s.post(
        sql(), headers("tools/call", "=?base64?not base64!?=", **{"mcp-param-region": "us-west1"})
    )


@case("protocol-version-header-mismatch")
def _version_mismatch() -> tuple[list[dict[str, Any]], int]:
    s = listed()
    sent = headers(
        "tools/call", "execute_sql", **{"mcp-param-region": "us-west1", "mcp-protocol-version": "2025-11-25"}
    )
    return s.rows, s.post(sql(), sent)


@case("cache-hints-missing")
def _no_cache_hints() -> tuple[list[dict[str, Any]], int]:
    s = Http()
    seq = s.post(
        call(1, "tools/list"),
        headers("tools/list"),
        answer=result(1, {"tools": [], "resultType": "complete"}),
    )
    return s.rows, seq + 1


@case("log-message-without-level")
def _log_without_level() -> tuple[list[dict[str, Any]], int]:
    s = listed()
    message = notification("notifications/message", {"level": "info", "data": "hi"})
    seq = s.post(
        sql(),
        headers("tools/call", "execute_sql", **{"mcp-param-region": "us-west1"}),
        answer=message,
    )
    return s.rows, seq + 1


@case("session-id-in-2026")
def _session_id() -> tuple[list[dict[str, Any]], int]:
    s = listed()
    sent = headers("tools/call", "execute_sql", **{"mcp-param-region": "us-west1", "mcp-session-id": "abc"})
    return s.rows, s.post(sql(), sent, answer=result(2, DONE))


@case("error-code-renumbered")
def _old_header_mismatch_code() -> tuple[list[dict[str, Any]], int]:
    s = listed()
    error = {"jsonrpc": "2.0", "id": 2, "error": {"code": -32001, "message": "Header mismatch: Mcp-Name"}}
    seq = s.post(
        sql(),
        headers("tools/call", "execute_sql", **{"mcp-param-region": "us-west1"}),
        answer=error,
        status=400,
    )
    return s.rows, seq + 1


@case("method-removed")
def _ping() -> tuple[list[dict[str, Any]], int]:
    s = Http()
    return s.rows, s.post(call(1, "ping"), headers("ping"), answer=result(1, {}))


@case("feature-deprecated")
def _sampling() -> tuple[list[dict[str, Any]], int]:
    s = Stdio()
    s.send("c2s", call(1, "tools/call", {"name": "ask", "arguments": {}}))
    sampling = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}
    answer = {"inputRequests": {"k": sampling}, "requestState": "s", "resultType": "input_required"}
    return s.rows, s.send("s2c", result(1, answer))
