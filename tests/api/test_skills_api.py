"""`GET /api/sessions/{id}/skills`: a recorded session's skills (SEP-2640) as the Skills tab shows them,
each file's recorded read checked against its entry. The session is recorded for real
(tests/skills_recording.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from tests.skills_recording import record_skills
from tests.two_sessions import api_client


async def _get(db: Path, path: str) -> tuple[int, Any]:
    async for client in api_client(db):
        r = await client.get(path)
    return r.status_code, r.json()


def test_skills_of_a_recorded_session_with_their_files_checked(tmp_path: Path) -> None:
    db, client_session, server_session = record_skills(tmp_path)
    for session in (client_session, server_session):  # the same exchanges, seen from either side
        status, out = anyio.run(_get, db, f"/api/sessions/{session}/skills")
        assert status == 200, out
        assert out["declared"] is True and out["directory_read"] is True
        good, bad = out["skills"]
        assert (good["name"], good["uri"]) == ("pdf-processing", "skill://pdf-processing/SKILL.md")
        assert [(f["uri"], f["status"]) for f in good["files"]] == [
            ("skill://pdf-processing/SKILL.md", "verified"),
            ("skill://pdf-processing/references/FORMS.md", "verified"),
        ]
        assert good["manifest"].endswith("Skill body.\n")
        assert good["files"][0]["read_digest"] == good["files"][0]["digest"]
        assert [(f["uri"], f["status"]) for f in bad["files"]] == [
            ("skill://tampered/SKILL.md", "mismatch"),
            ("skill://tampered/notes.md", "unread"),
        ]
        assert "digest mismatch" in bad["files"][0]["problem"]
        assert out["mismatches"] == 1


def test_a_session_without_skills_and_a_missing_one(tmp_path: Path) -> None:
    db, _client, _server = record_skills(tmp_path)
    status, out = anyio.run(_get, db, "/api/sessions/999/skills")
    assert status == 404
    status, out = anyio.run(_get, db, "/api/sessions/0/skills")
    assert status in (404, 422)
