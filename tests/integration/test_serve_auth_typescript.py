"""`serve --auth` against the official TypeScript SDK client with its own OAuth support (an
`authProvider`; tests/peers/serve_auth_client.mjs): it authorizes and calls a tool, and the faults
it must refuse stop it before it authorizes. Where this SDK release does not refuse (it checks
neither the metadata's issuer nor S256 support) the test is a strict xfail, so it turns red when
the SDK starts refusing."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from inspector.scenario.runner import ServeOptions
from tests.conftest import PEERS
from tests.integration.serve_helpers import serve_http_in_process
from tests.secrets_scan import secret_leaks

CLIENT = PEERS / "serve_auth_client.mjs"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def _run(url: str) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["node", str(CLIENT), url, "echo"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_typescript_auth_provider_authorizes_and_calls_a_tool(db_path: Path) -> None:
    with serve_http_in_process(db_path, ServeOptions(auth=True)) as url:
        events = _run(url)
    assert events[0] == {"authorize": "mcp", "status": 302}
    assert events[1]["result"]["content"][0]["text"] == "from ts"
    issued = events[-1]["issued"]
    assert len(issued) >= 3  # code, access and refresh token, client secret
    leaks = secret_leaks(db_path, issued)
    assert not leaks, leaks


_NOT_CHECKED = "the TypeScript SDK 1.32 does not check this; the spec says the client must refuse"


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("resource-mismatch", "does not match expected"),
        pytest.param(
            "wrong-issuer",
            "issuer",
            marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=_NOT_CHECKED),
        ),
        pytest.param(
            "no-s256",
            "S256",
            marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=_NOT_CHECKED),
        ),
    ],
)
def test_typescript_refuses_the_faults(db_path: Path, fault: str, message: str) -> None:
    with serve_http_in_process(db_path, ServeOptions(auth_faults=(fault,))) as url:
        events = _run(url)
    assert not any("authorize" in e for e in events), events  # stopped before the authorization request
    assert message in events[0].get("error", ""), events
