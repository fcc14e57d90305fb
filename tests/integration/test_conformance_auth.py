"""The official conformance suite's client authorization scenarios, run against `mcp-inspect call --auth`.

Every auth scenario of a released revision (the suite's own listing; draft and
extension scenarios are left out) must pass every check: no FAILURE and no
WARNING. Issue #15: before `call --auth` existed our client passed 0 of them.
The counts per scenario are printed (pytest -s, or in the failure message).

Each scenario is one run of the suite (its own server, our client's own token file and database);
they run three at a time, each of our client's two calls in the adapter's one process
(tests/conformance/inproc_client.py).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.suite import INPROC_ADAPTER, NODE, RELEASED, SUITE, run_scenario, scenarios

# Scenarios at a time: each is a Node process, its server and our client, mostly waiting on each other.
AT_ONCE = 3


def _released() -> list[str]:
    if not NODE.exists() or not SUITE.exists():
        pytest.fail("the conformance suite is not installed: run `make peers` (make test does it)")
    return [name for name, revisions in scenarios() if any(RELEASED.match(r) for r in revisions)]


@pytest.mark.timeout(900)  # 16 scenarios, each bounded by the suite's 30 s client timeout
def test_every_released_auth_scenario_passes(tmp_path: Path) -> None:
    names = _released()
    assert len(names) >= 16, names  # the suite's released auth scenarios (0.1.16 lists 16)

    def scenario(name: str) -> tuple[list[dict[str, Any]], str]:
        work = tmp_path / name.replace("/", "_")
        work.mkdir()
        return run_scenario(name, work, adapter=INPROC_ADAPTER)

    with ThreadPoolExecutor(AT_ONCE) as pool:
        results = list(pool.map(scenario, names))
    rows = []
    failed = {}
    for name, (checks, output) in zip(names, results, strict=True):
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
