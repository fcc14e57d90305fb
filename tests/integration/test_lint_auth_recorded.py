"""The authorization lint rules on real recorded flows: the mock client (`call --auth`) against the
Python SDK's protected server broken on purpose (tests/peers/oauth_server.py --fault) gives the
findings of what was broken, each with its spec section, and the unbroken server none at all (the
SDK clients' good flows through the recording proxy: tests/integration/test_proxy_auth_sdk_clients.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_in_process import Ran, run
from tests.http_peers import LineProcess
from tests.lint_auth_recordings import all_findings, auth_findings
from tests.warm_peers import peer_argv

SPEC = "https://modelcontextprotocol.io/specification/"


def _call_with_auth(tmp_path: Path, *faults: str) -> tuple[Path, Ran]:
    """`call tools/list --auth` (the mock client) against the protected server with these faults."""
    args = [a for fault in faults for a in ("--fault", fault)]
    server = LineProcess(peer_argv("tests.peers.oauth_server", *args))
    db = tmp_path / "rec.db"
    try:
        url = server.wait_for(r"listening on (\S+)").group(1)
        ran = run(  # in this process (tests/cli_in_process.py); the server is a process
            "call", "--db", str(db), "tools/list", "--url", url, "--auth", "--auth-non-interactive",
            "--timeout", "20", env={"MCP_INSPECTOR_AUTH_FILE": str(tmp_path / "auth.json")},
        )  # fmt: skip
    finally:
        server.stop()
    return db, ran


@pytest.mark.timeout(120)
def test_the_good_flow_has_no_findings(tmp_path: Path) -> None:
    db, run = _call_with_auth(tmp_path)
    assert run.returncode == 0, run.stderr
    assert all_findings(db) == []


@pytest.mark.timeout(120)
def test_a_broken_server_gives_the_findings(tmp_path: Path) -> None:
    db, run = _call_with_auth(tmp_path, "no-resource-metadata", "incomplete-as-metadata", "wrong-issuer")
    assert run.returncode != 0 and "issuer" in run.stderr  # the mock client stops there, as it must
    found = auth_findings(db)
    rules = sorted({rule for rule, _why, _spec in found})
    assert rules == [
        "auth-401-without-resource-metadata",
        "auth-issuer-mismatch",
        "auth-server-metadata-incomplete",
    ], found
    for rule, _why, spec in found:
        assert spec.count(SPEC) == 1 and "basic/authorization#" in spec, (rule, spec)
    assert any("response_types_supported" in why for _r, why, _s in found)
    assert any("other-issuer" in why for _r, why, _s in found)
