"""Scenario format, templates and reactions (sans-IO): the `ScenarioScript` answers like an MCP server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types
import pytest
from mcp_types import methods

from inspector.errors import ScenarioError, TemplateError
from inspector.mock.script import Action, Reaction
from inspector.scenario import ScenarioScript, load_scenario, parse_scenario, scenario_schema
from inspector.scenario.features import match_template
from inspector.scenario.script import timer_actions
from inspector.scenario.template import render

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "inspector" / "scenario" / "schema.json"
PV = "io.modelcontextprotocol/protocolVersion"


def _played(reaction: Reaction, answers: list[Any] | None = None) -> list[Action]:
    if reaction.render is None:
        return list(reaction.actions)
    out = [reaction.render(a, answers or []) for a in reaction.actions]
    return [a for a in out if a is not None]


def _request(method: str, params: dict[str, Any] | None = None, rpc_id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params or {}}


def _initialize(script: ScenarioScript, version: str) -> dict[str, Any]:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    reaction, _ = script.react(_request("initialize", params))
    assert reaction is not None
    return _played(reaction)[0].payload


def test_schema_file_is_fresh() -> None:
    assert SCHEMA_FILE.read_text() == scenario_schema(), "run: python -m inspector.scenario.load"


def test_default_scenario_validates_against_the_exported_schema() -> None:
    import json

    import jsonschema
    import yaml

    text = (SCHEMA_FILE.parent / "default.yaml").read_text()
    jsonschema.validate(yaml.safe_load(text), json.loads(SCHEMA_FILE.read_text()))
    scenario = load_scenario(None)
    assert {t.name for t in scenario.tools} >= {"ask_llm", "list_roots", "fill_form", "open_url", "never"}


def test_template_keeps_types_and_names_missing_paths() -> None:
    context = {"arguments": {"n": 3, "city": "Oslo"}, "answers": [{"content": {"text": "hi"}}]}
    assert render({"a": "{{ arguments.n }}", "b": "in {{arguments.city}}!"}, context) == {
        "a": 3,
        "b": "in Oslo!",
    }
    assert render("said {{ answers.0.content.text }}", context) == "said hi"
    assert render("{{ arguments }} x", context) == '{"n":3,"city":"Oslo"} x'
    with pytest.raises(TemplateError, match=r"arguments\.town"):
        render("{{ arguments.town }}", context)
    # No code runs: an expression is not a path and stays text.
    assert render("{{ __import__('os') }}", context) == "{{ __import__('os') }}"


def test_bad_scenarios_name_the_file_and_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("tools:\n  - name: x\n    steps: [{do: teleport}]\n  - description: no name\n")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(bad)
    text = str(caught.value)
    assert str(bad) in text and "tools[0].steps[0]" in text and "tools[1].name" in text
    with pytest.raises(ScenarioError, match="not valid YAML"):
        parse_scenario("tools: [", "s.yaml")
    with pytest.raises(ScenarioError, match="unknown protocol version"):
        parse_scenario("protocolVersions: ['2099-01-01']", "s.yaml")
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(tmp_path / "missing.yaml")
    with pytest.raises(ScenarioError, match="at most one of never, error, malformed"):
        parse_scenario("tools: [{name: t, fault: {never: true, malformed: x}}]", "s.yaml")


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_initialize_accepts_every_handshake_revision(version: str) -> None:
    result = _initialize(ScenarioScript(load_scenario(None)), version)["result"]
    assert result["protocolVersion"] == version
    mcp_types.InitializeResult.model_validate(result)


def test_restricted_versions_counter_offer_and_refuse() -> None:
    only_old = parse_scenario("protocolVersions: ['2025-03-26']", "s")
    assert _initialize(ScenarioScript(only_old), "2025-11-25")["result"]["protocolVersion"] == "2025-03-26"
    reaction, _ = ScenarioScript(only_old).react(_request("server/discover", {"_meta": {PV: "2026-07-28"}}))
    assert reaction is not None and _played(reaction)[0].payload["error"]["code"] == -32022
    only_new = parse_scenario("protocolVersions: ['2026-07-28']", "s")
    refused = _initialize(ScenarioScript(only_new), "2025-11-25")["error"]
    assert refused["code"] == -32022 and refused["data"]["supported"] == ["2026-07-28"]


def test_modern_results_are_valid_2026_wire_results() -> None:
    script = ScenarioScript(load_scenario(None))
    for method, params in [
        ("server/discover", {}),
        ("tools/list", {}),
        ("resources/read", {"uri": "mock://items/9"}),
        ("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}}),
    ]:
        reaction, _ = script.react(_request(method, {**params, "_meta": {PV: "2026-07-28"}}))
        assert reaction is not None
        result = _played(reaction)[-1].payload["result"]
        methods.validate_server_result(method, "2026-07-28", result)
    assert "Item 9" in str(
        _played(script.react(_request("resources/read", {"uri": "mock://items/9"}))[0])[-1]
    )


def test_tool_steps_template_from_answers_and_faults() -> None:
    script = ScenarioScript(load_scenario(None))
    reaction, _ = script.react(_request("tools/call", {"name": "ask_llm", "arguments": {"prompt": "hey"}}))
    assert reaction is not None
    played = _played(reaction, [{"role": "assistant", "content": {"type": "text", "text": "yo"}}])
    assert (
        played[0].kind == "request" and played[0].payload["params"]["messages"][0]["content"]["text"] == "hey"
    )
    assert played[1].payload["result"]["content"][0]["text"] == "The model said: yo"
    kinds = {
        name: [a.kind for a in script.react(_request("tools/call", {"name": name}))[0].actions]  # type: ignore[union-attr]
        for name in ("never", "malformed", "fail", "slow")
    }
    assert kinds == {
        "never": ["hang"],
        "malformed": ["raw"],
        "fail": ["respond"],
        "slow": ["sleep", "respond"],
    }
    unknown, _ = script.react(_request("tools/call", {"name": "nope"}))
    assert unknown is not None and _played(unknown)[0].payload["error"]["code"] == -32602


def test_url_elicitation_completes_only_when_accepted() -> None:
    script = ScenarioScript(load_scenario(None))
    reaction, _ = script.react(_request("tools/call", {"name": "open_url"}))
    assert reaction is not None
    accepted = _played(reaction, [{"action": "accept"}])
    assert [a.payload.get("method") for a in accepted][:2] == [
        "elicitation/create",
        "notifications/elicitation/complete",
    ]
    assert accepted[1].payload["params"] == {"elicitationId": "mock-elicitation-1"}
    declined = _played(reaction, [{"action": "decline"}])
    assert "notifications/elicitation/complete" not in [a.payload.get("method") for a in declined]


def test_progress_only_with_a_token_and_timers_merge_in_time_order() -> None:
    script = ScenarioScript(load_scenario(None))
    without, _ = script.react(_request("tools/call", {"name": "progress"}))
    with_token, _ = script.react(_request("tools/call", {"name": "progress", "_meta": {"progressToken": 7}}))
    count = lambda r: sum(a.payload.get("method") == "notifications/progress" for a in r.actions)  # noqa: E731
    assert count(without) == 0 and count(with_token) == 3
    scenario = parse_scenario(
        "timers: [{after: 1, every: 2, repeat: 2, steps: [{do: ping}]}, {after: 2, steps: [{do: roots}]}]",
        "s",
    )
    timeline = [
        (a.kind, a.payload.get("seconds", a.payload.get("method"))) for a in timer_actions(scenario.timers)
    ]
    assert timeline == [
        ("sleep", 1.0),
        ("request", "ping"),
        ("sleep", 1.0),
        ("request", "roots/list"),
        ("sleep", 1.0),
        ("request", "ping"),
    ]


def test_lists_completions_and_templates() -> None:
    script = ScenarioScript(load_scenario(None))
    reaction, _ = script.react(
        _request(
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}},
        )
    )
    assert reaction is not None and _played(reaction)[0].payload["result"]["completion"]["values"] == [
        "Ada",
        "Alan",
    ]
    assert match_template("mock://items/{id}", "mock://items/42") == {"id": "42"}
    assert match_template("mock://items/{id}", "mock://items/4/2") is None
    script.offer.tools.pop("echo")
    listed, _ = script.react(_request("tools/list"))
    assert listed is not None and "echo" not in [
        t["name"] for t in _played(listed)[0].payload["result"]["tools"]
    ]
