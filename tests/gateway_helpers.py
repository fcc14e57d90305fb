"""Test helper: `mcp-inspect proxy --config FILE` (a gateway of several routes) as a real subprocess,
or in this process (`gateway_in_process`).

Readiness is taken from the start-up lines it prints, never from sleeps."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from tests.http_peers import InProcess, LineProcess, running_proxy
from tests.warm_peers import inspector_argv

__all__ = ["gateway", "gateway_in_process", "route_table"]


def route_table(name: str, prefix: str, target: str, *more: str) -> str:
    """One `[[route]]` table (`more`: extra `key = value` lines)."""
    lines = ["[[route]]", f"name = {name!r}", f"prefix = {prefix!r}", f"target = {target!r}", *more]
    return "\n".join(lines) + "\n"


@contextmanager
def gateway(
    config: str, db: Path, tmp: Path, *extra: str, env: dict[str, str] | None = None, warm: bool = False
) -> Iterator[tuple[str, LineProcess]]:
    """The gateway for this TOML text; yields its base URL (http://127.0.0.1:PORT) and the process.
    `warm`: forked from the warm server (tests/warm_peers.py; the process's pid is the launcher's)."""
    path = tmp / "gateway.toml"
    path.write_text(config)
    args = ["proxy", "--config", str(path), "--db", str(db), *extra]
    argv = inspector_argv(*args, warm=warm)
    proc = LineProcess(argv, env=env)
    try:
        base = proc.wait_for(r"gateway on (http://\S+):").group(1)
        proc.wait_for(r"recording into ")
        yield base, proc
    finally:
        proc.stop()


@contextmanager
def gateway_in_process(
    config: str, db: Path, tmp: Path, *extra: str, env: Mapping[str, str | None] | None = None
) -> Iterator[tuple[str, InProcess]]:
    """`gateway` in this process (tests/http_peers.py `running_proxy`: not where the process, its
    signals or exit status are the point); yields its base URL and the running gateway."""
    path = tmp / "gateway.toml"
    path.write_text(config)
    with running_proxy("--config", str(path), "--db", str(db), *extra, env=env) as running:
        base = re.search(r"gateway on (http://\S+):", "".join(running.output))
        assert base is not None, running.output
        yield base.group(1), running


def started_lines(proc: LineProcess | InProcess) -> list[str]:
    """The lines printed so far, without their line ends."""
    return [re.sub(r"\r?\n$", "", line) for line in proc.output]
