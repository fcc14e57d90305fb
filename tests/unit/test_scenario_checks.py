"""The spec checks of client answers (inspector/scenario/checks.py)."""

from __future__ import annotations

from typing import Any

from inspector.scenario.checks import check_answer, check_sampling_messages

CAPS = {"sampling": {"tools": {}}, "elicitation": {"form": {}, "url": {}}, "roots": {}}
TOOLS = [{"name": "weather", "inputSchema": {"type": "object"}}]
SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer", "minimum": 0},
        "email": {"type": "string", "format": "email"},
    },
    "required": ["name"],
}


def _rules(method: str, params: dict[str, Any], result: Any, caps: dict[str, Any] = CAPS) -> list[str]:
    return [f.rule for f in check_answer(method, params, {"result": result}, caps)]


def test_a_good_sampling_answer_has_no_findings() -> None:
    text = {
        "role": "assistant",
        "content": {"type": "text", "text": "hi"},
        "model": "m",
        "stopReason": "endTurn",
    }
    assert _rules("sampling/createMessage", {"messages": []}, text) == []
    use = {"type": "tool_use", "id": "c1", "name": "weather", "input": {}}
    answer = {"role": "assistant", "content": [use], "model": "m", "stopReason": "toolUse"}
    assert _rules("sampling/createMessage", {"messages": [], "tools": TOOLS}, answer) == []


def test_sampling_answer_problems() -> None:
    use = {"type": "tool_use", "id": "c1", "name": "rm_rf", "input": {}}
    answer = {"role": "user", "content": [use], "stopReason": "endTurn"}
    rules = _rules(
        "sampling/createMessage", {"messages": [], "tools": TOOLS, "toolChoice": {"mode": "none"}}, answer
    )
    assert set(rules) == {
        "sampling.role",
        "sampling.model",
        "sampling.stop-reason",
        "sampling.tool-not-offered",
        "sampling.tool-choice",
    }
    assert _rules("sampling/createMessage", {}, {"role": "assistant", "model": "m"}, {}) == [
        "sampling.capability",
        "sampling.content",
    ]


def test_tool_use_balance_in_messages() -> None:
    use = {"type": "tool_use", "id": "a", "name": "weather", "input": {}}
    good = [
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [{"type": "tool_result", "toolUseId": "a", "content": []}]},
    ]
    assert check_sampling_messages(good) == []
    unanswered = [good[0], {"role": "user", "content": {"type": "text", "text": "and?"}}]
    assert [f.rule for f in check_sampling_messages(unanswered)] == ["sampling.tool-balance"]
    mixed = [good[0], {"role": "user", "content": [good[1]["content"][0], {"type": "text", "text": "x"}]}]
    assert [f.rule for f in check_sampling_messages(mixed)] == ["sampling.tool-result-only"]


def test_elicitation_answers_against_the_schema() -> None:
    params = {"message": "m", "requestedSchema": SCHEMA}
    assert (
        _rules("elicitation/create", params, {"action": "accept", "content": {"name": "Ada", "age": 3}}) == []
    )
    bad = {"action": "accept", "content": {"age": -1, "email": "not-an-email", "x": {"nested": 1}}}
    texts = [f.text for f in check_answer("elicitation/create", params, {"result": bad}, CAPS)]
    assert any("'name' is a required property" in t for t in texts)
    assert any(t.startswith("age:") for t in texts) and any(t.startswith("email:") for t in texts)
    assert any("content.x is not a primitive" in t for t in texts)
    assert _rules("elicitation/create", params, {"action": "maybe"}) == ["elicitation.action"]
    assert (
        _rules(
            "elicitation/create",
            {"mode": "url", "url": "https://x", "elicitationId": "e"},
            {"action": "accept"},
        )
        == []
    )
    assert _rules(
        "elicitation/create", {"mode": "url"}, {"action": "accept"}, {"elicitation": {"form": {}}}
    ) == ["elicitation.url-capability"]


def test_roots_must_be_file_uris_and_timeouts_and_errors() -> None:
    assert _rules("roots/list", {}, {"roots": [{"uri": "file:///a", "name": "a"}]}) == []
    assert _rules("roots/list", {}, {"roots": [{"uri": "https://a"}]}) == ["roots.file-uri"]
    assert [f.rule for f in check_answer("roots/list", {}, None, CAPS)] == ["answer.timeout"]
    assert check_answer("roots/list", {}, {"error": {"code": -32601, "message": "no"}}, CAPS) == []
    assert [f.rule for f in check_answer("roots/list", {}, {"error": {"message": 1}}, CAPS)] == [
        "answer.error-shape"
    ]
