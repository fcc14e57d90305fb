"""The authorization rules come through the lint API like every other rule: a stored session with a
broken authorization flow gets its auth-* findings, their severity and the authorization spec page."""

from __future__ import annotations

from pathlib import Path

from inspector.lint import RULES
from tests.api.conftest import in_process
from tests.lint_auth_recordings import AS, AUTHORIZE, good_flow
from tests.lint_recordings import store


def test_auth_findings_through_the_api(tmp_path: Path) -> None:
    db = tmp_path / "auth.db"
    flow, seqs = good_flow(
        challenge='Bearer error="invalid_token"',
        as_doc={k: v for k, v in AS.items() if k != "response_types_supported"},
        authorize={k: v for k, v in AUTHORIZE.items() if k != "code_challenge"},
    )
    sid = store(db, flow, name="broken auth", kind="http-proxy")
    for api in in_process(db):
        found = api.json(f"/api/sessions/{sid}/findings")
        assert {(f["rule"], f["seq"]) for f in found["items"]} == {
            ("auth-401-without-resource-metadata", seqs["unauthorized"]),
            ("auth-server-metadata-incomplete", seqs["as"]),
            ("auth-no-pkce", seqs["authorize_req"]),
        }
        for f in found["items"]:
            assert f["severity"] == RULES[f["rule"]].severity
            assert "/basic/authorization#" in f["spec_section"]
        assert found["summary"] == {"error": 2, "warning": 1, "info": 0}
        flagged = api.json(f"/api/sessions/{sid}/messages", findings="error")
        assert [r["seq"] for r in flagged["items"]] == sorted([seqs["as"], seqs["authorize_req"]])
