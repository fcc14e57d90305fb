"""The conformance suite's client command with OUR client in this one process: tests/conformance/client.py
(the same options from the scenario's context, the same two calls) where each `mcp-inspect call --auth`
runs in-process through the console script's own handling (tests/cli_in_process.py) instead of a process
of its own: one interpreter start and one import of the inspector per scenario instead of three.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(Path(__file__).parent)]

import client  # noqa: E402  (tests/conformance/client.py, beside this file)

from tests.cli_in_process import run  # noqa: E402


def _call(url: str, method: str, params: dict[str, object] | None, auth_args: list[str]) -> tuple[int, str]:
    import json

    argv = ["call", method, "--url", url, "--timeout", "20", *auth_args]
    if params is not None:
        argv += ["--params", json.dumps(params)]
    done = run(*argv)
    sys.stderr.write(done.stderr)
    sys.stdout.write(done.stdout)
    return done.returncode, done.stdout


if __name__ == "__main__":
    client._call = _call
    raise SystemExit(client.main())
