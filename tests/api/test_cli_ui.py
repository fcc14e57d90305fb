"""`mcp-inspect ui` and `mcp-inspect demo` as a user runs them: the printed URL works, Ctrl-C stops."""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx

from tests.cli_in_process import run
from tests.warm_peers import inspector_argv

CLI = [sys.executable, "-m", "inspector"]


class Running:
    """A CLI process (`argv`) whose output lines are collected by a reader thread."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            self.lines.put(line)

    def url(self, timeout: float = 90) -> str:
        """The UI URL the command prints."""
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no URL printed; output: {''.join(self.output)}") from None
            found = re.search(r"mcp-inspector UI: (http://\S+)", line)
            if found:
                return found.group(1)

    def interrupt(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(30)


def test_ui_prints_a_url_with_token_that_opens_the_api_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    """The console script's own process: Ctrl-C is sent to it."""
    run = Running([*CLI, "ui", "--db", str(tmp_path / "r.db"), "--port", "0", "--no-open"])
    try:
        url = run.url()
        found = re.fullmatch(r"(http://127\.0\.0\.1:\d+)/#token=([\w-]{20,})", url)
        assert found, url
        base, token = found.groups()
        with httpx.Client() as http:
            assert http.get(url).status_code in (200, 503)  # the fragment is never sent (503: UI not built)
            bearer = {"authorization": f"Bearer {token}"}
            assert http.get(f"{base}/api/sessions", headers=bearer).json()["total"] == 0
            assert httpx.get(f"{base}/api/sessions").status_code == 401
    finally:
        code = run.interrupt()
    assert code == 0, "".join(run.output)


def test_demo_records_then_serves_the_session_until_ctrl_c(tmp_path: Path) -> None:
    """A process forked from the warm server (tests/warm_peers.py: the Ctrl-C sent to it reaches the
    run; the console script's own process is the ui test's)."""
    run = Running(inspector_argv("demo", "--db", str(tmp_path / "d.db"), "--port", "0", "--no-open"))
    try:
        url = run.url()
        match = re.fullmatch(r"(http://127\.0\.0\.1:\d+)/sessions/(\d+)#token=([\w-]+)", url)
        assert match, url
        base, sid, token = match.groups()
        session = httpx.get(f"{base}/api/sessions/{sid}", params={"token": token}).json()
        assert session["name"] == "demo (legacy)" and session["state"] == "ended"
        assert session["message_count"] > 30
    finally:
        code = run.interrupt()
    assert code == 0, "".join(run.output)
    assert "initialize" in "".join(run.output)  # the terminal timeline came first


def test_demo_without_the_ui_records_and_exits(tmp_path: Path) -> None:
    """In-process (nothing of the process is the point here): the command's exit status and output."""
    done = run("demo", "--db", str(tmp_path / "d.db"), "--no-ui", input=b"", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "mcp-inspector UI" not in done.stdout + done.stderr and "completion/complete" in done.stdout
