"""Skills (SEP-2640) in a scenario (sans-IO): the format, and `ScenarioScript` answering skills/list,
skills/get, resources/directory/read and resources/read of skill files from it."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from inspector.errors import ScenarioError
from inspector.mock.script import Reaction
from inspector.protocol.skills import split_manifest
from inspector.scenario import ScenarioScript, load_scenario, parse_scenario

PV = "io.modelcontextprotocol/protocolVersion"
SCENARIO = """
skills:
  - name: pdf-processing
    description: Extract, fill, and assemble PDF documents
    frontmatter: {license: MIT}
    body: "Use {{ these }} braces as they are.\\n"
    files:
      - {path: references/FORMS.md, text: "Forms.\\n"}
      - {path: logo.png, blob: "iVBORw0K"}
  - name: notes
    path: acme/writing
    manifest: "---\\nname: notes\\ndescription: Take notes\\n---\\nBody\\n"
"""


def _answer(
    script: ScenarioScript, method: str, params: dict[str, Any], modern: bool = False
) -> dict[str, Any]:
    if modern:
        params = {**params, "_meta": {PV: "2026-07-28"}}
    reaction, _ = script.react({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    assert isinstance(reaction, Reaction)
    played = reaction.render(reaction.actions[0], []) if reaction.render else reaction.actions[0]
    assert played is not None
    return played.payload


def _script(text: str = SCENARIO) -> ScenarioScript:
    return ScenarioScript(parse_scenario(text, "t.yaml"))


def test_skills_are_declared_listed_with_digests_of_the_bytes_served() -> None:
    script = _script()
    init = _answer(script, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    caps = init["result"]["capabilities"]
    assert caps["extensions"]["io.modelcontextprotocol/skills"] == {"directoryRead": True}
    assert "resources" in caps
    entries = _answer(script, "skills/list", {})["result"]["skills"]
    assert [e["uri"] for e in entries] == [
        "skill://pdf-processing/SKILL.md",
        "skill://acme/writing/notes/SKILL.md",
    ]
    pdf = entries[0]
    assert pdf["frontmatter"] == {
        "name": "pdf-processing",
        "description": "Extract, fill, and assemble PDF documents",
        "license": "MIT",
    }
    for listed in pdf["resources"]:
        content = _answer(script, "resources/read", {"uri": listed["uri"]})["result"]["contents"][0]
        data = content["text"].encode() if "text" in content else base64.b64decode(content["blob"])
        assert listed["size"] == len(data)
        assert listed["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
    manifest = _answer(script, "resources/read", {"uri": pdf["uri"]})["result"]["contents"][0]
    assert manifest["mimeType"] == "text/markdown"
    assert "Use {{ these }} braces as they are." in manifest["text"]  # not a template
    front, _body = split_manifest(manifest["text"])
    assert front == pdf["frontmatter"]
    listed = _answer(script, "resources/list", {})["result"]["resources"]
    assert {"uri": pdf["uri"], "name": "pdf-processing", "mimeType": "text/markdown"}.items() <= listed[
        0
    ].items()


def test_get_directory_read_and_their_errors() -> None:
    script = _script()
    got = _answer(script, "skills/get", {"uri": "skill://acme/writing/notes/SKILL.md"}, modern=True)["result"]
    assert got["skill"]["frontmatter"] == {"name": "notes", "description": "Take notes"}
    assert got["ttlMs"] == 0 and got["cacheScope"] == "private" and "nextCursor" not in got
    assert _answer(script, "skills/get", {"uri": "skill://nope/SKILL.md"})["error"]["code"] == -32602
    assert _answer(script, "skills/get", {})["error"]["code"] == -32602
    kids = _answer(script, "resources/directory/read", {"uri": "skill://pdf-processing"})["result"][
        "resources"
    ]
    assert {(k["uri"], k["mimeType"]) for k in kids} == {
        ("skill://pdf-processing/SKILL.md", "text/markdown"),
        ("skill://pdf-processing/logo.png", "image/png"),
        ("skill://pdf-processing/references", "inode/directory"),
    }
    top = _answer(script, "resources/directory/read", {"uri": "skill://acme"})["result"]["resources"]
    assert top == [{"uri": "skill://acme/writing", "name": "writing", "mimeType": "inode/directory"}]
    not_dir = _answer(script, "resources/directory/read", {"uri": "skill://pdf-processing/SKILL.md"})
    assert not_dir["error"]["code"] == -32602
    assert _answer(script, "skills/list", {"cursor": "x"})["error"]["code"] == -32602


def test_without_skills_the_methods_are_unknown() -> None:
    script = ScenarioScript(load_scenario(None))
    assert _answer(script, "skills/list", {})["error"]["code"] == -32601
    caps = _answer(script, "initialize", {"protocolVersion": "2025-11-25"})["result"]["capabilities"]
    assert "io.modelcontextprotocol/skills" not in caps.get("extensions", {})


@pytest.mark.parametrize("how", ["digest", "size", "frontmatter"])
def test_tamper_serves_a_manifest_that_does_not_match_its_entry(how: str) -> None:
    script = _script(f"skills: [{{name: a, description: d, body: text, tamper: {how}}}]")
    entry = _answer(script, "skills/list", {})["result"]["skills"][0]
    text = _answer(script, "resources/read", {"uri": entry["uri"]})["result"]["contents"][0]["text"]
    data, listed = text.encode(), entry["resources"][0]
    same_size = len(data) == listed["size"]
    same_digest = "sha256:" + hashlib.sha256(data).hexdigest() == listed["digest"]
    same_front = split_manifest(text)[0] == entry["frontmatter"]
    assert (same_size, same_digest, same_front) == {
        "digest": (True, False, True),
        "size": (False, False, True),
        "frontmatter": (True, True, False),
    }[how]


@pytest.mark.parametrize(
    ("skill", "says"),
    [
        ("{name: Bad_Name, description: d}", "skills[0].name"),
        ("{name: a--b, description: d}", "double hyphen"),
        ("{name: a}", "needs a description"),
        ("{name: a, manifest: 'no frontmatter'}", "frontmatter block"),
        ('{name: a, manifest: "---\\nname: b\\ndescription: d\\n---\\n"}', "is not the skill name"),
        ("{name: a, description: d, files: [{path: ../x, text: t}]}", "not a relative path"),
        ("{name: a, description: d, files: [{path: x}]}", "exactly one"),
    ],
)
def test_bad_skills_are_clear_errors(skill: str, says: str) -> None:
    with pytest.raises(ScenarioError, match=says.replace("[", r"\[").replace("]", r"\]")):
        parse_scenario(f"skills: [{skill}]", "t.yaml")


def test_skill_files_are_read_from_disk_at_load(tmp_path: Path) -> None:
    (tmp_path / "bin.dat").write_bytes(b"\xff\x00\x01")
    (tmp_path / "s.yaml").write_text(
        "skills: [{name: a, description: d, files: [{path: x.dat, file: bin.dat}]}]"
    )
    script = ScenarioScript(load_scenario(tmp_path / "s.yaml"))
    entry = _answer(script, "skills/list", {})["result"]["skills"][0]
    assert entry["resources"][1]["size"] == 3
    (tmp_path / "t.yaml").write_text("skills: [{name: a, description: d, files: [{path: x, file: gone}]}]")
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(tmp_path / "t.yaml")


def test_bundled_skills_scenario_loads_by_name() -> None:
    scenario = load_scenario("skills")
    assert [s.name for s in scenario.skills] == ["pdf-processing", "release-notes"]
    json.dumps(ScenarioScript(scenario).offer.skills.entries)  # JSON all the way
