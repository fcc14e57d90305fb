"""Issue #38: every scored client scenario of the newest conformance suite (0.2.0-alpha.12, SUITE_NEXT),
both frozen requirement sets (2026-07-28 and 2025-11-25), against the shipped client command
`mcp-inspect conformance client`.

One runner per requirement set (`--requirements REVISION`: the suite's own parallel run, every
scenario with its own server), both at once; our client's runs in this test's process, one at a
time (`run_suites`: the runners' forwarding client command hands each over a Unix socket). A
scenario passes when it has checks and none is a FAILURE or WARNING. `json-schema-2020-12-preservation`
(run and reported, added after the sets were frozen) is held to the same bar. The table (scenario,
set, checks passed / failed / warnings) is printed (pytest -s, or in the failure message).

`EXPECTED_FAILURES`: scenarios known to fail (none now: before the OAuth work of issue #38 merged,
21 auth scenarios were listed there): listed, printed, and checked the other way round, so that
one that starts to pass fails this test until it is taken off the list. Extension scenarios are
printed, never asserted.

The sessions our client recorded for the non-auth scenarios are linted: nothing our client sent
(c2s) may be an error or a warning. What fires on the scenario servers' side is theirs (the suite's
mock servers: `session-id-in-2026`, `invalid-shape` of a deliberately bare result, ...).

`test_the_command_line_as_users_run_it`: a scenario with the real `mcp-inspect conformance client`
process, as `npx @modelcontextprotocol/conformance client --command ...` runs it (the scenario's
revision reaches the process through the runner's environment; every scenario's checks are the
in-process run's).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.cli_in_process import run
from tests.conformance.suite import NODE, SUITE_NEXT, counts, requirements, run_scenario, run_suites

SETS = ("2026-07-28", "2025-11-25")
REQUIREMENTS = "requirements"  # the label of a requirement-set run
HELD_TOO = {
    "2026-07-28": ["json-schema-2020-12-preservation"],
    "2025-11-25": ["json-schema-2020-12-preservation"],
}
# (scenario, set) known to fail; printed as such, and one that passes must be taken off.
EXPECTED_FAILURES: set[tuple[str, str]] = set()  # none since the OAuth work of issue #38 merged


def _client_findings(db: Path) -> list[str]:
    """Errors and warnings lint finds in what our client sent (c2s) in the sessions of `db`."""
    if not db.exists():
        return ["no session recorded"]
    conn = sqlite3.connect(db)
    sessions = [r[0] for r in conn.execute("SELECT id FROM session")]
    found = []
    for session in sessions:
        done = run("lint", str(session), "--db", str(db), "--json", "--min-severity", "warning")
        for finding in json.loads(done.stdout)["findings"]:
            row = conn.execute(
                "SELECT direction FROM message WHERE id = ?", (finding["message_id"],)
            ).fetchone()
            if row is None or row[0] == "c2s":
                found.append(f"{finding['rule']}: {finding['explanation']}")
    conn.close()
    return found


@pytest.mark.timeout(900)
def test_every_scored_client_scenario_passes(tmp_path: Path) -> None:
    if not NODE.exists() or not SUITE_NEXT.exists():
        pytest.fail("the newest conformance suite is not installed: run `make peers` (make test does it)")
    scored = {revision: requirements(revision) for revision in SETS}
    assert len(scored["2026-07-28"]) >= 32 and len(scored["2025-11-25"]) >= 18, scored
    runs = run_suites(
        [(REQUIREMENTS, r) for r in SETS], tmp_path, timeout_ms=120000, suite=SUITE_NEXT, by="requirements"
    )
    rows, failed, unexpected_passes, extensions = [], {}, [], []
    for revision in SETS:
        results, runner = runs[(REQUIREMENTS, revision)]
        wanted = scored[revision] + HELD_TOO[revision]
        for name in wanted:
            checks, output = results.get(name, ([], runner))
            n = counts(checks)
            ok = bool(checks) and not n["FAILURE"] and not n["WARNING"]
            expected = (name, revision) in EXPECTED_FAILURES
            mark = "pass" if ok else "FAIL (expected)" if expected else "FAIL"
            rows.append(
                f"{name:40} {revision}  passed {n['SUCCESS']:3}  failed {n['FAILURE']:2}  "
                f"warnings {n['WARNING']}  {mark}"
            )
            if ok and expected:
                unexpected_passes.append((name, revision))
            elif not ok and not expected:
                bad = [c for c in checks if c.get("status") in ("FAILURE", "WARNING")]
                failed[(name, revision)] = (bad or "no checks (the suite did not run it)", output[-3000:])
            if ok and not name.startswith("auth/"):
                own = tmp_path / "clients" / f"{REQUIREMENTS}-{revision}" / name.replace("/", "_")
                if findings := _client_findings(own / "rec.db"):
                    failed[(name, revision)] = (f"lint on what our client sent: {findings}", "")
        for name in sorted(set(results) - set(wanted)):
            n = counts(results[name][0])
            extensions.append(
                f"{name:40} {revision}  passed {n['SUCCESS']:3}  failed {n['FAILURE']:2}  (not scored)"
            )
    table = "\n".join(rows + ["", *extensions])
    print("\nconformance 0.2.0-alpha.12 (client):\n" + table)
    assert not unexpected_passes, (
        f"now passing: take them off EXPECTED_FAILURES: {unexpected_passes}\n{table}"
    )
    assert not failed, table + "\n" + "\n\n".join(f"{n}: {b}\n{o}" for n, (b, o) in failed.items())


@pytest.mark.timeout(300)
def test_the_command_line_as_users_run_it(tmp_path: Path) -> None:
    """The console script as the suite runs a user's command: a process of its own."""
    if not NODE.exists() or not SUITE_NEXT.exists():
        pytest.fail("the newest conformance suite is not installed: run `make peers` (make test does it)")
    name = "sep-2322-client-request-state"
    checks, output = run_scenario(name, tmp_path, 60000, suite=SUITE_NEXT, spec_version="2026-07-28")
    n = counts(checks)
    assert checks and not n["FAILURE"] and not n["WARNING"], f"{name}: {n}\n{output[-3000:]}"
