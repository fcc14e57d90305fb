"""The newest conformance suite's six SEP-2640 (Skills) scenarios: its server scenarios against
`serve conformance` (in this process) and its client scenarios against our client command
(`mcp-inspect conformance client`: it lists the skills and, where the scenario asks a host to use
them, loads each with every file verified), the four runners at once, the client's runs in this
process (`run_suites`; the command as a process per scenario, as users run it, is
test_conformance_client's). Every check passes (none is skipped, none fails)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conformance.suite import NODE, SUITE_NEXT, run_suites
from tests.integration.serve_helpers import serve_http_in_process

SERVER_SCENARIOS = ("sep-2640-skills-directory", "sep-2640-skills-enumeration", "sep-2640-skills-manifest")
CLIENT_SCENARIOS = (
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
)


def _checks(out: Path) -> list[dict[str, object]]:
    found = list(out.rglob("checks.json"))
    assert len(found) == 1, f"no checks written under {out}"
    checks: list[dict[str, object]] = json.loads(found[0].read_text())
    return checks


def _suite(*args: str, out: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(NODE), str(SUITE_NEXT), *args, "--force", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
    )
    return done.stdout + done.stderr


@pytest.mark.parametrize(
    ("revision", "scenarios"),
    [("2026-07-28", SERVER_SCENARIOS), ("2025-11-25", ("sep-2640-skills-enumeration",))],
)
def test_skills_server_scenarios_pass_against_serve_conformance(
    tmp_path: Path, revision: str, scenarios: tuple[str, ...]
) -> None:
    """On 2025-11-25 the cache attributes (ttlMs, cacheScope: 2026-07-28) are the suite's to skip."""
    from inspector.scenario.runner import ServeOptions

    with serve_http_in_process(tmp_path / "serve.db", ServeOptions(scenario="conformance")) as url:
        for scenario in scenarios:
            out = tmp_path / scenario
            said = _suite("server", "--url", url, "--scenario", scenario, "--spec-version", revision, out=out)
            checks = _checks(out)
            bad = [
                (c["id"], c["status"], c.get("errorMessage"))
                for c in checks
                if c["status"] != "SUCCESS"
                and not (revision < "2026-07-28" and str(c["id"]).endswith("-cache-attributes"))
            ]
            assert checks and not bad, f"{scenario}: {bad}\n{said[-2000:]}"


def test_skills_client_scenarios_pass_with_the_client_command(tmp_path: Path) -> None:
    runs = run_suites([(s, "") for s in CLIENT_SCENARIOS], tmp_path, 60000, suite=SUITE_NEXT, by="scenario")
    for scenario in CLIENT_SCENARIOS:
        results, runner = runs[(scenario, "")]
        found, said = results.get(scenario, ([], runner))
        checks = [c for c in found if c["status"] != "INFO"]
        bad = [(c["id"], c["status"], c.get("errorMessage")) for c in checks if c["status"] != "SUCCESS"]
        assert checks and not bad, f"{scenario}: {bad}\n{said[-3000:]}\n{runner[-2000:]}"
