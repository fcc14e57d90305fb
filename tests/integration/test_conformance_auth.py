"""The official conformance suite's client authorization scenarios, run against `mcp-inspect call --auth`.

Every auth scenario of a released revision (the suite's own listing; draft and
extension scenarios are left out) must pass every check: no FAILURE and no
WARNING. Issue #15: before `call --auth` existed our client passed 0 of them.
The counts per scenario are printed (pytest -s, or in the failure message).

The scenarios run in one runner per revision (`run_suites`: the suite's own parallel run, every
scenario with its own server, our client's own token file and database), each scenario under
the newest released revision it is listed for; our client's runs (its two calls each) in this
test's process, one at a time, handed over by the runners' forwarding client command
(tests/conformance/forward_client.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.suite import NODE, RELEASED, SUITE, run_suites, scenarios

# The runner's suite that holds a revision's scenarios: 2025-03-26's are back-compatibility ones.
SUITE_OF = {"2025-03-26": "backcompat"}


def _released() -> dict[str, str]:
    """Each released scenario and the newest released revision it is listed for."""
    if not NODE.exists() or not SUITE.exists():
        pytest.fail("the conformance suite is not installed: run `make peers` (make test does it)")
    found = {}
    for name, revisions in scenarios():
        released = sorted(r for r in revisions if RELEASED.match(r))
        if released:
            found[name] = released[-1]
    return found


@pytest.mark.timeout(600)  # the runners at once, each bounded by its 120 s client timeout
def test_every_released_auth_scenario_passes(tmp_path: Path) -> None:
    released = _released()
    names = sorted(released)
    assert len(names) >= 16, names  # the suite's released auth scenarios (0.1.16 lists 16)
    runs = run_suites([(SUITE_OF.get(r, "auth"), r) for r in sorted(set(released.values()))], tmp_path)
    rows = []
    failed = {}
    for name in names:
        revision = released[name]
        results, runner = runs[(SUITE_OF.get(revision, "auth"), revision)]
        checks, output = results.get(name, ([], runner))
        counts = {
            s: sum(1 for c in checks if c.get("status") == s) for s in ("SUCCESS", "FAILURE", "WARNING")
        }
        rows.append(
            f"{name:45} passed {counts['SUCCESS']:3}  failed {counts['FAILURE']}  warnings {counts['WARNING']}"
        )
        bad = [c for c in checks if c.get("status") in ("FAILURE", "WARNING")]
        if not checks or bad:
            failed[name] = (bad or "no checks (the suite did not run)", output[-3000:])
    print("\nconformance (client, auth):\n" + "\n".join(rows))
    assert not failed, "\n".join(rows) + "\n" + "\n\n".join(f"{n}: {b}\n{o}" for n, (b, o) in failed.items())
