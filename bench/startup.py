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

The commands (issue #36): `--help` and the read commands (`sessions`, `show 1`,
`lint 1`, `search tool`) on a 52-message database (the checked-in demo session,
`tests.sessions.load`), each from spawn to exit and from its bytecode (as installed),
beside `python -c "import sqlite3"` (the interpreter's own floor) in the same
interleaved rounds: median wall ms, the
ratio to that floor, median CPU ms (user + system: steadier than wall on a shared
machine). `call ping` against a stdio server (bench/responder.py) is given as the
ms it adds over the same server run direct (spawn, one answered ping, exit). One
`python -X importtime` run of each command says where its imports go: the part
SQLAlchemy and SQLModel hold, and the rest.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.peer import PROJECT_DIR, responder_argv, spawn_answered, startup_argv
from bench.wrap_exit import run_wrap_exit

STARTUP_SETUPS = ("direct", "socat", "wrap")
COMMAND_RUNS = 5  # the figure: median of 5
FLOOR = "import sqlite3"
# The read commands and their target (issue #36): <= 300 ms each; `call` <= 400 ms over its server.
COMMANDS: dict[str, list[str]] = {
    "--help": ["--help"],
    "sessions": ["sessions"],
    "show 1": ["show", "1"],
    "lint 1": ["lint", "1"],
    "search tool": ["search", "tool"],
}
COMMAND_TARGET_MS = 300.0
CALL_ADDED_TARGET_MS = 400.0
# Where imports go, by top-level package (self time of `-X importtime`).
IMPORT_GROUPS = {
    "sqlalchemy": "sqlalchemy+sqlmodel",
    "sqlmodel": "sqlalchemy+sqlmodel",
    "pydantic": "pydantic",
    "pydantic_core": "pydantic",
    "annotated_types": "pydantic",
    "typing_inspection": "pydantic",
    "typer": "typer+rich",
    "rich": "typer+rich",
    "markdown_it": "typer+rich",
    "pygments": "typer+rich",
    "mcp_types": "mcp-types",
    "inspector": "inspector",
}


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


def _importtime(args: list[str], env: dict[str, str] | None = None) -> list[tuple[int, int, str]]:
    """`python -X importtime ARGS`: (self µs, cumulative µs, indented module name) per import."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=PROJECT_DIR,
        timeout=120,
        check=False,
    ).stderr
    found = (re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (.*)$", line) for line in out.splitlines())
    return [(int(m.group(1)), int(m.group(2)), m.group(3)) for m in found if m and m.group(1).isdigit()]


def forwarding_imports() -> dict[str, float]:
    """Top-level modules imported before wrap forwards (cumulative ms each), from `-X importtime`."""
    lines = _importtime(["-c", "import inspector.entry, inspector.wrap"])
    if not lines:
        raise RuntimeError("python -X importtime printed no import: inspector does not import")
    return {name: cum / 1000 for _self, cum, name in lines if not name.startswith(" ")}


def run_startup(workdir: Path, runs: int, commands: bool = True) -> dict[str, Any]:
    """Median ms to the first answer per setup, the added ms over direct, and the forwarding imports;
    with `commands`, also the commands' start-up (run_commands: most of the section's processes)."""
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
    out: dict[str, Any] = {
        "runs": runs,
        "median_ms": med,
        "added_ms": {s: med[s] - med["direct"] for s in ("socat", "wrap")},
        "forwarding_imports_ms": round(sum(imports.values()), 1),
        "forwarding_heavy_imports": heavy,
        # Its end too (bench/wrap_exit.py): stdin closed -> exit, wrap beside the server alone.
        "exit": run_wrap_exit(workdir, runs),
    }
    if commands:
        # The commands (issue #36): read commands beside the interpreter's floor, call over its server.
        # At most `runs` of each (--startup-runs 2: a short sanity run spawns half as many processes).
        out["commands"] = run_commands(workdir, min(runs, COMMAND_RUNS))
    return out


def _timed(argv: list[str], env: dict[str, str], stdin: bytes | None = None) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one process from spawn to exit."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=PROJECT_DIR,
    )
    if stdin is not None:
        assert proc.stdin
        proc.stdin.write(stdin)
        proc.stdin.close()
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[1:5]} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def _direct_s(server: list[str]) -> float:
    """The server's own start: spawn, one answered ping, stdin closed, exit."""
    t0 = time.perf_counter()
    proc = spawn_answered(server)
    assert proc.stdin
    proc.stdin.close()
    proc.wait(timeout=60)
    return time.perf_counter() - t0


def import_shares(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """Import ms of one run of `argv` by group (IMPORT_GROUPS; "other" for the rest), from `-X importtime`."""
    groups: dict[str, float] = {}
    for own, _cum, name in _importtime(argv[1:], env):
        group = IMPORT_GROUPS.get(name.strip().split(".")[0], "other")
        groups[group] = groups.get(group, 0.0) + own / 1000
    return {k: round(v, 1) for k, v in groups.items()}


def run_commands(workdir: Path, runs: int = COMMAND_RUNS) -> dict[str, Any]:
    """The commands beside `python -c "import sqlite3"`, and `call` over its server run direct."""
    from tests.sessions import load  # the checked-in demo session: 52 messages

    db = workdir / "demo.db"
    load(db, "demo", name="demo")
    env = {**os.environ, "MCP_INSPECTOR_DB": str(db), "COLUMNS": "120"}
    # As installed: a package's modules run from their bytecode (pip writes it at install, Python on a
    # first run). Where $PYTHONDONTWRITEBYTECODE is set (this machine sets it), a checkout the tests
    # never ran in compiled inspector/ from source in every timed run: the warm-up run writes it.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    server = responder_argv()
    call_db = workdir / "call.db"
    argvs: dict[str, list[str]] = {FLOOR: [sys.executable, "-c", FLOOR]}
    argvs |= {name: [sys.executable, "-m", "inspector", *args] for name, args in COMMANDS.items()}
    argvs["call ping"] = [
        sys.executable,
        "-m",
        "inspector",
        "call",
        "ping",
        "--db",
        str(call_db),
        "--",
        *server,
    ]
    names = [*argvs, "direct"]
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in argvs}
    for argv in argvs.values():  # warm the page cache; the call database is created here
        _timed(argv, env)
    for r in range(runs):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            if name == "direct":
                wall[name].append(_direct_s(server))
                continue
            w, c = _timed(argvs[name], env)
            wall[name].append(w)
            cpu[name].append(c)
    med = {n: statistics.median(v) * 1000 for n, v in wall.items()}
    cpu_med = {n: statistics.median(v) * 1000 for n, v in cpu.items()}
    floor = med[FLOOR]
    return {
        "runs": runs,
        "messages": 52,
        "median_ms": med,
        "cpu_ms": cpu_med,
        "ratio": {n: med[n] / floor for n in argvs},
        "cpu_ratio": {n: cpu_med[n] / cpu_med[FLOOR] for n in argvs},
        "call_added_ms": med["call ping"] - med["direct"],
        "imports_ms": {n: import_shares(argvs[n], env) for n in [*COMMANDS, "call ping"]},
    }


def command_targets(cmds: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(name, target, measured, met) for each command and for call."""
    out = []
    for name in COMMANDS:
        ms = cmds["median_ms"][name]
        out.append(
            (
                f"start-up: mcp-inspect {name} (52 messages, median)",
                f"<= {COMMAND_TARGET_MS:.0f} ms",
                f"{ms:.0f} ms, {cmds['ratio'][name]:.1f}x import sqlite3",
                ms <= COMMAND_TARGET_MS,
            )
        )
    added = cmds["call_added_ms"]
    out.append(
        (
            "start-up: call ping on stdio, over the server's own start",
            f"<= {CALL_ADDED_TARGET_MS:.0f} ms",
            f"{added:+.0f} ms",
            added <= CALL_ADDED_TARGET_MS,
        )
    )
    return out


def print_commands(console: Console, cmds: dict[str, Any]) -> None:
    """The commands' table (bench/report.py prints it after the start-up table)."""
    t = Table(
        title=f"0b. Commands, spawn -> exit on a {cmds['messages']}-message database, median of "
        f'{cmds["runs"]} interleaved runs, beside `python -c "{FLOOR}"`',
        title_justify="left",
    )
    cols = (
        "command",
        "wall ms",
        "x floor",
        "cpu ms",
        "x floor cpu",
        "imports ms",
        "sqlalchemy+sqlmodel",
        "rest",
    )
    for col in cols:
        t.add_column(col, justify="left" if col == "command" else "right")
    for name, ms in cmds["median_ms"].items():
        if name == "direct":
            continue
        imp = cmds["imports_ms"].get(name)
        total = sum(imp.values()) if imp else None
        orm = imp.get("sqlalchemy+sqlmodel", 0.0) if imp else None
        rest = (
            ", ".join(
                f"{k} {v:.0f}"
                for k, v in sorted(imp.items(), key=lambda kv: -kv[1])
                if k != "sqlalchemy+sqlmodel"
            )
            if imp
            else "-"
        )
        t.add_row(
            name,
            f"{ms:.0f}",
            f"{cmds['ratio'][name]:.1f}",
            f"{cmds['cpu_ms'][name]:.0f}",
            f"{cmds['cpu_ratio'][name]:.1f}",
            "-" if total is None else f"{total:.0f}",
            "-" if orm is None or not total else f"{orm:.0f} ({100 * orm / total:.0f}%)",
            rest,
        )
    console.print(t)
    console.print(
        f"   call ping on stdio: {cmds['median_ms']['call ping']:.0f} ms, the server run direct "
        f"{cmds['median_ms']['direct']:.0f} ms: {cmds['call_added_ms']:+.0f} ms over the server's own start "
        f"(target <= {CALL_ADDED_TARGET_MS:.0f}); read commands' target <= {COMMAND_TARGET_MS:.0f} ms"
    )
