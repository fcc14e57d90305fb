"""`mcp-inspect intercept watch` in a real pseudo-terminal: the live queue of a real control channel
(a real `Interceptor` in this process), acted on with single keys.

A paused message shows with its countdown; `f` forwards it (the hold's outcome is the original
bytes); a message paused while watching appears without a key press (the long poll); `r` then a
typed `CODE MESSAGE` answers it with that error; `q` quits with status 0 and the terminal is
given back. Every line drawn fits 80 columns.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.control.server import ControlHandle, start_control
from inspector.intercept import Interceptor, Rule, RuleSet, Seen
from tests.cli_in_process import run

CALL = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo"}}\n'
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]")


@pytest.fixture
def control(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Interceptor, ControlHandle]]:
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(tmp_path / "runtime"))
    pause = Rule.model_validate({"name": "hold", "match": {"method": ["tools/call"]}, "action": "pause"})
    interceptor = Interceptor(RuleSet(rules=[pause], pause_timeout_s=120), breakpoints=True)
    handle = start_control(interceptor, kind="wrap", target=["srv"], sessions=lambda: [1])
    yield interceptor, handle
    handle.close()


class Terminal:
    def __init__(self, argv: list[str]) -> None:
        self.master, slave = pty.openpty()
        env = {**os.environ, "COLUMNS": "80", "LINES": "40", "TERM": "xterm"}
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.seen = b""

    def wait_for(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text.encode() not in ANSI.sub(b"", self.seen):
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} not shown; the screen: {ANSI.sub(b'', self.seen)[-2000:]!r}"
            ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
            if ready:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:
                    break

    def type(self, text: str) -> None:
        self.seen = b""
        os.write(self.master, text.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        os.close(self.master)


def _pause(interceptor: Interceptor, raw: bytes = CALL) -> str:
    held = interceptor.decide(Seen.of("c2s", raw, interceptor.tracker)).held
    assert held is not None
    return held.id


def test_watch_forwards_and_answers_with_single_keys(control: tuple[Interceptor, ControlHandle]) -> None:
    interceptor, _handle = control
    first = _pause(interceptor)
    held = interceptor.get_pending(first)
    terminal = Terminal([sys.executable, "-m", "inspector", "intercept", "watch"])
    try:
        terminal.wait_for("tools/call echo")
        terminal.wait_for("f forward")
        assert all(len(line) <= 80 for line in ANSI.sub(b"", terminal.seen).decode().splitlines())
        terminal.type("f")
        terminal.wait_for(f"{first}: forward")
        assert held is not None and held.outcome is not None
        assert held.outcome.intervention is not None and held.outcome.intervention.by == "user"
        assert [e.raw for e in held.outcome.effects] == [CALL]  # type: ignore[union-attr]

        second = _pause(interceptor, CALL.replace(b'"id":5', b'"id":6'))
        later = interceptor.get_pending(second)
        terminal.wait_for(second)  # shown without a key: the long poll
        terminal.type("r")
        terminal.wait_for("CODE MESSAGE")
        terminal.type("-32010 not today\n")
        terminal.wait_for(f"{second}: respond")
        assert later is not None and later.outcome is not None
        assert [e.raw for e in later.outcome.effects] == [  # type: ignore[union-attr]
            b'{"jsonrpc":"2.0","id":6,"error":{"code":-32010,"message":"not today"}}\n'
        ]
        terminal.type("q")
        assert terminal.proc.wait(20) == 0
    finally:
        terminal.close()


def test_watch_needs_a_terminal(control: tuple[Interceptor, ControlHandle]) -> None:
    out = run("intercept", "watch")  # in-process: stdin and stdout are no terminal
    assert out.returncode == 2 and "run it in a terminal" in out.stderr
