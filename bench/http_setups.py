"""The processes of the HTTP bench: the MCP servers, `mcp-inspect proxy` and mitmdump, started and stopped.

Setups, each in front of the same server process (one per response mode):
    direct   the bench talks to bench/http_server.py itself
    proxy    `python -m inspector proxy --target URL --listen 127.0.0.1:0 --db PATH`
    proxy_nomatch, proxy_delay0
             the same with `--faults FILE` (INTERCEPT_RULES): a rule that never matches,
             a `delay ms: 0` rule matching every message
    nginx    nginx as a reverse proxy (bench/http_nginx.py): the floor of one extra HTTP hop
    mitm     `mitmdump --mode reverse:URL` (quiet, no flow output), from bench/.venv-mitm

Every process writes its stderr (and stdout) to a file in the work directory;
readiness is the line each one prints with its URL (nginx and mitmdump: a
TCP connect to the port the bench chose for it).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from bench.http_nginx import nginx_config
from bench.peer import BENCH_DIR, PROJECT_DIR

HTTP_SETUPS = ("direct", "proxy", "nginx", "mitm")
HTTP_LABELS = {
    "direct": "direct",
    "proxy": "mcp-inspect proxy",
    "nginx": "nginx reverse",
    "mitm": "mitmdump reverse",
    "proxy_b": "proxy (--compare-prefix)",
    "proxy_nomatch": "proxy --faults, no match",
    "proxy_delay0": "proxy --faults, delay 0 all",
}
# The proxy with interception on (issue #17), side by side with the plain one (`--no-intercept-setups`
# skips them): a rules file whose only rule never matches (the cost of looking at every message), and one
# whose only rule delays every message by 0 ms (the cost of the intercepting path itself).
INTERCEPT_RULES = {
    "proxy_nomatch": ("rules:\n  - name: never\n    match: {method: no/such/method}\n    action: drop\n"),
    "proxy_delay0": "rules:\n  - name: all\n    match: {}\n    action: delay\n    ms: 0\n",
}
INTERCEPT_SETUPS: list[str] = list(INTERCEPT_RULES)
# How the proxy is started; `python -m bench --proxy-prefix` replaces it (e.g. a patched copy).
PROXY_PREFIX = [sys.executable, "-m", "inspector", "proxy"]
# `--compare-prefix`: a second proxy measured in the same rounds (setup "proxy_b": before/after a change).
COMPARE_PREFIX: list[str] = []


class Service:
    """A spawned process that announces its URL on stderr (or is probed on a port)."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        workdir: Path,
        *,
        ready: str | None = None,
        probe_port: int | None = None,
        url: str | None = None,
        timeout: float = 30.0,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.argv = argv
        self.log_path = workdir / f"{name}.log"
        self._log = open(self.log_path, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=PROJECT_DIR,
            env=env,
            start_new_session=True,  # a Ctrl-C of the bench reaches us only; we stop the children
        )
        self.url = url or ""
        try:
            self._wait_ready(ready, probe_port, timeout)
        except BaseException:
            self.stop()
            raise

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _wait_ready(self, ready: str | None, probe_port: int | None, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        pattern = re.compile(ready) if ready else None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}: {self.tail()}")
            if pattern is not None:
                m = pattern.search(self.log_path.read_text(errors="replace"))
                if m:
                    self.url = m.group(1)
                    return
            elif probe_port is not None:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", probe_port), 0.2):
                    return
            time.sleep(0.02)
        raise TimeoutError(f"{self.name} not ready after {timeout:.0f} s: {self.tail()}")

    def tail(self, n: int = 800) -> str:
        try:
            if not self._log.closed:
                self._log.flush()
            return self.log_path.read_bytes()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""

    def stop(self, sig: int = signal.SIGINT, timeout: float = 15.0) -> int:
        """Ask it to stop (SIGINT: the proxy then commits what it recorded); kill it after `timeout`."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(mode: str, workdir: Path) -> Service:
    return Service(
        f"server-{mode}",
        [sys.executable, str(BENCH_DIR / "http_server.py"), "--mode", mode],
        workdir,
        ready=r"bench http server listening on (\S+)",
    )


def start_proxy(
    target: str,
    db: Path,
    workdir: Path,
    tag: str,
    prefix: list[str] | None = None,
    extra: list[str] | None = None,
) -> Service:
    return Service(
        f"proxy-{tag}",
        [
            *(prefix or PROXY_PREFIX),
            "--target",
            target,
            "--listen",
            "127.0.0.1:0",
            "--db",
            str(db),
            *(extra or []),
        ],
        workdir,
        ready=r"point your client at (\S+)",
    )


def start_mitm(
    mitmdump: Path, target: str, workdir: Path, tag: str, extra: list[str] | None = None
) -> Service:
    port = free_port()
    path = target.split("/", 3)[3] if target.count("/") >= 3 else ""
    origin = target[: len(target) - len(path) - 1] if path else target
    return Service(
        f"mitm-{tag}",
        [
            str(mitmdump),
            "--mode",
            f"reverse:{origin}",
            "--listen-host",
            "127.0.0.1",
            "--listen-port",
            str(port),
            "--quiet",
            "--flow-detail",
            "0",
            "--set",
            f"confdir={workdir / 'mitmproxy-conf'}",  # its CA files go there, not to ~/.mitmproxy
            *(extra or []),
        ],
        workdir,
        probe_port=port,
        url=f"http://127.0.0.1:{port}/{path}",
    )


def start_nginx(nginx: Path, target: str, workdir: Path, tag: str) -> Service:
    """nginx in front of `target` (its configuration generated into a directory of its own)."""
    port = free_port()
    home = workdir / f"nginx-{tag}"
    home.mkdir(parents=True, exist_ok=True)
    conf = home / "nginx.conf"
    # As root, nginx's worker would become `nobody` and could not use the private temp dirs.
    conf.write_text(nginx_config(target, port, home, user="root" if os.geteuid() == 0 else None))
    path = target.split("/", 3)[3] if target.count("/") >= 3 else ""
    return Service(
        f"nginx-{tag}",
        # -e: the error log before the configuration is read (else /var/log/nginx, maybe not writable)
        [str(nginx), "-p", str(home), "-c", str(conf), "-e", str(home / "nginx-error.log")],
        workdir,
        probe_port=port,
        url=f"http://127.0.0.1:{port}/{path}",
    )
