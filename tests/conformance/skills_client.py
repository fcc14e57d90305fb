"""The conformance suite's client command for its SEP-2640 (Skills) client scenarios: OUR client,
`mcp-inspect call` in this process (tests/cli_in_process.py), doing what
`inspector.mock.skills.conformance_call` says the scenario in $MCP_CONFORMANCE_SCENARIO asks of a
host (list only; or list and load each skill, every file verified). The suite gives the server URL
as the last argument; the recording goes to $MCP_INSPECTOR_DB.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

from inspector.mock.skills import conformance_call  # noqa: E402
from tests.cli_in_process import run  # noqa: E402


def main() -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    args = conformance_call(scenario)
    if args is None:
        sys.stderr.write(f"not a skills scenario: {scenario!r}\n")
        return 2
    done = run("call", *args, "--url", sys.argv[-1], "--timeout", "20")
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
