"""Test helper: start HTTP MCP servers and `mcp-inspect proxy` as real subprocesses, or the proxy
(and the gateway) in this process (`proxy_in_process`: its composition root on a thread, stopped as
Ctrl-C stops it, without a Python process of its own).

Readiness is taken from what each process prints ("listening on ..."), or from the in-process
listener's `ListenerControl`, never from sleeps.
"""

from __future__ import annotations

import functools
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.conftest import EVERYTHING_BIN
from tests.warm_peers import demo_argv, inspector_argv, peer_argv

_PORT_FROM_LINE = re.compile(r"port (\d+)|:(\d+)/")


class LineProcess:
    """A subprocess whose stderr lines are collected; wait for one matching a pattern."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace")
            self.output.append(line)
            self.lines.put(line)
        self.lines.put("")

    def wait_for(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        regex = re.compile(pattern)
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(
                    f"no line matching {pattern!r} within {timeout}s: {self.output}"
                ) from None
            if not line:
                raise AssertionError(f"process exited before printing {pattern!r}: {''.join(self.output)}")
            if m := regex.search(line):
                return m

    def stop(self, sig: int = signal.SIGINT, timeout: float = 20.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


@contextmanager
def demo_http_server(transport: str = "streamable-http", *extra: str, warm: bool = False) -> Iterator[str]:
    """The demo server over HTTP; yields its MCP URL. `warm`: forked from the warm server
    (tests/warm_peers.py) rather than a Python start-up of its own."""
    args = ("--transport", transport, "--port", "0", *extra)
    server = LineProcess(demo_argv(*args, warm=warm))
    try:
        yield server.wait_for(r"listening on (\S+)").group(1)
    finally:
        server.stop()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def everything_http_server(mode: str) -> Iterator[str]:
    """server-everything in `streamableHttp` or `sse` mode; yields its MCP URL."""
    port = _free_port()
    server = LineProcess([str(EVERYTHING_BIN), mode], env={"PORT": str(port)})
    try:
        server.wait_for(rf"(listening on port|running on port) {port}")
        yield f"http://127.0.0.1:{port}/" + ("mcp" if mode == "streamableHttp" else "sse")
    finally:
        server.stop(signal.SIGTERM)


@contextmanager
def inspector_proxy(
    target: str, db: Path, *extra: str, env: dict[str, str] | None = None, warm: bool = False
) -> Iterator[tuple[str, LineProcess]]:
    """`mcp-inspect proxy` in front of `target` (`env`: more environment variables); yields the URL
    to give the client and the process. `warm`: forked from the warm server (tests/warm_peers.py),
    without the start-up of a Python of its own (then the process's pid is the launcher's)."""
    args = ["proxy", "--target", target, "--listen", "127.0.0.1:0", "--db", str(db), *extra]
    proxy = LineProcess(inspector_argv(*args, warm=warm), env=env)
    try:
        url = proxy.wait_for(r"point your client at (\S+)").group(1)
        yield url, proxy
    finally:
        proxy.stop()


class _Tee:
    """sys.stderr while an in-process proxy runs: every line written is also kept."""

    def __init__(self, under: Any, lines: list[str]) -> None:
        self._under, self._lines, self._part = under, lines, ""

    def write(self, text: str) -> int:
        self._part += text
        *done, self._part = self._part.split("\n")
        self._lines.extend(line + "\n" for line in done)
        return int(self._under.write(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._under, name)


class InProcess:
    """`mcp-inspect proxy` run by `proxy_in_process`: the lines it printed so far (`output`, as a
    `LineProcess`'s) and `stop()`, the stop Ctrl-C is (its exit status: 0, or the error re-raised)."""

    def __init__(self, options: Any) -> None:
        from inspector.transports.http_listener import ListenerControl

        self.output: list[str] = []
        self.control = ListenerControl()
        self.error: BaseException | None = None
        options.control = self.control
        self._thread = threading.Thread(
            target=self._run, args=(options,), name="in-process proxy", daemon=True
        )

    def _run(self, options: Any) -> None:
        from inspector.proxy_run import run_proxy

        try:
            run_proxy(options)
        except BaseException as exc:  # re-raised in the test by `wait_ready` or `stop`
            self.error = exc

    def wait_ready(self, timeout: float = 60.0) -> Any:
        """The listener's address once it serves (its start-up lines printed)."""
        deadline = threading.Event()
        timer = threading.Timer(timeout, deadline.set)
        timer.start()
        try:
            while not self.control.ready.wait(0.01):
                if not self._thread.is_alive():
                    if self.error is not None:
                        raise self.error
                    raise AssertionError(f"the proxy stopped before it served: {''.join(self.output)}")
                assert not deadline.is_set(), f"the proxy did not serve within {timeout}s: {self.output}"
        finally:
            timer.cancel()
        return self.control.address

    def stop(self, timeout: float = 60.0) -> int:
        self.control.stop()
        self._thread.join(timeout)
        assert not self._thread.is_alive(), f"the proxy did not stop within {timeout}s"
        if self.error is not None and not isinstance(self.error, KeyboardInterrupt):
            raise self.error
        return 0


@functools.cache
def _proxy_command(app: Any) -> Any:
    """The click command of `mcp-inspect proxy` (built once: the whole app's tree costs ~0.2 s)."""
    import typer

    return typer.main.get_command(app).commands["proxy"]  # type: ignore[attr-defined]


def proxy_options(*args: str) -> Any:
    """`ProxyOptions` from `mcp-inspect proxy ARGS...` as the command line reads them."""
    from inspector.cli import app
    from inspector.cli.common import options
    from inspector.proxy_run import ProxyOptions

    with _proxy_command(app).make_context("proxy", list(args)) as ctx:
        given = {k: list(v) if isinstance(v, tuple) else v for k, v in ctx.params.items()}
    return options(ProxyOptions, given)


@contextmanager
def running_proxy(*args: str, env: Mapping[str, str | None] | None = None) -> Iterator[InProcess]:
    """`mcp-inspect proxy ARGS...` in this process (`run_proxy` on a thread); yields it once it
    serves. What it sets for the process is put back when the block is left, as if it had been a
    process of its own: the redaction rules, the outbound settings, `env` (set for its run; None
    unsets a variable), the collector's frozen objects, sys.stderr (tee'd into `output`)."""
    import gc

    from inspector.capture import redact
    from inspector.transports import outbound

    saved = (redact._active, outbound._active, dict(os.environ), sys.stderr)
    running = InProcess(proxy_options(*args))
    tee = _Tee(sys.stderr, running.output)
    try:
        for key, value in (env or {}).items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        sys.stderr = tee
        running._thread.start()
        running.wait_ready()
        yield running
    finally:
        try:
            running.stop()
        finally:
            redact._active, outbound._active, environ, stderr = saved
            if sys.stderr is tee:  # else pytest's capture has put its own back meanwhile
                sys.stderr = stderr
            os.environ.clear()
            os.environ.update(environ)
            gc.unfreeze()


@contextmanager
def proxy_in_process(
    target: str, db: Path, *extra: str, env: Mapping[str, str | None] | None = None
) -> Iterator[tuple[str, InProcess]]:
    """`inspector_proxy` in this process (`running_proxy`): yields the URL to give the client and the
    running proxy. Not where the process is the point (its pid, signals, exit status, the console
    script), nor with a forward proxy in `env` (this process's clients would use it too), nor with
    the uvicorn listener (it stops on signals only)."""
    from inspector.proxy_run import client_url

    args = ["--target", target, "--listen", "127.0.0.1:0", "--db", str(db), *extra]
    with running_proxy(*args, env=env) as running:
        host, port = running.control.address[:2]
        yield client_url(target, host, port), running


@contextmanager
def scripted_http_server() -> Iterator[str]:
    """tests/peers/scripted_http_server.py, forked from the warm server of tests/warm_peers.py (uvicorn
    and Starlette imported once, not at each start); yields its base URL."""
    server = LineProcess(peer_argv("tests.peers.scripted_http_server"))
    try:
        yield server.wait_for(r"listening on (\S+)").group(1)
    finally:
        server.stop()


def free_port() -> int:
    """A port nothing listens on (for 'upstream down' tests)."""
    return _free_port()


@contextmanager
def keepalive_server() -> Iterator[str]:
    """tests/peers/keepalive_server.py (closes kept-alive connections on purpose); yields its base URL."""
    from tests.conftest import PEERS

    server = LineProcess([sys.executable, str(PEERS / "keepalive_server.py")])
    try:
        yield server.wait_for(r"listening on (\S+)").group(1)
    finally:
        server.stop()


@contextmanager
def forward_proxy(directory: Path) -> Iterator[tuple[str, LineProcess]]:
    """proxy.py (PyPI `proxy-py`), a real forward proxy (CONNECT and absolute-form requests), on a
    free loopback port; yields its URL and the process, whose stderr has one access-log line per
    proxied connection (written when it closes)."""
    import time

    port_file = directory / "forward-proxy.port"
    proxy = LineProcess(
        [sys.executable, "-m", "proxy", "--hostname", "127.0.0.1", "--port", "0",
         "--port-file", str(port_file), "--num-acceptors", "1", "--num-workers", "1"],
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            assert proxy.proc.poll() is None, f"proxy.py exited: {''.join(proxy.output)}"
            assert time.monotonic() < deadline, f"proxy.py never wrote its port: {''.join(proxy.output)}"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port_file.read_text().strip()}", proxy
    finally:
        proxy.stop()
