"""Each lint rule, on a hand-made recording that breaks it once, gives exactly that finding."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from inspector.lint import RULES, check_rows
from tests.lint_auth_recordings import AUTH_CASES
from tests.lint_recordings import (
    Http,
    Stdio,
    initialize,
    initialized_result,
    notification,
    request,
    result,
)
from tests.lint_skills_recordings import SKILLS_CASES
from tests.lint_wire_recordings import WIRE_CASES

Case = Callable[[], tuple[list[dict[str, Any]], int]]  # rows, seq of the offending message
CASES: dict[str, Case] = {}


def case(rule_id: str) -> Callable[[Case], Case]:
    def register(fn: Case) -> Case:
        CASES[rule_id] = fn
        return fn

    return register


@case("malformed-json")
def _malformed() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    return s.rows, s.send("s2c", b'{"jsonrpc": "2.0", "id": 1, "result": {')


@case("invalid-jsonrpc")
def _invalid_jsonrpc() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    return s.rows, s.send("c2s", {"jsonrpc": "2.0", "id": 4})


@case("method-not-in-revision")
def _method_gate() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake("2025-11-25")
    # server/discover only exists in 2026-07-28; sent without its _meta, it falls under the negotiated revision.
    return s.rows, s.send("c2s", request(1, "server/discover"))


@case("unknown-method")
def _unknown_method() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    return s.rows, s.send("c2s", request(1, "acme/frobnicate", {}))


@case("invalid-shape")
def _invalid_shape() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    return s.rows, s.send("c2s", request(1, "tools/call", {"arguments": {}}))  # no tool name


@case("unknown-response-id")
def _unknown_response() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    return s.rows, s.send("s2c", result(99, {"tools": []}))


@case("error-id-null")
def _error_id_null() -> tuple[list[dict[str, Any]], int]:
    # Over stdio the error is an orphan: the client's latest message was a readable request.
    s = Stdio().handshake()
    s.send("c2s", request(7, "tools/list"))
    return s.rows, s.send("s2c", {"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": "x"}})


@case("error-id-null-in-revision")
def _error_id_null_in_revision() -> tuple[list[dict[str, Any]], int]:
    # No readable request waits (the client's last message was a notification): JSON-RPC's null id,
    # but 2025-06-18's schema gives every response a string or number id.
    s = Stdio().handshake("2025-06-18")
    return s.rows, s.send("s2c", {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}})


@case("duplicate-request-id")
def _duplicate_id() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    s.send("c2s", request(1, "tools/list"))
    s.send("s2c", result(1, {"tools": []}))
    seq = s.send("c2s", request(1, "tools/list"))
    s.send("s2c", result(1, {"tools": []}))
    return s.rows, seq


@case("request-before-initialization")
def _before_init() -> tuple[list[dict[str, Any]], int]:
    s = Stdio()
    s.send("c2s", initialize("2025-11-25"))
    seq = s.send("c2s", request(1, "tools/list"))
    s.send("s2c", initialized_result("2025-11-25"))
    s.send("c2s", notification("notifications/initialized"))
    s.send("s2c", result(1, {"tools": []}))
    return s.rows, seq


@case("initialize-in-batch")
def _init_in_batch() -> tuple[list[dict[str, Any]], int]:
    s = Stdio()
    seq = s.send("c2s", [initialize("2025-03-26")])
    s.send("s2c", initialized_result("2025-03-26"))
    s.send("c2s", notification("notifications/initialized"))
    return s.rows, seq


@case("batch-not-allowed")
def _batch() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake("2025-06-18")
    seq = s.send("c2s", [request(1, "tools/list"), request(2, "resources/list")])
    s.send("s2c", result(1, {"tools": []}))
    s.send("s2c", result(2, {"resources": []}))
    return s.rows, seq


@case("client-capability-not-declared")
def _client_capability() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake(client={"sampling": {}})
    seq = s.send("s2c", request("r1", "roots/list"))
    s.send("c2s", result("r1", {"roots": []}))
    return s.rows, seq


@case("server-capability-not-declared")
def _server_capability() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()  # the server declares tools, resources and logging, not prompts
    seq = s.send("c2s", request(1, "prompts/list"))
    s.send("s2c", result(1, {"prompts": []}))
    return s.rows, seq


_SAMPLING = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10}


@case("sampling-tools-not-declared")
def _sampling_tools() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake(client={"sampling": {}})
    tools = [{"name": "lookup", "inputSchema": {"type": "object"}}]
    seq = s.send("s2c", request("r1", "sampling/createMessage", {**_SAMPLING, "tools": tools}))
    answer = {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}
    s.send("c2s", result("r1", answer))
    return s.rows, seq


@case("elicitation-mode-not-declared")
def _elicitation_mode() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake(client={"elicitation": {}})  # form mode only
    params = {"mode": "url", "message": "Sign in", "url": "https://example.com/x", "elicitationId": "e1"}
    seq = s.send("s2c", request("r1", "elicitation/create", params))
    s.send("c2s", result("r1", {"action": "accept"}))
    return s.rows, seq


@case("logging-not-declared")
def _logging() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake(server={"tools": {}})
    return s.rows, s.send("s2c", notification("notifications/message", {"level": "info", "data": "x"}))


@case("list-changed-not-declared")
def _list_changed() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake(server={"tools": {}})
    return s.rows, s.send("s2c", notification("notifications/tools/list_changed"))


@case("http-accept-header")
def _accept() -> tuple[list[dict[str, Any]], int]:
    h = Http().handshake()
    headers = {**Http.headers(), "accept": "application/json"}
    return h.rows, h.post(request(1, "tools/list"), headers, answer=result(1, {"tools": []}))


@case("http-content-type")
def _content_type() -> tuple[list[dict[str, Any]], int]:
    h = Http().handshake()
    h.post(
        request(1, "tools/list"),
        Http.headers(),
        answer=result(1, {"tools": []}),
        response_headers={"content-type": "text/html"},
    )
    return h.rows, h.rows[-1]["seq"]


@case("http-202-with-body")
def _accepted_with_body() -> tuple[list[dict[str, Any]], int]:
    h = Http().handshake()
    seq = h.post(
        notification("notifications/cancelled", {"requestId": 1}), Http.headers(), answer={}, status=202
    )
    return h.rows, seq + 1


@case("http-get-answer")
def _get_answer() -> tuple[list[dict[str, Any]], int]:
    h = Http().handshake()
    meta = {"exchange": 99}
    sent = {**Http.headers(), "accept": "text/event-stream"}
    h.rows.append(
        h.builder.message(
            h.t + 1_000_000,
            "c2s",
            "http-request",
            b"",
            http_method="GET",
            http_path="/mcp",
            http_headers=[[k, v] for k, v in sent.items()],
            meta=meta,
        )
    )
    h.rows.append(
        h.builder.message(
            h.t + 2_000_000,
            "s2c",
            "http-response",
            b"{}",
            http_method="GET",
            http_path="/mcp",
            http_status=200,
            http_headers=[["content-type", "application/json"]],
            meta=meta,
        )
    )
    return h.rows, h.rows[-1]["seq"]


@case("http-session-id-missing")
def _session_missing() -> tuple[list[dict[str, Any]], int]:
    h = Http().handshake()
    return h.rows, h.post(
        request(1, "tools/list"), Http.headers(session_id=None), answer=result(1, {"tools": []})
    )


@case("http-session-id-invalid")
def _session_invalid() -> tuple[list[dict[str, Any]], int]:
    h = Http().handshake(session_id="bad id")
    return h.rows, 2  # the initialize response's head carries it


@case("http-protocol-version-missing")
def _version_missing() -> tuple[list[dict[str, Any]], int]:
    h = Http().handshake()
    headers = {k: v for k, v in Http.headers().items() if k != "mcp-protocol-version"}
    return h.rows, h.post(request(1, "tools/list"), headers, answer=result(1, {"tools": []}))


@case("http-protocol-version-mismatch")
def _version_mismatch() -> tuple[list[dict[str, Any]], int]:
    h = Http().handshake()
    return h.rows, h.post(
        request(1, "tools/list"), Http.headers("2025-06-18"), answer=result(1, {"tools": []})
    )


def _tool(name: str, description: str) -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": {"type": "object"}}


@case("tool-description-large")
def _tool_description_large() -> tuple[list[dict[str, Any]], int]:
    # one description over lint/sizes.py's 2,048 bytes; the list well under 40,000
    s = Stdio().handshake()
    s.send("c2s", request(1, "tools/list"))
    return s.rows, s.send("s2c", result(1, {"tools": [_tool("small", "Adds."), _tool("manual", "x" * 2049)]}))


@case("tools-list-large")
def _tools_list_large() -> tuple[list[dict[str, Any]], int]:
    # 25 tools of ~1,900 bytes each: none over 2,048, the list over 40,000
    s = Stdio().handshake()
    s.send("c2s", request(1, "tools/list"))
    tools = [_tool(f"t{i}", "d" * 1800) for i in range(25)]
    return s.rows, s.send("s2c", result(1, {"tools": tools}))


@case("revision-unknown")
def _revision_unknown() -> tuple[list[dict[str, Any]], int]:
    s = Stdio()  # a recording with no initialize exchange
    seq = s.send("c2s", request(1, "tools/list"))
    s.send("s2c", result(1, {"tools": []}))
    return s.rows, seq


@case("stdout-log-line")
def _stdout_log_line() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    return s.rows, s.send("s2c", b"INFO:root:Processing request of type ListToolsRequest")


@case("stdout-banner")
def _stdout_banner() -> tuple[list[dict[str, Any]], int]:
    s = Stdio()
    s.send("c2s", initialize("2025-11-25"))
    seq = s.send("s2c", b"== weather server 1.2 ==")
    s.send("s2c", initialized_result("2025-11-25"))
    s.send("c2s", notification("notifications/initialized"))
    return s.rows, seq


@case("stdout-pretty-json")
def _stdout_pretty_json() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    s.send("c2s", request(1, "ping"))
    seq = s.send("s2c", b"{")
    for line in (b'  "jsonrpc": "2.0",', b'  "id": 1,', b'  "result": {}', b"}"):
        s.send("s2c", line)
    return s.rows, seq


@case("stdout-content-length")
def _stdout_content_length() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    seq = s.send("s2c", b"Content-Length: 54\r\n")
    s.send("s2c", notification("notifications/message", {"level": "info", "data": "x"}))
    return s.rows, seq


@case("stdout-bom")
def _stdout_bom() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    return s.rows, s.send(
        "s2c", b'\xef\xbb\xbf{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}'
    )


@case("stdout-crlf")
def _stdout_crlf() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    s.send("c2s", request(1, "ping"))
    return s.rows, s.send("s2c", b'{"jsonrpc": "2.0", "id": 1, "result": {}}\r\n')


@case("stdout-partial-line")
def _stdout_partial_line() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    s.send("c2s", request(1, "ping"))
    s.builder.feed(s.t + 1, "s2c", "stdout", b'{"jsonrpc": "2.0", "id": 1, "result": {}}')
    s.rows += [dict(r) for r in s.builder.close_stream(s.t + 2, "s2c", "stdout")]
    return s.rows, s.rows[-1]["seq"]


@case("server-crashed")
def _server_crashed() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    seq = s.send("c2s", request(1, "ping"))
    traceback = b'Traceback (most recent call last):\n  File "server.py", line 9, in <module>\nKeyError: 1\n'
    s.rows += [dict(r) for r in s.builder.feed(s.t + 1, "s2c", "stderr", traceback)]
    return s.rows, seq


CASES.update(AUTH_CASES)  # the authorization rules' cases (tests/lint_auth_recordings.py)
CASES.update(WIRE_CASES)  # the 2026-07-28 wire rules' cases (tests/lint_wire_recordings.py)
CASES.update(SKILLS_CASES)  # the Skills extension's (SEP-2640) cases (tests/lint_skills_recordings.py)


def test_every_rule_has_a_case() -> None:
    assert set(CASES) == set(RULES)


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_gives_exactly_its_finding(rule_id: str) -> None:
    rows, seq = CASES[rule_id]()
    findings = check_rows(rows)
    assert [(f.rule, f.seq) for f in findings] == [(rule_id, seq)], [f.to_json() for f in findings]
    found = findings[0]
    assert found.severity == RULES[rule_id].severity
    assert "https://modelcontextprotocol.io/specification/" in found.spec_section
    assert found.explanation


def test_elicitation_without_the_capability_before_modes_is_a_warning() -> None:
    """Before 2025-11-25 there are no modes: an undeclared elicitation is the general SHOULD (a warning)."""
    s = Stdio().handshake("2025-06-18", client={})
    params = {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}
    seq = s.send("s2c", request("r1", "elicitation/create", params))
    assert [(f.rule, f.seq, f.severity) for f in check_rows(s.rows)] == [
        ("client-capability-not-declared", seq, "warning")
    ]


def test_method_from_a_later_revision_names_where_it_exists() -> None:
    s = Stdio().handshake("2025-03-26", client={"elicitation": {}})
    params = {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}
    seq = s.send("s2c", request("r1", "elicitation/create", params))
    (finding,) = check_rows(s.rows)
    assert (finding.rule, finding.seq, finding.revision) == ("method-not-in-revision", seq, "2025-03-26")
    assert "2025-06-18" in finding.explanation


def test_a_parse_error_with_null_id_is_not_an_unknown_response() -> None:
    s = Stdio().handshake()
    bad = s.send("c2s", b"{oops")
    s.send("s2c", {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
    assert [(f.rule, f.seq) for f in check_rows(s.rows)] == [("malformed-json", bad)]


def test_min_severity_drops_milder_findings() -> None:
    rows, _seq = CASES["request-before-initialization"]()
    assert check_rows(rows, min_severity="error") == []
    assert [f.rule for f in check_rows(rows, min_severity="warning")] == ["request-before-initialization"]


def test_stateless_requests_use_their_own_revision() -> None:
    """2026-07-28 requests carry their revision in _meta: logging/setLevel is gone there (removed)."""
    meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    s = Stdio()
    seq = s.send("c2s", request(1, "logging/setLevel", {"level": "info", **meta}))
    (finding,) = check_rows(s.rows)
    assert (finding.rule, finding.seq, finding.revision) == ("method-removed", seq, "2026-07-28")


def test_null_id_error_to_a_readable_request_is_flagged_in_every_revision() -> None:
    for version in ("2024-11-05", "2025-06-18", "2025-11-25"):
        s = Stdio().handshake(version)
        s.send("c2s", request("a", "ping"))
        seq = s.send("s2c", {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "x"}})
        assert [(f.rule, f.seq) for f in check_rows(s.rows)] == [("error-id-null", seq)], version


def test_null_id_error_after_an_answered_request_is_not_blamed_on_it() -> None:
    s = Stdio().handshake()
    s.send("c2s", request(1, "ping"))
    s.send("s2c", result(1, {}))
    s.send("s2c", {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "x"}})
    assert check_rows(s.rows) == []
