"""The config file's redaction names and per-server rules in the one redaction step
(`capture/redact.py`): names add up across file, environment and flags; a server rule applies to
the sessions it matches only (name, command line or URL), first match wins; --keep-secrets wins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspector.capture import redact
from inspector.capture.redact import Redaction
from inspector.errors import InspectorError
from inspector.settings import Settings, from_doc


def _row(raw: bytes, session_id: int = 1) -> dict[str, Any]:
    row = {"session_id": session_id, "raw": raw, "size": len(raw), "kind": "request", "channel": "stdin"}
    return {**row, "http_headers": None, "http_path": None, "meta": None}


SETTINGS = from_doc(Settings, {
    "redact": ["x-file-key", "params.arguments.deep"],
    "servers": [
        {"match": "*github*", "redact": ["gh_secret"]},
        {"match": "quiet-*", "record": "metadata"},  # matches before "*" for quiet-files: adds nothing
        {"match": "*", "redact": ["everyone"]},
    ],
})  # fmt: skip


def test_names_add_up_and_dotted_entries_are_paths() -> None:
    rules = Redaction.from_config(
        ["flag-key"], environ={"MCP_INSPECTOR_REDACT": "env-key"}, settings=SETTINGS
    )
    assert rules.names == {"flag-key", "env-key", "x-file-key"}
    assert rules.paths == (("params", "arguments", "deep"),)
    row = _row(b'{"params":{"arguments":{"deep":"D1","x-file-key":"F1","env-key":"E1","flag-key":"G1"}}}')
    rules.row(row)  # type: ignore[arg-type]
    assert all(s not in row["raw"] for s in (b"D1", b"F1", b"E1", b"G1")), row["raw"]


def test_a_server_rule_applies_to_the_sessions_it_matches() -> None:
    base = Redaction.from_config(environ={}, settings=SETTINGS)
    by_name = base.for_server("my-github", ["node", "server.js"])
    by_command = base.for_server(None, ["npx", "@modelcontextprotocol/server-github"])
    by_url = base.for_server(None, "https://api.GitHub.com/mcp")
    for rules in (by_name, by_command, by_url):
        assert "gh_secret" in rules.names and "everyone" not in rules.names
    assert base.for_server("quiet-files", ["x"]) is base  # the first match wins, and it adds nothing
    other = base.for_server("files", ["python", "fs.py"])
    assert "everyone" in other.names and "gh_secret" not in other.names
    row = _row(b'{"gh_secret":"S3cr3tGh","note":"n"}')
    by_name.row(row)  # type: ignore[arg-type]
    assert b"S3cr3tGh" not in row["raw"] and row["meta"]["redacted"] == ["body.gh_secret"]
    kept = Redaction.from_config(keep=True, environ={}, settings=SETTINGS)
    assert kept.for_server("my-github", ["x"]) is kept


def test_rules_read_the_config_file_and_a_bad_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('redact = ["from-file"]\n[[servers]]\nmatch = "gh"\nredact = ["tok"]\n')
    monkeypatch.setenv("MCP_INSPECTOR_CONFIG", str(config))
    monkeypatch.setenv("MCP_INSPECTOR_REDACT", "from-env")
    rules = redact.rules_from(["from-flag"])
    assert rules.names == {"from-file", "from-env", "from-flag"}
    assert "tok" in rules.for_server("gh", None).names
    assert redact.rules_from(keep=True).names == {"from-env"}  # --keep-secrets: the step is off anyway
    config.write_text("redact = 3\n")
    with pytest.raises(InspectorError, match=rf"{config}: redact"):
        redact.rules_from()
