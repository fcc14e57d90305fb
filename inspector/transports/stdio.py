"""The stdio man-in-the-middle: spawn the server, forward bytes both ways, hand copies to the recorder.

Forwarding loops are blocking `os.read`/`os.write` in one thread per
stream, as measured in DESIGN.md (about 10-20 us per round trip, where an
asyncio relay added about 140 us). Each loop queues a copy for the recorder
(one queue put) and then writes what it read, so a response is never
recorded ahead of the request that caused it; with `durable` it also waits
for the commit before writing.

With `addons` that decide (`wrap --faults/--intercept`: `inspector.flow`), the
stdin and stdout pumps frame NDJSON lines themselves and hand each to the
addons as a `Flow`; the addon's `Verdict` says what to write, where and when:

- Bytes for a peer go through an `Output` per destination (the client's
  stdout, the server's stdin): written at once when nothing waits before
  them, else queued in order and written by the output's own thread when
  due (a delay holds back what follows it in the same direction).
- A hold blocks its direction's pump until it is resolved; the other
  direction keeps flowing. A disconnect closes both pipes.

Every line is then recorded with `tap.submit_message` (the sender's bytes, with
the flow's `meta`), and every line the inspector wrote instead or in addition
is a row of its own with `meta.injected`. Without addons none of this is
imported: the plain pumps above are the whole path.

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
import sys
import threading
import time
from collections.abc import Callable, Sequence

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
        def submit_message(
            self, direction: str, channel: str, raw: bytes, ts_ns: int | None = None, **http: Any
        ) -> None: ...

    from typing import Any

    from inspector.flow import Addons, Direction, Flow, RowMeta, Verdict


__all__ = ["Output", "StdioShim", "WrapResult", "exit_code_of"]

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
        addons: Addons | None = None,
    ) -> None:
        self.argv = list(argv)
        self.addons = addons
        self.tap = tap
        self.durable = durable
        self.grace = grace
        self.fds = (stdin_fd, stdout_fd, stderr_fd)
        self.reason = "server-exit"
        self._child: subprocess.Popen[bytes] | None = None
        self._signals = 0
        self._client_eof = threading.Event()
        # With addons (the framed path): the outputs, the end, the pumps waiting on a hold.
        self._outputs: dict[str, Output] = {}
        self._disconnected = threading.Event()
        self._holding = 0
        self._holds = threading.Condition()
        self._errors = 0

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
        if self.addons is None:
            return self._forward(child, self._pump, install_signal_handlers)
        return self._run_framed(child, self.addons, install_signal_handlers)

    def _forward(
        self,
        child: subprocess.Popen[bytes],
        pump: Callable[[int, int, str, str], None],
        install_signal_handlers: bool,
    ) -> WrapResult:
        """The threads: `pump` on the server's stdout and the client's stdin, the plain pump on stderr."""
        assert child.stdin and child.stdout and child.stderr
        stdin_fd, stdout_fd, stderr_fd = self.fds
        pumps = [
            threading.Thread(
                target=pump, args=(child.stdout.fileno(), stdout_fd, "s2c", "stdout"), daemon=True
            ),
            threading.Thread(
                target=self._pump, args=(child.stderr.fileno(), stderr_fd, "s2c", "stderr"), daemon=True
            ),
        ]
        client = threading.Thread(target=self._client_pump, args=(stdin_fd, child, pump), daemon=True)
        previous = {}
        if install_signal_handlers:
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                previous[sig] = signal.signal(sig, self.on_signal)
        try:
            for t in pumps:
                t.start()
            client.start()
            returncode = child.wait()
            if self.addons is not None:
                self._framed_server_exited(self.addons)
            for t in pumps:
                # A grandchild may still hold the pipes open; do not wait for it forever.
                t.join(timeout=2.0)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return WrapResult(exit_code_of(returncode), returncode, self.reason)

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

    def _client_pump(
        self, stdin_fd: int, child: subprocess.Popen[bytes], pump: Callable[[int, int, str, str], None]
    ) -> None:
        assert child.stdin is not None
        pump(stdin_fd, child.stdin.fileno(), "c2s", "stdin")
        if child.poll() is not None:
            return
        self._client_eof.set()
        if self.reason == "server-exit":
            self.reason = "client-eof"
        with contextlib.suppress(OSError):
            child.stdin.close()
        self._stop_server(wait_first=True, why="client-eof")

    def terminate(self, reason: str) -> None:
        """Stop the server (SIGTERM, SIGKILL after the grace period): recording cannot go on."""
        self.reason = reason
        self._send(signal.SIGTERM)
        threading.Thread(target=self._stop_server, daemon=True).start()

    def _stop_server(self, *, wait_first: bool = False, why: str | None = None) -> None:
        """The server's end, as a host ends it: with `wait_first`, the grace to exit by itself and then
        SIGTERM; the grace again, then SIGKILL. With `why`, the reason says which step ended it."""
        child = self._child
        if child is None:
            return
        if wait_first:
            try:
                child.wait(self.grace)
                return
            except subprocess.TimeoutExpired:
                pass
            if why is not None:
                self.reason = f"{why}, server terminated"
            self._send(signal.SIGTERM)
        try:
            child.wait(self.grace)
        except subprocess.TimeoutExpired:
            if why is not None:
                self.reason = f"{why}, server killed"
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

    # ----- with addons: framed lines, each a Flow the addons decide

    def _run_framed(
        self, child: subprocess.Popen[bytes], addons: Addons, install_signal_handlers: bool
    ) -> WrapResult:
        assert child.stdin is not None
        self._outputs = {"c2s": Output(child.stdin.fileno(), "server"), "s2c": Output(self.fds[1], "client")}
        addons.connection_start(self)
        try:
            result = self._forward(child, self._framed_pump, install_signal_handlers)
        finally:
            addons.connection_end(self)
        self._outputs["s2c"].drain(timeout=self.grace)
        return result

    def _framed_server_exited(self, addons: Addons) -> None:
        """The addons resolve what is held (by shutdown); wait for those rows, so none is lost."""
        addons.server_exited(self)
        with self._holds:
            self._holds.wait_for(lambda: self._holding == 0, timeout=10.0)

    def send(self, to: Direction, raw: bytes, delay_s: float = 0.0, of: Flow | None = None) -> None:
        """Write toward a peer through its `Output` (nothing once disconnected; one pipe a way: `of`
        does not matter)."""
        out = self._outputs.get(to)
        if out is not None and not self._disconnected.is_set():
            out.send(raw, delay_s)

    def disconnect(self, reason: str) -> None:
        """Close both pipes: the client reads EOF, the server reads EOF (then the grace, SIGTERM)."""
        if self._disconnected.is_set():
            return
        self.reason = reason
        self._disconnected.set()
        for out in self._outputs.values():
            out.close()
        child = self._child
        if child is not None and child.stdin is not None:
            with contextlib.suppress(OSError):
                child.stdin.close()
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self.fds[1])  # our stdout's pipe to the client closes
        finally:
            os.close(devnull)
        threading.Thread(target=self._stop_server, kwargs={"wait_first": True}, daemon=True).start()

    def _framed_pump(self, src: int, dst: int, direction: str, channel: str) -> None:
        """One direction of stdin/stdout, line by line through the addons (`dst` is its `Output`'s)."""
        from inspector.flow import Flow, StdioContext
        from inspector.protocol.framing import LineFramer

        assert self.addons is not None and direction in ("c2s", "s2c") and channel in ("stdin", "stdout")
        addons = self.addons
        to: Direction = "c2s" if direction == "c2s" else "s2c"
        context = StdioContext(self.argv, "stdin" if channel == "stdin" else "stdout")
        framer = LineFramer()
        while not self._disconnected.is_set():
            try:
                data = os.read(src, READ_SIZE)
            except OSError:
                data = b""
            if not data:
                break
            ts_ns = time.time_ns()
            passing: list[bytes] = []
            for raw in framer.split(data):
                if self._disconnected.is_set():
                    break
                self._line(addons, Flow(raw, to, ts_ns, context), passing)
            self._pass(to, passing)
        if not self._disconnected.is_set():
            for line in framer.close():  # a last line without its newline
                passing = []
                self._line(
                    addons, Flow(line.raw, to, time.time_ns(), context, {"flags": ["no-newline"]}), passing
                )
                self._pass(to, passing)
            addons.stream_end(self, to)
            out = self._outputs.get(to)
            if out is not None:
                out.drain(timeout=60.0)

    def _pass(self, to: Direction, passing: list[bytes]) -> None:
        """Lines no addon decided on: one write, as the plain pump would do."""
        if passing:
            self.send(to, b"".join(passing))
            passing.clear()

    def _line(self, addons: Addons, flow: Flow, passing: list[bytes]) -> None:
        try:
            self._decide(addons, flow, passing)
        except Exception as exc:  # our bug must not stop forwarding: the line passes as sent
            self._errors += 1
            if self._errors <= 5:
                print(
                    f"[mcp-inspect] internal error while intercepting a {flow.direction} line, "
                    f"forwarded as sent: {exc!r}",
                    file=sys.stderr,
                    flush=True,
                )
            passing.append(flow.raw)

    def _decide(self, addons: Addons, flow: Flow, passing: list[bytes]) -> None:
        verdict = addons.message(flow)
        if verdict is None:
            meta = flow.meta
            channel = _CHANNEL[flow.direction]
            self.tap.submit_message(
                flow.direction, channel, flow.raw, flow.ts_ns, **({"meta": meta} if meta else {})
            )
            passing.append(flow.raw)
            return
        self._pass(flow.direction, passing)  # what came before goes first
        if verdict.hold is None:
            self._apply(flow, verdict)
            return
        with self._holds:
            self._holding += 1
        try:
            while verdict.hold is not None:
                decided = verdict.hold.wait()
                if decided is not None:
                    verdict = decided
            self._apply(flow, verdict)
        finally:
            with self._holds:
                self._holding -= 1
                self._holds.notify_all()

    def _apply(self, flow: Flow, verdict: Verdict) -> None:
        """Record the sender's row (with what was done to it), then write what the verdict says."""
        tap = self.tap
        meta: RowMeta = flow.meta
        tap.submit_message(
            flow.direction, _CHANNEL[flow.direction], flow.raw, flow.ts_ns, meta=dict(meta) or None
        )
        for s in verdict.sends:
            if s.injected is not None:
                tap.submit_message(s.to, _CHANNEL[s.to], s.raw, meta={"injected": s.injected})
            self.send(s.to, s.raw, s.delay_s)
        if verdict.disconnect is not None:
            self.disconnect(verdict.disconnect)


_CHANNEL = {"c2s": "stdin", "s2c": "stdout"}


class Output:
    """Ordered writes to one file descriptor: at once when nothing is queued, else when due."""

    def __init__(self, fd: int, name: str) -> None:
        from collections import deque

        self.fd = fd
        self.broken = False
        self._queue: deque[tuple[float, bytes]] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=f"mcp-inspect-out-{name}", daemon=True)
        self._thread.start()

    def send(self, data: bytes, delay_s: float = 0.0) -> None:
        if not data:
            return
        with self._cond:
            if self._closed:
                return
            if not self._queue and delay_s <= 0:
                self._write(data)
                return
            due = time.monotonic() + delay_s
            if self._queue:
                due = max(due, self._queue[-1][0])
            self._queue.append((due, data))
            self._cond.notify()

    def _write(self, data: bytes) -> None:
        if self.broken:
            return
        try:
            _write_all(self.fd, data)
        except OSError:  # the reader went away: keep recording, stop writing
            self.broken = True

    def _run(self) -> None:
        with self._cond:
            while True:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return
                due, data = self._queue[0]
                wait = due - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                self._queue.popleft()
                self._write(data)
                self._cond.notify_all()

    def drain(self, timeout: float) -> None:
        """Wait (at most `timeout`) until everything queued is written."""
        end = time.monotonic() + timeout
        with self._cond:
            while self._queue and not self.broken:
                left = end - time.monotonic()
                if left <= 0:
                    return
                self._cond.wait(left)

    def close(self) -> None:
        """Write nothing more (queued bytes are dropped)."""
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cond.notify_all()
