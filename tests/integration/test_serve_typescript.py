"""`mcp-inspect serve` against the official TypeScript SDK client (tests/peers/serve_client.mjs)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PEERS
from tests.integration.serve_helpers import client_answers, mock_rows, serve_argv, serve_http_in_process

# `never` and `malformed` are expected to time out: a short timeout each (the others keep 5 s).
TOOLS = ["ask_llm", "list_roots", "fill_form", "open_url", "never@1000", "malformed@1000"]

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def _run_client(*target: str) -> dict[str, Any]:
    out = subprocess.run(
        ["node", str(PEERS / "serve_client.mjs"), *target, "--", *TOOLS],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=PEERS,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert lines[0]["connected"]["name"] == "mcp-inspect-mock"
    return {line["tool"]: line for line in lines[1:]}


def _check(calls: dict[str, Any], db: Path, *, cancels: int) -> None:
    text = {name: c["result"]["content"][0]["text"] for name, c in calls.items() if "result" in c}
    assert text["ask_llm"] == "The model said: hello from the ts sdk"
    assert "file:///ts/project" in text["list_roots"] and '"name":"Grace"' in text["fill_form"]
    assert text["open_url"] == "action: accept"
    # A server that never answers, or answers with bytes that are not JSON: the client times out.
    assert calls["never"]["code"] == -32001 and calls["malformed"]["code"] == -32001
    answers = client_answers(db)
    assert answers["sampling/createMessage"][0]["model"] == "ts-model"
    assert answers["roots/list"][0]["roots"] == [{"uri": "file:///ts/project", "name": "ts project"}]
    assert answers["elicitation/create"] == [
        {"action": "accept", "content": {"name": "Grace"}},
        {"action": "accept"},
    ]
    rows = mock_rows(db)
    assert any(r.direction == "s2c" and r.kind == "invalid" for r in rows)  # the malformed answer
    # The TS client cancels what timed out (over HTTP it may close before the last cancel is posted).
    cancelled = [r for r in rows if r.method == "notifications/cancelled" and r.direction == "c2s"]
    assert len(cancelled) >= cancels


def test_typescript_client_over_stdio(db_path: Path) -> None:
    _check(_run_client("stdio", *serve_argv(db_path, warm=True)), db_path, cancels=2)


def test_typescript_client_over_http(db_path: Path) -> None:
    with serve_http_in_process(db_path) as url:
        calls = _run_client("http", url)
    _check(calls, db_path, cancels=1)
