"""Issue #15: `mcp-inspect call` could not get past an authorization-protected server's 401.

It only took a pasted Authorization header, so as the client of the official
conformance suite's authorization scenarios it passed 0 checks. Now `call
--auth --auth-non-interactive` discovers, registers, authorizes with PKCE and
calls the tool: the suite's default metadata scenario passes every check.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.suite import NODE, SUITE, run_scenario


@pytest.mark.timeout(120)
def test_default_metadata_scenario_passes(tmp_path: Path) -> None:
    if not NODE.exists() or not SUITE.exists():
        pytest.fail("the conformance suite is not installed: run `make peers`")
    checks, output = run_scenario("auth/metadata-default", tmp_path)
    bad = [c for c in checks if c["status"] in ("FAILURE", "WARNING")]
    assert checks and not bad, f"{bad}\n{output[-3000:]}"
    assert any(c["id"] == "valid-bearer-token" for c in checks)
