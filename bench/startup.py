"""Start-up: how long until a client gets the server's first answer, direct, through socat, through wrap.

Each run spawns the setup, writes a `ping` request at once (as an MCP
client writes `initialize` right after spawning its server) and times from
just before the spawn to the end of the answer line. The server is
bench/responder.py. The setups are started in interleaved rounds (rotating
the order) and the median of each is kept:

    direct   the server itself
    socat    `socat - EXEC:SERVER`: a C relay in between, the floor of one extra process
    wrap     `mcp-inspect wrap --db PATH --quiet -- SERVER` (a fresh database file each run)

The figures are the milliseconds each relay adds over direct. The same
section reports the imports on wrap's forwarding path (`python -X importtime
-c 'import inspector.entry, inspector.wrap'`, cumulative ms of the
top-level ones): the recorder's heavy imports must not be among them, and
the exit (bench/wrap_exit.py): from the client closing stdin to wrap's exit,
as a ratio of the server's own exit time in the same run.
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.peer import PROJECT_DIR, responder_argv, spawn_answered, startup_argv
from bench.wrap_exit import run_wrap_exit

STARTUP_SETUPS = ("direct", "socat", "wrap")


def _first_answer_s(argv: list[str]) -> float:
    """Seconds from spawn to the end of the first answer line."""
    t0 = time.perf_counter()
    proc = spawn_answered(argv)
    elapsed = time.perf_counter() - t0
    assert proc.stdin
    proc.stdin.close()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return elapsed


def forwarding_imports() -> dict[str, float]:
    """Top-level modules imported before wrap forwards (cumulative ms each), from `-X importtime`."""
    code = "import inspector.entry, inspector.wrap"
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        cwd=PROJECT_DIR,
        timeout=60,
        check=True,
    ).stderr
    tops: dict[str, float] = {}
    for line in out.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S.*)$", line)
        if m and not m.group(2).startswith(" "):
            tops[m.group(2)] = int(m.group(1)) / 1000
    return tops


def run_startup(workdir: Path, runs: int) -> dict[str, Any]:
    """Median ms to the first answer per setup, the added ms over direct, and the forwarding imports."""
    if shutil.which("socat") is None:
        raise RuntimeError("socat is missing: `make bench` installs it (apt-get socat)")
    server = responder_argv()
    times: dict[str, list[float]] = {s: [] for s in STARTUP_SETUPS}
    for _ in range(1):  # warm the page cache (python, node, the venv) before timing
        for setup in STARTUP_SETUPS:
            _first_answer_s(startup_argv(setup, server, workdir / "warm.db"))
    for r in range(runs):
        order = STARTUP_SETUPS[r % 3 :] + STARTUP_SETUPS[: r % 3]
        for setup in order:
            times[setup].append(_first_answer_s(startup_argv(setup, server, workdir / f"startup-{r}.db")))
    med = {s: statistics.median(v) * 1000 for s, v in times.items()}
    imports = forwarding_imports()
    heavy = sorted(m for m in imports if m.split(".")[0] in ("sqlalchemy", "sqlmodel", "typer", "rich"))
    return {
        "runs": runs,
        "median_ms": med,
        "added_ms": {s: med[s] - med["direct"] for s in ("socat", "wrap")},
        "forwarding_imports_ms": round(sum(imports.values()), 1),
        "forwarding_heavy_imports": heavy,
        # Its end too (bench/wrap_exit.py): stdin closed -> exit, wrap beside the server alone.
        "exit": run_wrap_exit(workdir, runs),
    }
