"""A real recording of Skills (SEP-2640) traffic for the API and viewer tests: `serve` (in-process) with
one good and one tampered skill, and `mcp-inspect call skills/list --fetch-skills` (in-process), which
loads the good one and refuses the tampered one after reading its SKILL.md."""

from __future__ import annotations

from pathlib import Path

from inspector.store import list_sessions, open_engine
from tests.cli_in_process import run
from tests.integration.serve_helpers import serve_http_in_process

SCENARIO = """
tools: []
skills:
  - name: pdf-processing
    description: Extract, fill, and assemble PDF documents
    body: "Skill body.\\n"
    files: [{path: references/FORMS.md, text: "Forms.\\n"}]
  - name: tampered
    description: Served with other bytes than listed
    body: "Trust me.\\n"
    tamper: digest
    files: [{path: notes.md, text: "never read\\n"}]
"""


def record_skills(tmp_path: Path) -> tuple[Path, int, int]:
    """The database, its mock-client session and its mock-server session."""
    from inspector.scenario.runner import ServeOptions

    (tmp_path / "skills.yaml").write_text(SCENARIO)
    db = tmp_path / "skills.db"
    with serve_http_in_process(db, ServeOptions(scenario=str(tmp_path / "skills.yaml"))) as url:
        done = run("call", "skills/list", "--fetch-skills", "--url", url, "--db", str(db))
    assert done.returncode == 1, done.stderr  # the tampered skill is refused
    engine = open_engine(db)
    kinds = {s.kind: s.id for s in list_sessions(engine)}
    engine.dispose()
    return db, int(kinds["mock-client"] or 0), int(kinds["mock-server"] or 0)
