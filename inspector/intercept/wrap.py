"""`wrap --faults / --intercept`: the stdio pumps, with the interceptor deciding per line.

Only imported when one of the intercept flags is given: plain `wrap` keeps
its own pumps (`transports/stdio.py`) and start-up path untouched.

Here the pumps frame NDJSON lines themselves (`protocol/framing.py`), build a
`Seen` per line, ask `Interceptor.decide`, and apply the effects:

- Bytes for a peer go through an `Output` per destination (the client's
  stdout, the server's stdin): written at once when nothing waits before
  them, else queued in order and written by the output's own thread when
  due (a delay holds back what follows it in the same direction: order is
  kept unless a rule reorders).
- A breakpoint (`Hold`) blocks its direction's pump until the pending
  message is resolved (by a person through the control channel, or by the
  ticker thread at its deadline); the other direction keeps flowing.
- A disconnect closes both pipes and ends the session with the rule's name.

Every line is recorded with `tap.submit_message` (the sender's bytes, with
`meta.intercept` when something was done to them), and every line the
inspector wrote instead or in addition is a row of its own with
`meta.injected`, in the direction it travelled. The stderr channel is
forwarded and recorded as in a plain wrap.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from inspector.capture import Tap
from inspector.errors import InspectorError, RulesError, SpawnError
from inspector.intercept import (
    Decision,
    Deliver,
    Disconnect,
    Interceptor,
    Reply,
    RuleSet,
    Seen,
    check_transport,
    load_rules,
)
from inspector.protocol.framing import LineFramer
from inspector.transports.stdio import READ_SIZE, StdioShim, WrapResult, _write_all

__all__ = ["InterceptShim", "Output", "build_interceptor", "run_intercepted"]

_OTHER = {"c2s": "s2c", "s2c": "c2s"}
_CHANNEL = {"c2s": "stdin", "s2c": "stdout"}


class Output:
    """Ordered writes to one file descriptor: at once when nothing is queued, else when due."""

    def __init__(self, fd: int, name: str) -> None:
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


class InterceptShim(StdioShim):
    """A `StdioShim` whose stdin/stdout pumps go through an `Interceptor`."""

    def __init__(
        self,
        argv: Sequence[str],
        tap: Tap,
        interceptor: Interceptor,
        *,
        grace: float = 2.0,
        stdin_fd: int = 0,
        stdout_fd: int = 1,
        stderr_fd: int = 2,
    ) -> None:
        super().__init__(argv, tap, grace=grace, stdin_fd=stdin_fd, stdout_fd=stdout_fd, stderr_fd=stderr_fd)
        self.interceptor = interceptor
        self.rtap = tap
        self.outputs: dict[str, Output] = {}
        self.errors = 0
        self._disconnected = threading.Event()
        self._stop_ticker = threading.Event()
        self._wake = threading.Event()
        self._holding = 0  # pumps waiting on a breakpoint (or recording its outcome)
        self._holds = threading.Condition()
        self._ticker = threading.Thread(target=self._tick, name="mcp-inspect-intercept-timer", daemon=True)

    # ----- lifecycle

    def run(self, *, install_signal_handlers: bool = True) -> WrapResult:
        child = self._child or self.spawn()
        assert child.stdin is not None
        self.outputs = {"c2s": Output(child.stdin.fileno(), "server"), "s2c": Output(self.fds[1], "client")}
        unsubscribe = self.interceptor.subscribe(lambda _event, _detail: self._wake.set())
        self._ticker.start()
        try:
            result = super().run(install_signal_handlers=install_signal_handlers)
        finally:
            unsubscribe()
            self._stop_ticker.set()
            self._wake.set()
            self._ticker.join(timeout=2.0)
        self.outputs["s2c"].drain(timeout=self.grace)
        return result

    def _server_exited(self) -> None:
        """Resolve every hold "by shutdown" and wait for their rows, so none is lost at the end.

        A server's held answer is forwarded (the client may still read it); a client's held
        message is dropped: the server that would have received it is gone.
        """
        for p in self.interceptor.pending():
            p.resolve("forward" if p.seen.direction == "s2c" else "drop", by="shutdown")
        with self._holds:
            self._holds.wait_for(lambda: self._holding == 0, timeout=10.0)

    def _tick(self) -> None:
        ic = self.interceptor
        while not self._stop_ticker.is_set():
            # Asleep until a hold or a reorder window has a deadline (the pumps and the interceptor's
            # "pending" event wake it): no periodic wake-ups while nothing is held.
            deadline = ic.next_deadline()
            self._wake.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
            self._wake.clear()
            ic.expire()
            for d in ic.due():
                self._out(d.of.direction if d.of is not None else "s2c", d.raw, d.delay_s)

    def _out(self, direction: str, data: bytes, delay_s: float = 0.0) -> None:
        out = self.outputs.get(direction)
        if out is not None and not self._disconnected.is_set():
            out.send(data, delay_s)

    def _disconnect(self, reason: str) -> None:
        """Close both pipes: the client reads EOF, the server reads EOF (then the grace, SIGTERM)."""
        if self._disconnected.is_set():
            return
        self.reason = reason
        self._disconnected.set()
        for out in self.outputs.values():
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
        threading.Thread(target=self._stop_server, daemon=True).start()

    def _stop_server(self) -> None:
        child = self._child
        if child is None:
            return
        try:
            child.wait(self.grace)
        except subprocess.TimeoutExpired:
            self.terminate(self.reason)

    # ----- the pumps

    def _pump(self, src: int, dst: int, direction: str, channel: str) -> None:
        if channel == "stderr":
            super()._pump(src, dst, direction, channel)
            return
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
                self._line(direction, raw, ts_ns, passing)
            self._pass(direction, passing)
        if not self._disconnected.is_set():
            for line in framer.close():  # a last line without its newline
                passing = []
                self._line(direction, line.raw, time.time_ns(), passing, {"flags": ["no-newline"]})
                self._pass(direction, passing)
            for d in self.interceptor.flush(direction):
                self._out(direction, d.raw)
            out = self.outputs.get(direction)
            if out is not None:
                out.drain(timeout=60.0)

    def _pass(self, direction: str, passing: list[bytes]) -> None:
        """Lines nothing was done to: one write, as a plain wrap would do."""
        if passing:
            self._out(direction, b"".join(passing))
            passing.clear()

    def _line(
        self,
        direction: str,
        raw: bytes,
        ts_ns: int,
        passing: list[bytes],
        meta: dict[str, Any] | None = None,
    ) -> None:
        try:
            self._decide_line(direction, raw, ts_ns, passing, meta)
        except Exception as exc:  # our bug must not stop forwarding: the line passes as sent
            self._warn(f"internal error while intercepting a {direction} line, forwarded as sent: {exc!r}")
            passing.append(raw)

    def _warn(self, text: str) -> None:
        self.errors += 1
        if self.errors <= 5:
            print(f"[mcp-inspect] {text}", file=sys.stderr, flush=True)

    def _decide_line(
        self,
        direction: str,
        raw: bytes,
        ts_ns: int,
        passing: list[bytes],
        meta: dict[str, Any] | None,
    ) -> None:
        ic = self.interceptor
        seen = Seen.of(direction, raw, ic.tracker)
        decision = ic.decide(seen)
        channel = _CHANNEL[direction]
        if decision.intervention is None and decision.held is None:
            self.rtap.submit_message(direction, channel, raw, ts_ns, **({"meta": meta} if meta else {}))
            if len(decision.effects) == 1 and isinstance(decision.effects[0], Deliver):
                passing.append(raw)
            return
        self._pass(direction, passing)  # what came before goes first
        pending = decision.held
        if pending is None:
            self._apply(seen, decision, ts_ns, meta)
            return
        with self._holds:
            self._holding += 1
        try:
            woke = threading.Event()
            pending.on_resolved(lambda _p: woke.set())
            self._wake.set()  # the ticker learns the new deadline
            woke.wait()
            assert pending.outcome is not None
            self._apply(seen, pending.outcome, ts_ns, meta)
        finally:
            with self._holds:
                self._holding -= 1
                self._holds.notify_all()

    def _apply(self, seen: Seen, decision: Decision, ts_ns: int, meta: dict[str, Any] | None) -> None:
        direction = seen.direction
        iv = decision.intervention
        row_meta = dict(meta or {})
        if iv is not None:
            row_meta["intercept"] = iv.meta()
        self.rtap.submit_message(direction, _CHANNEL[direction], seen.raw, ts_ns, meta=row_meta or None)
        injected = {"injected": iv.injected_meta()} if iv is not None else None
        if iv is not None and iv.action == "reorder":
            self._wake.set()  # the timer learns the window's deadline
        for eff in decision.effects:
            if isinstance(eff, Deliver):
                to = eff.of.direction if eff.of is not None else direction
                if eff.injected:
                    self.rtap.submit_message(to, _CHANNEL[to], eff.raw, meta=injected)
                self._out(to, eff.raw, eff.delay_s)
            elif isinstance(eff, Reply):
                back = _OTHER[direction]
                self.rtap.submit_message(back, _CHANNEL[back], eff.raw, meta=injected)
                self._out(back, eff.raw)
            elif isinstance(eff, Disconnect):
                self._disconnect(eff.reason)
            # HttpError, Drip, CloseStream: HTTP only (refused for stdio when the rules are loaded;
            # one added live is a drop here).


def build_interceptor(
    faults: str | None,
    *,
    intercept: bool,
    seed: int | None,
    pause_timeout: float | None,
    pause_default: str | None,
    transport: str = "stdio",
) -> Interceptor:
    """The interceptor the flags describe (RulesError for a bad rules file)."""
    ruleset = load_rules(faults) if faults else RuleSet()
    check_transport(ruleset, transport, faults or "rules")
    update: dict[str, Any] = {}
    if pause_timeout is not None:
        if pause_timeout <= 0:
            raise RulesError("--pause-timeout must be a positive number of seconds")
        update["pause_timeout_s"] = pause_timeout
    if pause_default is not None:
        if pause_default not in ("forward", "drop"):
            raise RulesError("--pause-default is forward or drop")
        update["pause_default"] = pause_default
    if update:
        ruleset = ruleset.model_copy(update=update)
    return Interceptor(
        ruleset, seed=seed, breakpoints=intercept, source=os.path.abspath(faults) if faults else None
    )


def _say(quiet: bool, text: str) -> None:
    if not quiet:
        print(f"[mcp-inspect] {text}", file=sys.stderr, flush=True)


def run_intercepted(
    opts: Any, open_store: Callable[[], Any], spawn_failed: Callable[[Any, SpawnError], int]
) -> int:
    """`run_wrap` with --faults/--intercept: the store opens first, then the server starts.

    `open_store()` gives wrap's store; `spawn_failed(store, exc)` records a server that could not
    start and gives the exit status (both wrap's: this module does not import it back)."""
    if opts.durable:
        raise InspectorError("--durable cannot be combined with --faults or --intercept")
    ic = build_interceptor(
        opts.faults,
        intercept=opts.intercept,
        seed=opts.seed,
        pause_timeout=opts.pause_timeout,
        pause_default=opts.pause_default,
    )
    pauses = [r.name for r in ic.rules() if r.action == "pause"]
    store = open_store()
    store.tap.add_facts({"intercept": ic.facts()})
    # Nothing can ever be intercepted (every rule disabled, or pauses without --intercept, and no
    # control channel to change that): the plain pumps forward, at a plain wrap's cost.
    idle = not opts.intercept and not ic.active
    shim: StdioShim = (
        StdioShim(opts.command, store.tap, grace=opts.grace)
        if idle
        else InterceptShim(opts.command, store.tap, ic, grace=opts.grace)
    )
    control = None
    if opts.intercept:  # before the server starts: an unsafe runtime directory stops everything
        from inspector.intercept.control import start_control
        from inspector.runtime_dir import db_key

        sid = store.session_id
        try:
            control = start_control(
                ic, kind="wrap", target=opts.command, sessions=lambda: [sid], db=db_key(store.engine)
            )
        except InspectorError as exc:
            store.end(None, f"intercept control channel: {exc}", True)
            raise
    try:
        shim.spawn()
    except SpawnError as exc:
        if control is not None:
            control.close()
        return spawn_failed(store, exc)
    store.announce(opts)
    if idle:
        _say(opts.quiet, f"no rule is active ({len(ic.rules())} in the file): forwarding as a plain wrap")
    else:
        _say(opts.quiet, f"intercepting: {len(ic.rules())} rule(s), seed {ic.seed}")
    if pauses and not opts.intercept:
        _say(opts.quiet, f"rule(s) {', '.join(pauses)} pause only with --intercept: not active")
    if control is not None:
        _say(
            opts.quiet, f"paused messages: the UI's Intercept tab of session {sid}, or mcp-inspect intercept"
        )
    try:
        result = shim.run()
    finally:
        if control is not None:
            control.close()
    store.tap.add_facts({"intercept": ic.facts()})  # rules added live are named too
    store.end(result.returncode, result.reason, opts.quiet)
    return result.exit_code
