"""`mcp-inspect versions --replay SESSION` had no `--secret`: placeholders were sent unfilled.

A recording made with the default redaction holds `[secret:NAME]` where a secret was; `replay`
puts it back from `--secret NAME=VALUE` (or $MCP_INSPECTOR_SECRET_NAME) and names the missing
ones, but `versions --replay` rejected `--secret` and sent the placeholders as they were, without
a word. Now it takes `--secret` as `replay` does (same parsing, same missing-secret warning), the
server gets the value (the real SDK server logs its wire), and the probe's own sessions store the
placeholder again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.api.conftest import serve
from tests.api.test_client_api import _ok
from tests.api.test_versions_api import finish
from tests.cli_in_process import Ran
from tests.secrets_scan import received, secret_leaks, secrets_server

ARG_KEY = "VersionsArgKeySecret6e1d3"
NAME = "body.params.arguments.api_key"


def _calls(log: Path) -> list[str]:
    """The bodies of the tools/call requests the server received, in order."""
    return [r["body"] for r in received(log) if '"tools/call"' in r["body"]]


def test_versions_replay_puts_secrets_back(tmp_path: Path, mcp_inspect: Callable[..., Ran]) -> None:
    db, log = tmp_path / "v.db", tmp_path / "wire.jsonl"
    args = json.dumps({"name": "echo", "arguments": {"text": "hi", "api_key": ARG_KEY}})
    with secrets_server(log) as url:
        out = mcp_inspect("call", "tools/call", "--db", str(db), "--url", url, "--params", args, "--redact-path",
                   "params.arguments.api_key")  # fmt: skip
        assert out.returncode == 0, out.stderr
        assert secret_leaks(db, [ARG_KEY]) == []  # recorded as a placeholder

        probe = ["versions", "--db", str(db), "--url", url, "--revisions", "2025-11-25", "--replay", "1"]
        out = mcp_inspect(*probe, "--secret", f"{NAME}={ARG_KEY}")
        assert out.returncode == 0, out.stderr
        assert ARG_KEY in _calls(log)[-1]  # the server got the value
        assert "were not given" not in out.stderr
        assert secret_leaks(db, [ARG_KEY]) == []  # the probe's session redacted it again

        out = mcp_inspect(*probe)
        assert out.returncode == 0, out.stderr
        assert f"[secret:{NAME}]" in _calls(log)[-1]
        assert NAME in out.stderr and "MCP_INSPECTOR_SECRET_BODY_PARAMS_ARGUMENTS_API_KEY" in out.stderr

        bad = mcp_inspect(*probe, "--secret", "no-equals-sign")
        assert bad.returncode == 2 and "--secret wants NAME=VALUE" in bad.stderr


def test_a_versions_job_of_the_ui_fills_them_from_its_environment_or_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mcp_inspect: Callable[..., Ran]
) -> None:
    db, log = tmp_path / "ui.db", tmp_path / "wire.jsonl"
    args = json.dumps({"name": "echo", "arguments": {"text": "hi", "api_key": ARG_KEY}})
    with secrets_server(log) as url:
        out = mcp_inspect("call", "tools/call", "--db", str(db), "--url", url, "--params", args, "--redact-path",
                   "params.arguments.api_key")  # fmt: skip
        assert out.returncode == 0, out.stderr
        body = {"target": {"url": url}, "revisions": ["2025-11-25"], "replay_session_id": 1}
        for api in serve(db):
            job = finish(api, _ok(api.http.post("/api/versions", json=body), 202))
            assert job["state"] == "finished", job
            assert f"[secret:{NAME}]" in _calls(log)[-1]
            (warning,) = job["warnings"]
            assert NAME in warning and "MCP_INSPECTOR_SECRET_BODY_PARAMS_ARGUMENTS_API_KEY" in warning

            monkeypatch.setenv("MCP_INSPECTOR_SECRET_BODY_PARAMS_ARGUMENTS_API_KEY", ARG_KEY)
            job = finish(api, _ok(api.http.post("/api/versions", json=body), 202))
            assert job["state"] == "finished" and job["warnings"] == [], job
            assert ARG_KEY in _calls(log)[-1]
    assert secret_leaks(db, [ARG_KEY]) == []
