"""The spec rules of server-to-client exchanges (inspector/protocol/client_answers.py, sampling_rules.py)."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.protocol.client_answers import check_answer, check_exchange, check_request, valid_roots
from inspector.protocol.rule_findings import Finding, schema_findings

CAPS = {"sampling": {"tools": {}}, "elicitation": {"form": {}, "url": {}}, "roots": {}}
WEATHER = {
    "name": "get_weather",
    "inputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string", "minLength": 2}},
        "required": ["city"],
    },
}
ASK = {"role": "user", "content": {"type": "text", "text": "Weather in Paris and London?"}}
USES = {
    "role": "assistant",
    "content": [
        {"type": "tool_use", "id": "a", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "b", "name": "get_weather", "input": {"city": "London"}},
    ],
}
USE_PARIS = {"type": "tool_use", "id": "u1", "name": "get_weather", "input": {"city": "Paris"}}
SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer", "minimum": 0},
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "at": {"type": "string", "format": "date-time"},
        "colors": {"type": "array", "items": {"type": "string", "enum": ["red", "blue"]}},
    },
    "required": ["name"],
}
FORM = {"message": "Who are you?", "requestedSchema": SCHEMA}
URL = {"mode": "url", "message": "Log in", "url": "https://x.example/login", "elicitationId": "e1"}


def _results(*ids: str, extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    content = [
        {"type": "tool_result", "toolUseId": i, "content": [{"type": "text", "text": "18C"}]} for i in ids
    ]
    return {"role": "user", "content": content + (extra or [])}


def _sample(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"messages": list(messages), "maxTokens": 100, **extra}


def _reply(content: Any, stop: str | None = "endTurn", **extra: Any) -> dict[str, Any]:
    out = {"role": "assistant", "content": content, "model": "a-person", **extra}
    if stop is not None:
        out["stopReason"] = stop
    return out


def _found(findings: list[Finding]) -> set[tuple[str, str]]:
    return {(f.rule, f.level) for f in findings}


# Requests: what the server sent, and what it assumed of the client.


def test_valid_requests_have_no_findings() -> None:
    assert (
        check_request("sampling/createMessage", _sample(ASK, USES, _results("a", "b"), tools=[WEATHER]), CAPS)
        == []
    )
    assert check_request("sampling/createMessage", _sample(ASK), {"sampling": {}}) == []
    assert check_request("elicitation/create", FORM, {"elicitation": {}}) == []  # {}: form mode
    assert check_request("elicitation/create", URL, CAPS) == []
    assert check_request("roots/list", None, CAPS) == check_request("ping", None, {}) == []


@pytest.mark.parametrize(
    ("method", "params", "caps", "rule", "level", "words"),
    [
        ("sampling/createMessage", _sample(ASK, USES, _results("a")), CAPS, "sampling.tool-balance", "error", "no tool_result for tool_use id b"),
        ("sampling/createMessage", _sample(ASK, USES, _results("a", "b", "c")), CAPS, "sampling.tool-balance", "error", "unknown tool_use id c"),
        ("sampling/createMessage", _sample(ASK, USES, ASK), CAPS, "sampling.tool-balance", "error", "must be followed by a user message"),
        ("sampling/createMessage", _sample(ASK, USES), CAPS, "sampling.tool-balance", "error", "a, b has no tool_result"),
        ("sampling/createMessage", _sample(ASK, _results("a")), CAPS, "sampling.tool-balance", "error", "follow no assistant tool_use"),
        ("sampling/createMessage", _sample(ASK, USES, _results("a", "b", extra=[ASK["content"]])), CAPS, "sampling.tool-result-only", "error", "only tool results"),
        ("sampling/createMessage", _sample(ASK, USES, {**_results("a", "b"), "role": "assistant"}), CAPS, "sampling.tool-result-role", "error", "in a user message"),
        ("sampling/createMessage", _sample({**USES, "role": "user"}, _results("a", "b")), CAPS, "sampling.tool-use-role", "error", "in an assistant message"),
        ("sampling/createMessage", _sample({**ASK, "role": "system"}), CAPS, "sampling.message-role", "error", "'system'"),
        ("sampling/createMessage", _sample(), CAPS, "sampling.messages", "error", "missing or empty"),
        ("sampling/createMessage", {"messages": [ASK]}, CAPS, "sampling.max-tokens", "error", "maxTokens"),
        ("sampling/createMessage", "text", CAPS, "sampling.params", "error", "object"),
        ("sampling/createMessage", _sample(ASK), {}, "sampling.capability", "warning", "did not declare the sampling"),
        ("sampling/createMessage", _sample(ASK, tools=[WEATHER]), {"sampling": {}}, "sampling.tools-capability", "error", "did not declare the sampling.tools capability"),
        ("sampling/createMessage", _sample(ASK, toolChoice={"mode": "auto"}), CAPS, "sampling.tool-choice", "warning", "no tools are offered"),
        ("sampling/createMessage", _sample(ASK, tools=[WEATHER], toolChoice={"mode": "any"}), CAPS, "sampling.tool-choice", "error", "auto, required, none"),
        ("sampling/createMessage", _sample(ASK, includeContext="allServers"), CAPS, "sampling.include-context", "warning", "sampling.context"),
        ("elicitation/create", FORM, {}, "elicitation.capability", "warning", "did not declare"),
        ("elicitation/create", URL, {"elicitation": {}}, "elicitation.mode-capability", "error", "elicitation.url"),
        ("elicitation/create", FORM, {"elicitation": {"url": {}}}, "elicitation.mode-capability", "error", "elicitation.form"),
        ("elicitation/create", {**FORM, "mode": "popup"}, CAPS, "elicitation.mode", "error", "'popup'"),
        ("elicitation/create", {"requestedSchema": SCHEMA}, CAPS, "elicitation.message", "error", "message"),
        ("elicitation/create", {**URL, "url": "login"}, CAPS, "elicitation.url", "error", "'login'"),
        ("elicitation/create", {**URL, "url": "javascript:alert(1)"}, CAPS, "elicitation.url-scheme", "error", "javascript: is shown, never opened"),
        ("elicitation/create", {**URL, "url": "data:text/html,<b>x</b>"}, CAPS, "elicitation.url-scheme", "error", "data:"),
        ("elicitation/create", {**URL, "url": "file:///etc/passwd"}, CAPS, "elicitation.url-scheme", "error", "file:"),
        ("elicitation/create", {**URL, "elicitationId": ""}, CAPS, "elicitation.id", "error", "elicitationId"),
        ("elicitation/create", {"message": "m"}, CAPS, "elicitation.requested-schema", "error", "needs a requestedSchema"),
        ("elicitation/create", {"message": "m", "requestedSchema": {"type": 12}}, CAPS, "elicitation.requested-schema", "error", "not a valid JSON Schema"),
        ("elicitation/create", {"message": "m", "requestedSchema": {"type": "string"}}, CAPS, "elicitation.requested-schema", "error", '"object"'),
        ("elicitation/create", {"message": "m", "requestedSchema": {"type": "object", "properties": {"a": {"type": "object"}}}}, CAPS, "elicitation.requested-schema", "warning", "'a' is not a primitive"),
        ("roots/list", None, {"sampling": {}}, "roots.capability", "warning", "roots capability"),
    ],
)  # fmt: skip
def test_request_rules(method: str, params: Any, caps: Any, rule: str, level: str, words: str) -> None:
    found = check_request(method, params, caps)
    assert any(f.rule == rule and f.level == level and words in f.text for f in found), found


# Answers: what the client sent back.


def test_valid_answers_have_no_findings() -> None:
    assert (
        check_answer(
            "sampling/createMessage", _sample(ASK), {"result": _reply({"type": "text", "text": "hi"})}, CAPS
        )
        == []
    )
    offered = _sample(ASK, tools=[WEATHER], toolChoice={"mode": "required"})
    assert (
        check_answer("sampling/createMessage", offered, {"result": _reply([USE_PARIS], "toolUse")}, CAPS)
        == []
    )
    image = {"type": "image", "data": "aGk=", "mimeType": "image/png"}
    assert check_answer("sampling/createMessage", _sample(ASK), {"result": _reply([image], None)}, CAPS) == []
    good = {"name": "Ada", "age": 3, "email": "ada@x.org", "site": "https://ada.dev", "born": "1815-12-10",
            "at": "2025-11-25T10:00:00Z", "colors": ["red"]}  # fmt: skip
    assert (
        check_answer("elicitation/create", FORM, {"result": {"action": "accept", "content": good}}, CAPS)
        == []
    )
    assert check_answer("elicitation/create", FORM, {"result": {"action": "decline"}}, CAPS) == []
    assert check_answer("elicitation/create", URL, {"result": {"action": "accept"}}, CAPS) == []
    roots = {"roots": [{"uri": "file:///a", "name": "a", "_meta": {}}]}
    assert check_answer("roots/list", None, {"result": roots}, CAPS) == []
    assert check_answer("ping", None, {"result": {"_meta": {}}}, CAPS) == []
    assert check_answer("roots/list", None, {"error": {"code": -32601, "message": "no"}}, CAPS) == []


SAMPLE_TOOLS = _sample(ASK, tools=[WEATHER])


@pytest.mark.parametrize(
    ("method", "params", "answer", "caps", "rule", "level", "words"),
    [
        ("sampling/createMessage", SAMPLE_TOOLS, _reply([USE_PARIS], "endTurn"), CAPS, "sampling.stop-reason", "warning", 'stopReason "toolUse"'),
        ("sampling/createMessage", _sample(ASK), _reply({"type": "text", "text": "x"}, "toolUse"), CAPS, "sampling.stop-reason", "error", "needs at least one tool_use"),
        ("sampling/createMessage", _sample(ASK), _reply({"type": "text", "text": "x"}, stop=None, stopReason=3), CAPS, "sampling.stop-reason", "error", "must be a string"),
        ("sampling/createMessage", _sample(ASK), _reply([USE_PARIS], "toolUse"), CAPS, "sampling.tool-not-offered", "error", "offered no tools"),
        ("sampling/createMessage", SAMPLE_TOOLS, _reply([{**USE_PARIS, "name": "launch"}], "toolUse"), CAPS, "sampling.tool-not-offered", "error", "not one of the offered tools"),
        ("sampling/createMessage", SAMPLE_TOOLS, _reply([USE_PARIS], "toolUse"), {"sampling": {}}, "sampling.tools-capability", "error", "sampling.tools"),
        ("sampling/createMessage", SAMPLE_TOOLS, _reply([{**USE_PARIS, "input": {"city": 3}}], "toolUse"), CAPS, "sampling.tool-input", "warning", "input/city: 3 is not of type 'string'"),
        ("sampling/createMessage", SAMPLE_TOOLS, _reply([{**USE_PARIS, "input": {"city": "P"}}], "toolUse"), CAPS, "sampling.tool-input", "warning", "too short"),
        ("sampling/createMessage", SAMPLE_TOOLS, _reply([{**USE_PARIS, "input": "Paris"}], "toolUse"), CAPS, "sampling.tool-input", "error", "input must be an object"),
        ("sampling/createMessage", SAMPLE_TOOLS, _reply([USE_PARIS, USE_PARIS], "toolUse"), CAPS, "sampling.tool-use-id", "error", "duplicate id"),
        ("sampling/createMessage", SAMPLE_TOOLS, _reply([{**USE_PARIS, "id": ""}], "toolUse"), CAPS, "sampling.tool-use-id", "error", "non-empty id"),
        ("sampling/createMessage", {**SAMPLE_TOOLS, "toolChoice": {"mode": "none"}}, _reply([USE_PARIS], "toolUse"), CAPS, "sampling.tool-choice", "error", 'mode "none"'),
        ("sampling/createMessage", {**SAMPLE_TOOLS, "toolChoice": {"mode": "required"}}, _reply({"type": "text", "text": "x"}), CAPS, "sampling.tool-choice", "error", 'mode "required"'),
        ("sampling/createMessage", _sample(ASK), _reply([{"type": "tool_result", "toolUseId": "u1"}]), CAPS, "sampling.content", "error", "not allowed"),
        ("sampling/createMessage", _sample(ASK), _reply([{"type": "text"}]), CAPS, "sampling.content", "error", "text string"),
        ("sampling/createMessage", _sample(ASK), _reply([{"type": "audio", "data": "x"}]), CAPS, "sampling.content", "error", "mimeType"),
        ("sampling/createMessage", _sample(ASK), _reply([]), CAPS, "sampling.content", "error", "non-empty array"),
        ("sampling/createMessage", _sample(ASK), {**_reply({"type": "text", "text": "x"}), "role": "user"}, CAPS, "sampling.role", "error", "'user'"),
        ("sampling/createMessage", _sample(ASK), {**_reply({"type": "text", "text": "x"}), "model": ""}, CAPS, "sampling.model", "error", "model"),
        ("sampling/createMessage", _sample(ASK), "text", CAPS, "answer.result", "error", "must be an object"),
        ("elicitation/create", FORM, {"action": "maybe"}, CAPS, "elicitation.action", "error", "accept, decline, cancel"),
        ("elicitation/create", FORM, {"action": "accept"}, CAPS, "elicitation.content", "error", "needs its content"),
        ("elicitation/create", FORM, {"action": "decline", "content": {"name": "x"}}, CAPS, "elicitation.content", "warning", "decline in form mode"),
        ("elicitation/create", URL, {"action": "accept", "content": {"name": "x"}}, CAPS, "elicitation.content", "warning", "accept in url mode"),
        ("elicitation/create", FORM, {"action": "accept", "content": {"name": "x", "n": {"a": 1}}}, CAPS, "elicitation.primitive", "error", "content/n"),
        ("elicitation/create", FORM, {"action": "accept", "content": {"age": 3}}, CAPS, "elicitation.schema", "error", "content: 'name' is a required property"),
        ("elicitation/create", FORM, {"action": "accept", "content": {"name": "x", "age": -1}}, CAPS, "elicitation.schema", "error", "content/age: -1 is less than the minimum of 0"),
        ("elicitation/create", FORM, {"action": "accept", "content": {"name": "x", "email": "not-an-email"}}, CAPS, "elicitation.schema", "error", "content/email"),
        ("elicitation/create", FORM, {"action": "accept", "content": {"name": "x", "site": "no scheme"}}, CAPS, "elicitation.schema", "error", "content/site"),
        ("elicitation/create", FORM, {"action": "accept", "content": {"name": "x", "born": "1815-13-10"}}, CAPS, "elicitation.schema", "error", "content/born"),
        ("elicitation/create", FORM, {"action": "accept", "content": {"name": "x", "at": "2025-11-25 10:00"}}, CAPS, "elicitation.schema", "error", "content/at"),
        ("elicitation/create", FORM, {"action": "accept", "content": {"name": "x", "at": "2025-02-30T10:00:00Z"}}, CAPS, "elicitation.schema", "error", "content/at"),
        ("elicitation/create", FORM, {"action": "accept", "content": {"name": "x", "colors": ["green"]}}, CAPS, "elicitation.schema", "error", "content/colors/0"),
        ("roots/list", None, {"roots": "file:///a"}, CAPS, "roots.list", "error", "must be a list"),
        ("roots/list", None, {"roots": [{"uri": "https://a"}]}, CAPS, "roots.file-uri", "error", "not a file:// URI"),
        ("roots/list", None, {"roots": [{"uri": "file:relative"}]}, CAPS, "roots.file-uri", "error", "absolute path"),
        ("roots/list", None, {"roots": [{"uri": "file:///a", "name": 3}]}, CAPS, "roots.name", "error", "name must be a string"),
        ("roots/list", None, {"roots": [{"uri": "file:///a", "kind": "dir"}]}, CAPS, "roots.fields", "warning", "kind"),
        ("ping", None, {"pong": True}, CAPS, "ping.empty", "error", "empty result"),
    ],
)  # fmt: skip
def test_answer_rules(
    method: str, params: Any, answer: Any, caps: Any, rule: str, level: str, words: str
) -> None:
    found = check_answer(method, params, {"result": answer}, caps)
    assert any(f.rule == rule and f.level == level and words in f.text for f in found), found


def test_no_answer_and_malformed_errors() -> None:
    assert _found(check_answer("ping", None, None, CAPS)) == {("answer.timeout", "error")}
    bad = check_answer("roots/list", None, {"error": {"message": 1}}, CAPS)
    assert _found(bad) == {("answer.error-shape", "error")}


def test_an_exchange_reports_the_request_then_the_answer() -> None:
    use = {"type": "tool_use", "id": "c1", "name": "rm_rf", "input": {}}
    answer = {"result": {"role": "user", "content": [use], "stopReason": "endTurn"}}
    params = _sample(ASK, tools=[WEATHER], toolChoice={"mode": "none"})
    found = check_exchange("sampling/createMessage", params, answer, {})
    assert [f.rule for f in found[:2]] == ["sampling.capability", "sampling.tools-capability"]
    assert _found(found) == {
        ("sampling.capability", "warning"),
        ("sampling.tools-capability", "error"),
        ("sampling.role", "error"),
        ("sampling.model", "error"),
        ("sampling.stop-reason", "warning"),
        ("sampling.tool-not-offered", "error"),
        ("sampling.tool-choice", "error"),
    }
    assert found[0].to_json() == {"level": "warning", "rule": "sampling.capability", "text": found[0].text}
    assert found[0].describe().endswith("[sampling.capability, SHOULD]")
    assert found[1].describe().endswith("[sampling.tools-capability, MUST]")


def test_valid_roots_normalises_or_names_every_problem() -> None:
    assert valid_roots(
        [{"uri": "file:///a", "name": ""}, {"uri": "file:///b", "name": "b", "_meta": {}}]
    ) == [
        {"uri": "file:///a"},
        {"uri": "file:///b", "name": "b"},
    ]
    with pytest.raises(ValueError, match=r"roots\[0\].*not a file:// URI.*roots\[1\]: name must be a string"):
        valid_roots([{"uri": "relative/path"}, {"uri": "file:///b", "name": 1}])
    with pytest.raises(ValueError, match="must be a list"):
        valid_roots({"uri": "file:///a"})


def test_schema_findings() -> None:
    assert schema_findings({"city": "Paris"}, WEATHER["inputSchema"], "error", "r", "in") == []
    assert [f.text for f in schema_findings({}, WEATHER["inputSchema"], "error", "r", "in")] == [
        "in: 'city' is a required property"
    ]
    assert (
        schema_findings({}, {"type": 12}, "error", "r", "in") == []
    )  # an invalid schema is the request's fault
