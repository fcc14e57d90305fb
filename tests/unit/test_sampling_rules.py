"""The sampling rules of the 2025-11-25 spec (tool use balance, stopReason, the sampling.tools capability)."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.mock.sampling_rules import reply_problems, request_problems, schema_problems

TOOLS_CAP = {"sampling": {"tools": {}}}
WEATHER = {
    "name": "get_weather",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
ASK = {"role": "user", "content": {"type": "text", "text": "Weather in Paris and London?"}}
USES = {
    "role": "assistant",
    "content": [
        {"type": "tool_use", "id": "a", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "b", "name": "get_weather", "input": {"city": "London"}},
    ],
}


def _results(*ids: str, extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    content = [
        {"type": "tool_result", "toolUseId": i, "content": [{"type": "text", "text": "18C"}]} for i in ids
    ]
    return {"role": "user", "content": content + (extra or [])}


def _params(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"messages": list(messages), "maxTokens": 100, **extra}


def test_a_balanced_tool_loop_is_fine() -> None:
    assert request_problems(_params(ASK, USES, _results("a", "b"), tools=[WEATHER]), TOOLS_CAP) == []
    assert request_problems(_params(ASK), {"sampling": {}}) == []


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        ((ASK, USES, _results("a")), "no tool_result for tool_use id b"),
        ((ASK, USES, _results("a", "b", "c")), "unknown tool_use id c"),
        ((ASK, USES, _results("a", "b", extra=[{"type": "text", "text": "and"}])), "only tool results"),
        ((ASK, USES, ASK), "must be followed by a user message of tool results"),
        ((ASK, USES), "has no tool_result"),
        ((ASK, _results("a")), "follow no assistant tool_use"),
        ((), "messages is missing"),
    ],
)
def test_unbalanced_tool_use_is_named(messages: tuple[dict[str, Any], ...], words: str) -> None:
    problems = request_problems(_params(*messages, tools=[WEATHER]), TOOLS_CAP)
    assert any(words in p for p in problems), problems


def test_tools_to_a_client_without_the_capability_are_flagged() -> None:
    problems = request_problems(_params(ASK, tools=[WEATHER]), {"sampling": {}})
    assert any("did not declare the sampling.tools" in p for p in problems), problems
    assert any(
        "no tools are offered" in p
        for p in request_problems(_params(ASK, toolChoice={"mode": "auto"}), TOOLS_CAP)
    )


def _reply(content: Any, stop: str | None = "endTurn", **extra: Any) -> dict[str, Any]:
    out = {"role": "assistant", "content": content, "model": "a-person", **extra}
    if stop is not None:
        out["stopReason"] = stop
    return out


USE_PARIS = {"type": "tool_use", "id": "u1", "name": "get_weather", "input": {"city": "Paris"}}


def test_valid_replies() -> None:
    assert reply_problems(_reply({"type": "text", "text": "hi"}), _params(ASK), {"sampling": {}}) == []
    offered = _params(ASK, tools=[WEATHER], toolChoice={"mode": "auto"})
    assert reply_problems(_reply([USE_PARIS], "toolUse"), offered, TOOLS_CAP) == []


@pytest.mark.parametrize(
    ("reply", "params", "caps", "words"),
    [
        (_reply([USE_PARIS], "endTurn"), _params(ASK, tools=[WEATHER]), TOOLS_CAP, 'stopReason "toolUse"'),
        (
            _reply({"type": "text", "text": "x"}, "toolUse"),
            _params(ASK),
            TOOLS_CAP,
            "needs at least one tool_use",
        ),
        (_reply([USE_PARIS], "toolUse"), _params(ASK), TOOLS_CAP, "offered no tools"),
        (_reply([USE_PARIS], "toolUse"), _params(ASK, tools=[WEATHER]), {"sampling": {}}, "sampling.tools"),
        (
            _reply([{**USE_PARIS, "name": "launch"}], "toolUse"),
            _params(ASK, tools=[WEATHER]),
            TOOLS_CAP,
            "not one of the offered tools",
        ),
        (
            _reply([{**USE_PARIS, "input": {"city": 3}}], "toolUse"),
            _params(ASK, tools=[WEATHER]),
            TOOLS_CAP,
            "city: 3 is not of type 'string'",
        ),
        (_reply([USE_PARIS, USE_PARIS], "toolUse"), _params(ASK, tools=[WEATHER]), TOOLS_CAP, "duplicate id"),
        (
            _reply([USE_PARIS], "toolUse"),
            _params(ASK, tools=[WEATHER], toolChoice={"mode": "none"}),
            TOOLS_CAP,
            'mode "none"',
        ),
        (
            _reply({"type": "text", "text": "x"}),
            _params(ASK, tools=[WEATHER], toolChoice={"mode": "required"}),
            TOOLS_CAP,
            'mode "required"',
        ),
        (_reply([{"type": "tool_result", "toolUseId": "u1"}]), _params(ASK), TOOLS_CAP, "not allowed"),
        ({"role": "user", "content": {"type": "text", "text": "x"}}, _params(ASK), TOOLS_CAP, "role"),
        (_reply([]), _params(ASK), TOOLS_CAP, "content must be"),
        ("text", _params(ASK), TOOLS_CAP, "must be an object"),
    ],
)
def test_invalid_replies_are_refused(reply: Any, params: Any, caps: Any, words: str) -> None:
    problems = reply_problems(reply, params, caps)
    assert any(words in p for p in problems), problems


def test_schema_problems() -> None:
    assert schema_problems({"city": "x"}, WEATHER["inputSchema"]) == []
    assert schema_problems({}, WEATHER["inputSchema"]) == ["(root): 'city' is a required property"]
    assert "schema itself is invalid" in schema_problems({}, {"type": 12})[0]
