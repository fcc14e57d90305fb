"""Issue #15: every authorization leg is recorded, labelled with its step, and holds no secret.

`call --auth` records the refused request (401), the resource and AS metadata
requests, the registration, the authorization request and redirect, and the
token request into the session as HTTP exchanges with `meta.auth_step`; the
recorder's one redaction step replaces the access token, the code, the PKCE
verifier and the client secret (sent with client_secret_post) by placeholders
in every column. The tokens live in the user-only (0600) auth file instead.
"""

from __future__ import annotations

import json
import sqlite3
import stat
from pathlib import Path

import pytest

from tests.conformance.suite import NODE, SUITE, run_scenario
from tests.secrets_scan import placeholders, secret_leaks


@pytest.mark.timeout(120)
def test_legs_labelled_and_redacted(tmp_path: Path) -> None:
    if not NODE.exists() or not SUITE.exists():
        pytest.fail("the conformance suite is not installed: run `make peers`")
    checks, output = run_scenario("auth/token-endpoint-auth-post", tmp_path)
    assert checks and not [c for c in checks if c["status"] == "FAILURE"], output[-3000:]

    auth_file = tmp_path / "auth.json"
    assert stat.S_IMODE(auth_file.stat().st_mode) == 0o600
    kept = json.loads(auth_file.read_text())
    (grant,) = kept["servers"].values()
    secrets = [grant["tokens"]["access_token"], grant["client"]["client_secret"], "test-auth-code"]
    assert all(secrets)

    db = tmp_path / "rec.db"
    assert secret_leaks(db, secrets) == []
    text = placeholders(db)
    for name in ("body.access_token", "body.client_secret", "body.code", "body.code_verifier", "query.code"):
        assert f"[secret:{name}]" in text, name

    conn = sqlite3.connect(db)
    steps = {
        row[0]
        for row in conn.execute("SELECT json_extract(meta, '$.auth_step') FROM message")
        if row[0] is not None
    }
    conn.close()
    assert {
        "unauthorized",
        "resource-metadata",
        "as-metadata",
        "registration",
        "authorization-request",
        "token-request",
    } <= steps
