"""`mcp-inspect call skills/list --fetch-skills` against `serve` (in-process): skills load verified,
and a SKILL.md that does not match its entry (a scenario's `tamper`) stops the load with exit 1
before any other file of the skill is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.store import list_sessions, open_engine
from tests.cli_in_process import run
from tests.integration.serve_helpers import serve_http_in_process
from tests.shim_process import messages

SKILL = """
skills:
  - name: pdf-processing
    description: Extract, fill, and assemble PDF documents
    body: "Skill body.\\n"
    {tamper}
    files: [{{path: references/FORMS.md, text: "Forms.\\n"}}]
"""


def _reads(db: Path) -> list[str]:
    """The URIs our client asked resources/read for, as the mock server recorded them."""
    engine = open_engine(db)
    try:
        uris = []
        for session in list_sessions(engine):
            if session.kind != "mock-server":
                continue
            for row in messages(engine, session.id or 0):
                body = json.loads(row.body) if row.body else {}
                if isinstance(body, dict) and body.get("method") == "resources/read":
                    uris.append(body["params"]["uri"])
        return uris
    finally:
        engine.dispose()


def _serve_and_call(tmp_path: Path, tamper: str, *call_args: str) -> tuple[int, str, str, list[str]]:
    from inspector.scenario.runner import ServeOptions

    scenario = tmp_path / "skills.yaml"
    scenario.write_text(SKILL.format(tamper=f"tamper: {tamper}" if tamper else ""))
    db = tmp_path / "serve.db"
    with serve_http_in_process(db, ServeOptions(scenario=str(scenario))) as url:
        done = run("call", *call_args, "--url", url, "--db", str(tmp_path / "call.db"), timeout=60)
    return done.returncode, done.stdout, done.stderr, _reads(db)


def test_fetch_skills_loads_every_file_verified(tmp_path: Path) -> None:
    status, out, err, reads = _serve_and_call(tmp_path, "", "skills/list", "--fetch-skills")
    assert status == 0, err
    loaded = json.loads(out)["skills"][0]
    assert [f["uri"] for f in loaded["files"]] == [
        "skill://pdf-processing/SKILL.md",
        "skill://pdf-processing/references/FORMS.md",
    ]
    assert loaded["files"][1]["text"] == "Forms.\n"
    assert reads == [f["uri"] for f in loaded["files"]]
    for db in ("serve.db", "call.db"):  # both sides' recordings lint clean (the methods are known)
        linted = run("lint", "last", "--db", str(tmp_path / db), "--json")
        assert linted.returncode == 0, linted.stderr
        assert json.loads(linted.stdout)["findings"] == [], linted.stdout


def test_listing_alone_reads_no_file(tmp_path: Path) -> None:
    status, out, _err, reads = _serve_and_call(tmp_path, "", "skills/list")
    assert status == 0 and json.loads(out)["skills"][0]["uri"] == "skill://pdf-processing/SKILL.md"
    assert reads == []


@pytest.mark.parametrize("tamper", ["digest", "size", "frontmatter"])
def test_a_tampered_manifest_is_refused_and_nothing_more_read(tmp_path: Path, tamper: str) -> None:
    status, out, err, reads = _serve_and_call(tmp_path, tamper, "skills/list", "--fetch-skills")
    assert status == 1
    assert out == ""
    assert f"error: skill file skill://pdf-processing/SKILL.md: {tamper} mismatch" in err, err
    assert reads == ["skill://pdf-processing/SKILL.md"]


def test_fetch_skills_needs_a_skills_method(tmp_path: Path) -> None:
    done = run("call", "tools/list", "--fetch-skills", "--url", "http://127.0.0.1:9/mcp")
    assert done.returncode == 2 and "--fetch-skills goes with skills/list or skills/get" in done.stderr
