"""SIGTERM stops every long-running command as SIGINT does: its sessions end (issue #34, item 2).

`mock-server --http` stopped with SIGTERM exited 143 with its session still `recording` (no end, no
reason): uvicorn catches the signal, shuts down, then raises it again, and SIGTERM's default action
killed the process before the recorder was stopped. Service managers and CI stop with SIGTERM. The
process boundary is the point here: each command is started, used until a session records (its
ready line read, the database polled; no sleeps), sent SIGTERM, and its sessions must be ended with
a reason and the process gone as after Ctrl-C (exit status 0, or 130 where Typer sees the
interrupt; never killed by the signal). `wrap` forwards it to its server and exits as the server did.

`mock-server` and `serve` on stdio did not exit at all, on SIGINT as on SIGTERM, while their client
kept stdin open: the session was ended, but the anyio worker thread blocked reading stdin was joined
at the interpreter's exit. The client's stdin is now read by a daemon thread (`mock/serve.py`).
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx
import pytest

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, list_sessions, open_engine
from tests.conftest import SCRIPTED
from tests.warm_peers import inspector_argv

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
INIT_LINE = json.dumps(INIT).encode() + b"\n"
# `intercept watch`, forked from the warm server (tests/warm_peers.py).
WATCH = inspector_argv("intercept", "watch")


class Command:
    """A command under test: stdin kept open, stderr lines collected. A warm process
    (tests/warm_peers.py: the launcher passes the signals it is sent on to the run, and leaves with
    the run's exit status), but where SIGINT is ignored: that disposition is inherited from the parent,
    so that one is a plain process."""

    def __init__(self, argv: list[str], *, sigint_ignored: bool = False) -> None:
        self.proc = subprocess.Popen(
            inspector_argv(*argv, warm=not sigint_ignored),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # As a shell starts a background job (`cmd &`): SIGINT ignored, inherited.
            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace")
            self.output.append(line)
            self.lines.put(line)
        self.lines.put("")

    def _drain(self) -> None:  # stdout lines are looked at too (`ui` prints its URL there)
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode(errors="replace"))

    def wait_for(self, pattern: str, timeout: float = 60.0) -> re.Match[str]:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern!r}: {''.join(self.output)}") from None
            if not line:
                raise AssertionError(f"exited before printing {pattern!r}: {''.join(self.output)}")
            if m := regex.search(line):
                return m

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()


def _source(db: Path) -> None:
    """A recording for mock-server to play: initialize and its answer."""
    engine = open_engine(db, create=True)
    sid = create_session(engine, kind="stdio-wrap", target=["src"], name="src")
    b = MessageBuilder(sid)
    t = 1_700_000_000_000_000_000
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                    "serverInfo": {"name": "s", "version": "1"}}}  # fmt: skip
    rows = [
        *b.feed(t, "c2s", "stdin", INIT_LINE),
        *b.feed(t + 1_000_000, "s2c", "stdout", json.dumps(answer).encode() + b"\n"),
    ]
    writer = SessionWriter(engine, sid)
    writer.on_batch(rows, b.facts.snapshot())
    writer.on_end(0, "done", b.facts.snapshot())
    engine.dispose()


def _post_initialize(url: str) -> None:
    httpx.post(
        url,
        json=INIT,
        headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"},
        timeout=30,
    )


def _stdio(cmd: Command) -> None:
    cmd.write(INIT_LINE)


def _http(pattern: str, path: str = "") -> Callable[[Command], None]:
    def use(cmd: Command) -> None:
        _post_initialize(cmd.wait_for(pattern).group(1) + path)

    return use


# name: (argv after `mcp-inspect` with {db} for the database, how to make it record a session,
# whether it records one (`ui` does not: only its exit is checked))
CASES: dict[str, tuple[list[str], Callable[[Command], None], bool]] = {
    "mock-server --http": (
        ["mock-server", "src", "--db", "{db}", "--http", "127.0.0.1:0"],
        _http(r"mock server at (http://[^\s;]+)"),
        True,
    ),
    # On stdio the client's stdin stays open (the test holds it): the signal must end the session
    # and the process even while a thread is blocked reading it.
    "mock-server (stdio)": (["mock-server", "src", "--db", "{db}"], _stdio, True),
    "serve --http": (
        ["serve", "--db", "{db}", "--http", "127.0.0.1:0"],
        _http(r"(http://[^\s;]+/mcp)"),
        True,
    ),
    "serve (stdio)": (["serve", "--db", "{db}"], _stdio, True),
    # Started as a shell starts a background job (`cmd &`): SIGINT ignored. The SIGINT that SIGTERM
    # raises was dropped there, and the mock kept serving.
    "mock-server (stdio), SIGINT ignored": (["mock-server", "src", "--db", "{db}"], _stdio, True),
    "proxy": (
        ["proxy", "--db", "{db}", "--target", "http://127.0.0.1:9/mcp", "--listen", "127.0.0.1:0"],
        _http(r"point your client at (http://[^\s;]+)"),
        True,
    ),
    # The gateway: its one route's upstream refuses (as `proxy`'s), the session is made all the same.
    "proxy --config": (
        ["proxy", "--config", "{config}", "--db", "{db}"],
        _http(r"gateway on (http://\S+):", "/down/mcp"),
        True,
    ),
    "wrap": (["wrap", "--db", "{db}", "--", *SCRIPTED], _stdio, True),
    # (`demo` is left out: its first session takes 10-15 s to start here. Stopped by hand while its SDK
    # client drives the demo server through `wrap`, or in its UI phase (`ui`'s), it exits 130 with
    # the session ended, "client-eof".)
    "ui": (["ui", "--db", "{db}", "--port", "0", "--no-open"], lambda cmd: None, False),
}


def _recording(db: Path, before: set[int]) -> bool:
    """A new session exists (the proxy's, towards an upstream that refuses, may have ended already)."""
    engine = open_engine(db)
    try:
        return any(s.id not in before for s in list_sessions(engine))
    finally:
        engine.dispose()


@pytest.mark.parametrize("name", list(CASES))
def test_sigterm_ends_the_sessions_as_sigint(name: str, tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    _source(db)
    config = tmp_path / "gateway.toml"
    config.write_text(
        'listen = "127.0.0.1:0"\n[[route]]\nname = "down"\nprefix = "/down"\ntarget = "http://127.0.0.1:9/mcp"\n'
    )
    argv, use, records = CASES[name]
    cmd = Command(
        [a.replace("{db}", str(db)).replace("{config}", str(config)) for a in argv],
        sigint_ignored=name.endswith("SIGINT ignored"),
    )
    try:
        use(cmd)
        if records:

            async def recording() -> None:
                with anyio.fail_after(60):
                    while not _recording(db, {1}):
                        await anyio.sleep(0.05)

            anyio.run(recording)
        else:
            cmd.wait_for(r"http://")
        cmd.proc.send_signal(signal.SIGTERM)
        status = cmd.proc.wait(60)
    finally:
        if cmd.proc.poll() is None:
            cmd.proc.kill()
            cmd.proc.wait()
    out = "".join(cmd.output)
    if name == "wrap":  # the signal goes to the server, and the wrap exits as its server did
        assert status == 128 + signal.SIGTERM and "ended: SIGTERM forwarded to server" in out, (status, out)
    else:
        # As after Ctrl-C: 0, or 130 where Typer sees the interrupt; never killed by the signal (-15, 143).
        assert status in (0, 130), (status, out)
    assert "Traceback" not in out, out
    engine = open_engine(db)
    try:
        sessions = [s for s in list_sessions(engine) if s.id != 1]
    finally:
        engine.dispose()
    if records:
        assert sessions, out
    for s in sessions:
        assert s.status == "ended" and s.end_reason, (s.id, s.kind, s.status, s.end_reason, out)


def test_sigint_still_ends_them(tmp_path: Path) -> None:
    """(The same check with SIGINT for one command: the behaviour SIGTERM now has.)"""
    db = tmp_path / "rec.db"
    _source(db)
    cmd = Command(["mock-server", "src", "--db", str(db), "--http", "127.0.0.1:0"])
    try:
        _post_initialize(cmd.wait_for(r"mock server at (http://[^\s;]+)").group(1))
        cmd.proc.send_signal(signal.SIGINT)
        status = cmd.proc.wait(60)
    finally:
        if cmd.proc.poll() is None:
            cmd.proc.kill()
            cmd.proc.wait()
    assert status in (0, 130), status
    engine = open_engine(db)
    try:
        assert all(s.status == "ended" for s in list_sessions(engine)), os.linesep.join(cmd.output)
    finally:
        engine.dispose()


def test_sigterm_leaves_intercept_watch_with_the_terminal_given_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`intercept watch` records nothing: stopped by SIGTERM in its single-key mode, it exits as
    after Ctrl-C (130, no traceback) and the terminal is line-buffered again."""
    import termios

    from inspector.control.server import start_control
    from inspector.intercept import Interceptor, Rule, RuleSet
    from tests.integration.test_intercept_watch import Terminal, _pause

    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(tmp_path / "runtime"))
    pause = Rule.model_validate({"name": "hold", "match": {"method": ["tools/call"]}, "action": "pause"})
    interceptor = Interceptor(RuleSet(rules=[pause], pause_timeout_s=120), breakpoints=True)
    handle = start_control(interceptor, kind="wrap", target=["srv"], sessions=lambda: [1])
    _pause(interceptor)
    terminal = Terminal(WATCH)
    try:
        terminal.wait_for("f forward")
        assert not termios.tcgetattr(terminal.master)[3] & termios.ICANON  # single keys
        terminal.proc.send_signal(signal.SIGTERM)
        status = terminal.proc.wait(60)
        cooked = termios.tcgetattr(terminal.master)[3] & termios.ICANON
        rest = b""
        while True:  # what it printed on the way out (the pty gives EOF/EIO once drained)
            try:
                chunk = os.read(terminal.master, 65536)
            except OSError:
                break
            if not chunk:
                break
            rest += chunk
    finally:
        terminal.close()
        handle.close()
    assert status == 130, (status, rest)
    assert cooked, "the terminal was left in single-key mode"
    assert b"Traceback" not in terminal.seen + rest
