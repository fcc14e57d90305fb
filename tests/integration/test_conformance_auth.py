"""The official conformance suite's authorization scenarios (0.2.0-alpha.12, `SUITE_NEXT`): our OAuth
client (`mcp-inspect call --auth`) and our authorization server (`serve --auth`).

Client leg: the auth scenarios no requirement set scores, which tests/integration/
test_conformance_client.py (every scored client scenario of 2025-11-25 and 2026-07-28, the 25 auth
ones included) does not run: the two 2025-03-26 back-compatibility scenarios (the 0.1.16 run this
replaces scored them) must pass every check, no FAILURE and no WARNING; the extension scenarios
run too: those that pass must keep passing, the others are listed (`EXTENSIONS_NOT_YET`) with why.
Issue #15: before `call --auth` our client passed 0 of them. The counts per scenario are printed
(pytest -s, or in the failure message).

The scenarios run in one runner per (suite, revision), one after the other (`run_suites`: the
suite's own parallel run, every scenario with its own server, our client's own token file and
database); our client's runs (`mcp-inspect conformance client`) in this test's process, one at a
time, handed over by the runner's forwarding client command (tests/conformance/forward_client.py).

Authorization-server leg: `conformance authorization` against `serve --auth` (in this process),
with a client registered through its /register: the metadata scenario, and the authorization code
grant, whose browser step (open the authorization URL, come back to the suite's callback) this test
plays.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conformance.suite import NODE, SUITE_NEXT, counts, run_suites

# The runs: (the runner's suite, the revision it runs at).
RUNS = [
    ("backcompat", "2025-03-26"),
    ("extensions", ""),  # extension scenarios belong to no revision
]
BACKCOMPAT = ("auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback")
# Extension scenarios our client does not do yet, and why (issue #38 lists them).
EXTENSIONS_NOT_YET = {
    "auth/enterprise-managed-authorization": "token exchange + JWT bearer grant (SEP-990) not implemented",
    "auth/wif-jwt-bearer": "workload identity JWT bearer grant (SEP-1933) not implemented",
}


def _row(name: str, revision: str, counts: dict[str, int]) -> str:
    return (
        f"{name:45} {revision}  passed {counts['SUCCESS']:3}  failed {counts['FAILURE']}"
        f"  warnings {counts['WARNING']}"
    )


@pytest.mark.timeout(400)  # the runners one after the other, each bounded by run_suites' deadline
def test_back_compat_and_extension_auth_scenarios(tmp_path: Path) -> None:
    assert NODE.exists() and SUITE_NEXT.exists(), "the conformance suite is not installed: run `make peers`"
    wanted = [(name, "2025-03-26") for name in BACKCOMPAT]
    runs = {}
    for name, revision in RUNS:  # one runner at a time: a scenario's time in our client's queue
        # counts against its timeout, and every runner starts all its scenarios at once
        runs.update(
            run_suites([(name, revision)], tmp_path / f"{name}-{revision or 'none'}", suite=SUITE_NEXT)
        )
    by_revision: dict[str, dict[str, tuple[list[dict[str, Any]], str]]] = {}
    for (_, revision), (found, runner) in runs.items():
        for name, (checks, said) in found.items():
            by_revision.setdefault(revision, {})[name] = (checks, said + runner[-2000:])
    rows, failed = [], {}
    for name, revision in wanted:
        checks, output = by_revision.get(revision, {}).get(name, ([], "the scenario did not run"))
        rows.append(_row(name, revision, counts(checks)))
        bad = [c for c in checks if c.get("status") in ("FAILURE", "WARNING")]
        if not checks or bad:
            failed[f"{name} {revision}"] = (bad or "no checks (the suite did not run)", output[-3000:])
    extensions = by_revision.get("", {})
    assert len(extensions) >= len(EXTENSIONS_NOT_YET), sorted(extensions)
    for name in sorted(extensions):
        checks = extensions[name][0]
        rows.append(_row(name, "extension", counts(checks)))
        passes = bool(checks) and not any(c.get("status") in ("FAILURE", "WARNING") for c in checks)
        if passes == (name in EXTENSIONS_NOT_YET):  # a new pass is news too: take it off the list
            failed[f"{name} extension"] = (
                "passes: remove it from EXTENSIONS_NOT_YET" if passes else "fails",
                extensions[name][1][-3000:],
            )
    print("\nconformance 0.2.0-alpha.12 (client, auth):\n" + "\n".join(rows))
    assert not failed, "\n".join(rows) + "\n" + "\n\n".join(f"{n}: {b}\n{o}" for n, (b, o) in failed.items())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.timeout(120)
def test_serve_auth_passes_the_authorization_server_scenarios(tmp_path: Path) -> None:
    from inspector.scenario.runner import ServeOptions
    from tests.integration.serve_helpers import serve_http_in_process

    port = _free_port()  # the suite's callback listener (its -p)
    redirect = f"http://127.0.0.1:{port}/callback"
    with serve_http_in_process(tmp_path / "serve.db", ServeOptions(auth=True)) as url:
        issuer = url.removesuffix("/mcp")
        registered = httpx.post(
            f"{issuer}/register",
            json={"redirect_uris": [redirect], "token_endpoint_auth_method": "none", "client_name": "suite"},
        )
        assert registered.status_code == 201, registered.text
        command = [
            str(NODE), str(SUITE_NEXT), "authorization", "--url", issuer, "--client-id",
            registered.json()["client_id"], "--resource", url, "-p", str(port), "-o", str(tmp_path / "out"),
        ]  # fmt: skip
        runner = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        said = []
        try:
            assert runner.stdout is not None
            for line in runner.stdout:  # the browser's part: open the URL, follow it back
                said.append(line)
                if line.startswith(f"{issuer}/authorize?"):
                    answer = httpx.get(line.strip())
                    assert answer.status_code in (302, 303), answer.text
                    location = answer.headers["location"]
                    for _ in range(100):  # the suite starts its listener after printing the URL
                        try:
                            assert httpx.get(location).status_code == 200
                            break
                        except httpx.ConnectError:
                            time.sleep(0.05)
            runner.wait(timeout=60)
        finally:
            if runner.poll() is None:
                runner.kill()
                runner.wait()
    found = {
        re.sub(r"^authorization-server-|-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", p.parent.name): json.loads(
            p.read_text()
        )
        for p in (tmp_path / "out").rglob("checks.json")
    }
    rows = [f"{name:45} {counts(checks)}" for name, checks in sorted(found.items())]
    print("\nconformance 0.2.0-alpha.12 (authorization server):\n" + "\n".join(rows))
    assert sorted(found) == ["authorization-code-grant", "authorization-server-metadata-endpoint"], "".join(
        said
    )
    failures = [c for checks in found.values() for c in checks if c.get("status") == "FAILURE"]
    assert not failures, "".join(said)
    assert all(c.get("status") == "SUCCESS" for c in found["authorization-code-grant"]), "".join(said)
    # The one WARNING left: the metadata does not say client_id_metadata_document_supported (SHOULD,
    # 2025-11-25): our authorization server does not fetch client ID metadata documents.
    warnings = [c["id"] for checks in found.values() for c in checks if c.get("status") == "WARNING"]
    assert warnings == ["authorization-server-metadata-cimd"], warnings
