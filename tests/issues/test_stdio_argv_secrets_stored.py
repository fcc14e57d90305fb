"""Secrets typed on a stdio server's command line were stored as typed.

`mcp-inspect wrap -- server --api-key sk-123 --token=ghp_... -e GITHUB_TOKEN=...` stored the
whole argv in the session's `target` column (and the client that ran `wrap` stored it in its own
session's target too), although the same values in a header or a URL query were redacted.
After the fix the recorded command holds `[secret:arg.NAME]` placeholders, and whatever runs a
recorded command again fills them through the `Secrets` mechanism: a replay from `--secret
NAME=VALUE` or $MCP_INSPECTOR_SECRET_NAME (naming the missing ones), a mock client (the UI's
resend page connects to the recorded `{command}`) from the environment, or a 400 naming them.

The server is a real SDK server (tests/peers/argv_server.py) that logs the argv it was started
with to $ARGV_LOG, outside any recording, so the test sees what really ran.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from inspector.store import get_session, open_engine
from tests.api.conftest import serve
from tests.api.test_client_api import _connect, _ok, _request
from tests.cli_in_process import Ran, run
from tests.secrets_scan import placeholders, secret_leaks
from tests.shim_process import ended_session
from tests.warm_peers import inspector_argv, peer_argv

API_KEY = "ArgvApiKeySecret3f9a1"
TOKEN = "ArgvTokenSecret7c2e4"
ENV_TOKEN = "ArgvEnvTokenSecret5b8d0"
SECRETS = [API_KEY, TOKEN, ENV_TOKEN]
SERVER = peer_argv("tests.peers.argv_server")  # an SDK server: forked warm (tests/warm_peers.py)
TYPED = ["--api-key", API_KEY, f"--token={TOKEN}", "-e", f"GITHUB_TOKEN={ENV_TOKEN}", "--verbose"]
STORED = [
    "--api-key",
    "[secret:arg.api-key]",
    "--token=[secret:arg.token]",
    "-e",
    "GITHUB_TOKEN=[secret:arg.github_token]",
    "--verbose",
]


def _started(log: Path) -> list[list[str]]:
    """The argv of each start of the argv server, in order."""
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real client (`call`, in-process) lists the tools of the argv server through `wrap` (a process,
    as an MCP host starts it); both record (once for the file: each test gets a copy, `wrapped`)."""
    folder = tmp_path_factory.mktemp("recorded")
    wrap_db, call_db, log = folder / "wrap.db", folder / "call.db", folder / "argv.jsonl"
    wrap = inspector_argv("wrap", "--db", str(wrap_db), "--")  # forked from the warm server
    out = run(
        "call", "tools/list", "--db", str(call_db), "--", *wrap, *SERVER, *TYPED, env={"ARGV_LOG": str(log)},
        timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert _started(log) == [TYPED]  # the server got the secrets
    engine = open_engine(wrap_db)
    ended_session(engine)  # the wrap's session is in (see tests/shim_process.py)
    engine.dispose()
    return folder


@pytest.fixture
def wrapped(recorded: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """The two databases and the argv log of `recorded`, copied for this test."""
    copy = shutil.copytree(recorded, tmp_path / "recorded")
    return copy / "wrap.db", copy / "call.db", copy / "argv.jsonl"


def test_wrap_stores_command_line_secrets_as_placeholders(wrapped: tuple[Path, Path, Path]) -> None:
    wrap_db, call_db, _log = wrapped
    for db in (wrap_db, call_db):
        assert secret_leaks(db, SECRETS) == [], db.name
    engine = open_engine(wrap_db, create=False)
    assert get_session(engine, "last").target == [*SERVER, *STORED]
    engine.dispose()
    assert "[secret:arg.api-key]" in placeholders(call_db)  # the client's target is the wrap command


def test_a_replay_given_the_secrets_runs_the_command_with_them(
    wrapped: tuple[Path, Path, Path], mcp_inspect: Callable[..., Ran]
) -> None:
    wrap_db, _call_db, log = wrapped
    engine = open_engine(wrap_db, create=False)
    recorded = get_session(engine, "last").target
    engine.dispose()
    env = {"ARGV_LOG": str(log), "MCP_INSPECTOR_SECRET_ARG_GITHUB_TOKEN": ENV_TOKEN}
    out = mcp_inspect(
        "replay", "1", "--db", str(wrap_db), "--secret", f"arg.api-key={API_KEY}",
        "--secret", f"arg.token={TOKEN}", "--", *recorded, env=env,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert _started(log)[-1] == TYPED  # the replayed server saw the real values
    assert secret_leaks(wrap_db, SECRETS) == []  # the replay's own session redacted them again

    out = mcp_inspect("replay", "1", "--db", str(wrap_db), "--", *recorded, env={"ARGV_LOG": str(log)})
    assert _started(log)[-1] == STORED  # run with the placeholders, and said so:
    for name, var in (
        ("arg.api-key", "MCP_INSPECTOR_SECRET_ARG_API_KEY"),
        ("arg.token", "MCP_INSPECTOR_SECRET_ARG_TOKEN"),
        ("arg.github_token", "MCP_INSPECTOR_SECRET_ARG_GITHUB_TOKEN"),
    ):
        assert name in out.stderr and var in out.stderr, out.stderr


def test_a_mock_client_connected_to_the_recorded_command_fills_it_from_the_environment(
    wrapped: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    wrap_db, _call_db, log = wrapped
    monkeypatch.setenv("ARGV_LOG", str(log))
    for api in serve(wrap_db):
        # The resend page's target: the recorded session's command, placeholders and all.
        doc = _ok(api.http.get("/api/sessions/1/messages/1/resend"))
        assert doc["target"] == {"command": [*SERVER, *STORED]}
        refused = api.http.post(
            "/api/clients", json={"target": doc["target"], "protocol_version": "2025-11-25"}
        )
        assert refused.status_code == 400, refused.text
        assert "MCP_INSPECTOR_SECRET_ARG_API_KEY" in refused.json()["detail"]
        assert len(_started(log)) == 1  # nothing was started with the placeholders

        monkeypatch.setenv("MCP_INSPECTOR_SECRET_ARG_API_KEY", API_KEY)
        monkeypatch.setenv("MCP_INSPECTOR_SECRET_ARG_TOKEN", TOKEN)
        monkeypatch.setenv("MCP_INSPECTOR_SECRET_ARG_GITHUB_TOKEN", ENV_TOKEN)
        client = _connect(api, doc["target"], "2025-11-25")
        answer = _request(api, client["id"], "tools/call", {"name": "argv", "arguments": {}})
        assert answer["result"]["content"][0]["text"].split("\n") == TYPED  # live, to the person
        _ok(api.http.delete(f"/api/clients/{client['id']}"), 204)
    assert _started(log)[-1] == TYPED
    assert secret_leaks(wrap_db, SECRETS) == []  # not in the client's target nor in the recorded answer
