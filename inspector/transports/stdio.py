"""The stdio man-in-the-middle: spawn the server, forward bytes both ways, hand copies to the recorder.

Forwarding loops are blocking `os.read`/`os.write` in one thread per
stream, as measured in DESIGN.md (about 10-20 us per round trip, where an
asyncio relay added about 140 us). Each loop queues a copy for the recorder
(one queue put) and then writes what it read, so a response is never
recorded ahead of the request that caused it; with `durable` it also waits
for the commit before writing.

Shutdown follows the stdio transport's rules: on the client's EOF the
server's stdin is closed, and after a grace period the server gets SIGTERM,
then SIGKILL. SIGINT/SIGTERM sent to the shim are passed to the server (a
second one kills it). The shim exits with the server's exit status.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Sequence

from inspector.errors import SpawnError

# Neither `typing` nor `dataclasses` (with `inspect`, 10 ms) is imported on wrap's start-up path.
TYPE_CHECKING = False
if TYPE_CHECKING:  # the capture package is not imported on wrap's start-up path (wrap.py)
    from typing import Protocol

    class StreamTap(Protocol):
        """What the shim hands its bytes to: a recorder's `Tap`, or wrap's `EarlyTap` (which holds
        them until the store is open)."""

        def submit(self, direction: str, channel: str, data: bytes) -> None: ...
        def submit_durable(self, direction: str, channel: str, data: bytes) -> None: ...
        def end_stream(self, direction: str, channel: str) -> None: ...


__all__ = ["StdioShim", "WrapResult", "exit_code_of"]

READ_SIZE = 1 << 16


class WrapResult:
    """How the wrapped server ended."""

    __slots__ = ("exit_code", "reason", "returncode")

    def __init__(self, exit_code: int, returncode: int, reason: str) -> None:
        self.exit_code = exit_code  # what the shim should exit with
        self.returncode = returncode  # the server's Popen returncode (negative: killed by that signal)
        self.reason = reason


def exit_code_of(returncode: int) -> int:
    """A shell-style exit code: the status, or 128 + signal number."""
    return returncode if returncode >= 0 else 128 - returncode


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class StdioShim:
    """Runs one wrapped server process for the lifetime of the client connection."""

    def __init__(
        self,
        argv: Sequence[str],
        tap: StreamTap,
        *,
        durable: bool = False,
        grace: float = 2.0,
        stdin_fd: int = 0,
        stdout_fd: int = 1,
        stderr_fd: int = 2,
    ) -> None:
        self.argv = list(argv)
        self.tap = tap
        self.durable = durable
        self.grace = grace
        self.fds = (stdin_fd, stdout_fd, stderr_fd)
        self.reason = "server-exit"
        self._child: subprocess.Popen[bytes] | None = None
        self._signals = 0
        self._client_eof = threading.Event()

    def spawn(self) -> subprocess.Popen[bytes]:
        try:
            # Own process group: a Ctrl-C in the terminal reaches the server once, through us.
            self._child = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                process_group=0,
            )
        except (OSError, ValueError) as exc:
            # As a shell: 127 "not found", 126 found but not executable (permissions, format).
            code = 127 if isinstance(exc, FileNotFoundError) else 126
            raise SpawnError(f"cannot start {self.argv[0]!r}: {exc}", code) from exc
        return self._child

    def run(self, *, install_signal_handlers: bool = True) -> WrapResult:
        """Forward until the server exits; return its status. The caller ends the recorded session."""
        child = self._child or self.spawn()
        assert child.stdin and child.stdout and child.stderr
        stdin_fd, stdout_fd, stderr_fd = self.fds
        pumps = [
            threading.Thread(
                target=self._pump, args=(child.stdout.fileno(), stdout_fd, "s2c", "stdout"), daemon=True
            ),
            threading.Thread(
                target=self._pump, args=(child.stderr.fileno(), stderr_fd, "s2c", "stderr"), daemon=True
            ),
        ]
        client = threading.Thread(target=self._client_pump, args=(stdin_fd, child), daemon=True)
        previous = {}
        if install_signal_handlers:
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                previous[sig] = signal.signal(sig, self.on_signal)
        try:
            for t in pumps:
                t.start()
            client.start()
            returncode = child.wait()
            self._server_exited()
            for t in pumps:
                # A grandchild may still hold the pipes open; do not wait for it forever.
                t.join(timeout=2.0)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return WrapResult(exit_code_of(returncode), returncode, self.reason)

    def _server_exited(self) -> None:
        """Called once the server has exited, before the pumps are joined (a subclass's hook)."""

    def _pump(self, src: int, dst: int, direction: str, channel: str) -> None:
        tap = self.tap
        durable = self.durable
        forwarding = True
        while True:
            try:
                data = os.read(src, READ_SIZE)
            except OSError:
                data = b""
            if not data:
                break
            # Queue the copy before forwarding: the answer to this message can then
            # never be queued ahead of it by the other direction's thread.
            if durable:
                tap.submit_durable(direction, channel, data)
            else:
                tap.submit(direction, channel, data)
            if forwarding:
                try:
                    _write_all(dst, data)
                except OSError:
                    # The reader went away; keep recording what the peer still sends.
                    forwarding = False
        tap.end_stream(direction, channel)

    def _client_pump(self, stdin_fd: int, child: subprocess.Popen[bytes]) -> None:
        assert child.stdin is not None
        self._pump(stdin_fd, child.stdin.fileno(), "c2s", "stdin")
        if child.poll() is not None:
            return
        self._client_eof.set()
        if self.reason == "server-exit":
            self.reason = "client-eof"
        with contextlib.suppress(OSError):
            child.stdin.close()
        try:
            child.wait(self.grace)
            return
        except subprocess.TimeoutExpired:
            pass
        self.reason = "client-eof, server terminated"
        self._send(signal.SIGTERM)
        try:
            child.wait(self.grace)
        except subprocess.TimeoutExpired:
            self.reason = "client-eof, server killed"
            self._send(signal.SIGKILL)

    def terminate(self, reason: str) -> None:
        """Stop the server (SIGTERM, SIGKILL after the grace period): recording cannot go on."""
        self.reason = reason
        self._send(signal.SIGTERM)
        threading.Thread(target=self._kill_later, daemon=True).start()

    def _kill_later(self) -> None:
        child = self._child
        if child is None:
            return
        try:
            child.wait(self.grace)
        except subprocess.TimeoutExpired:
            self._send(signal.SIGKILL)

    @property
    def server_running(self) -> bool:
        """The server was spawned and has not been waited for yet."""
        child = self._child
        return child is not None and child.returncode is None

    def on_signal(self, signum: int, _frame: object) -> None:
        """The shim's SIGINT/SIGTERM/SIGHUP handler: the first is passed to the server, a second
        kills it (`run` installs it, unless its caller's own handler calls it)."""
        self._signals += 1
        name = signal.Signals(signum).name
        if self._signals == 1:
            self.reason = f"{name} forwarded to server"
            self._send(signum)
        else:
            self.reason = f"{name} repeated, server killed"
            self._send(signal.SIGKILL)

    def _send(self, signum: int) -> None:
        child = self._child
        if child is not None and child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signum)
