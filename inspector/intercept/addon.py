"""The interceptor as an addon (`inspector.flow`): rules and breakpoints deciding per flow.

The transport frames messages and asks `message(flow)`; this addon asks the
`Interceptor` (`engine.py`) and turns its `Decision` into a `Verdict` the
transport can act on: the sender's row gets `meta.intercept`, bytes the
inspector sends instead or in addition carry `meta.injected`, a breakpoint is
a hold the transport waits on. A timer thread releases what a reorder holds
back and expires breakpoints at their deadline; it sleeps while nothing is
held (the pumps and the interceptor's "pending" event wake it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import cast

from inspector.flow import Addon, Connection, Direction, Flow, InjectedMeta, InterceptMeta, Send, Verdict
from inspector.intercept.engine import Decision, Deliver, Disconnect, Interceptor, Pending, Reply
from inspector.intercept.match import Seen

__all__ = ["InterceptAddon"]

_SAME: dict[str, Direction] = {"c2s": "c2s", "s2c": "s2c"}
_OTHER: dict[str, Direction] = {"c2s": "s2c", "s2c": "c2s"}


class InterceptAddon(Addon):
    """`wrap --faults/--intercept`: the interceptor's decisions, one flow at a time."""

    decides = True

    def __init__(self, interceptor: Interceptor) -> None:
        self.interceptor = interceptor
        self._conn: Connection | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._unsubscribe: Callable[[], None] | None = None
        self._ticker: threading.Thread | None = None

    # ----- the connection

    def connection_start(self, conn: Connection) -> None:
        self._conn = conn
        self._unsubscribe = self.interceptor.subscribe(lambda _event, _detail: self._wake.set())
        self._ticker = threading.Thread(target=self._tick, name="mcp-inspect-intercept-timer", daemon=True)
        self._ticker.start()

    def connection_end(self, conn: Connection) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._stop.set()
        self._wake.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2.0)

    def stream_end(self, conn: Connection, direction: Direction) -> None:
        for d in self.interceptor.flush(direction):
            conn.send(direction, d.raw)

    def server_exited(self, conn: Connection) -> None:
        """Every hold is resolved "by shutdown": a server's held answer is forwarded (the client may
        still read it); a client's held message is dropped (the server that would read it is gone)."""
        for p in self.interceptor.pending():
            p.resolve("forward" if p.seen.direction == "s2c" else "drop", by="shutdown")

    def _tick(self) -> None:
        ic = self.interceptor
        while not self._stop.is_set():
            # Asleep until a hold or a reorder window has a deadline.
            deadline = ic.next_deadline()
            self._wake.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
            self._wake.clear()
            ic.expire()
            conn = self._conn
            for d in ic.due():
                if conn is not None:
                    conn.send(_SAME[d.of.direction] if d.of is not None else "s2c", d.raw, d.delay_s)

    # ----- one message

    def message(self, flow: Flow) -> Verdict | None:
        ic = self.interceptor
        seen = Seen.of(flow.direction, flow.raw, ic.tracker)
        decision = ic.decide(seen)
        pending = decision.held
        if pending is None:
            if decision.intervention is None:
                return None  # passing untouched
            return self._verdict(flow, seen, decision)
        return Verdict(hold=_Held(self, flow, seen, pending))

    def _verdict(self, flow: Flow, seen: Seen, decision: Decision) -> Verdict:
        iv = decision.intervention
        injected: InjectedMeta | None = None
        if iv is not None:
            flow.meta["intercept"] = cast(InterceptMeta, iv.meta())
            injected = InjectedMeta(n=iv.n, action=iv.action, by=iv.by)
            if iv.action == "reorder":
                self._wake.set()  # the timer learns the window's deadline
        sends: list[Send] = []
        disconnect: str | None = None
        for eff in decision.effects:
            if isinstance(eff, Deliver):
                to = _SAME[eff.of.direction] if eff.of is not None else flow.direction
                sends.append(Send(eff.raw, to, eff.delay_s, injected if eff.injected else None))
            elif isinstance(eff, Reply):
                sends.append(Send(eff.raw, _OTHER[flow.direction], 0.0, injected))
            elif isinstance(eff, Disconnect):
                disconnect = eff.reason
            # HttpError, Drip, CloseStream: HTTP only (refused for stdio when the rules are loaded;
            # one added live is a drop here).
        return Verdict(sends, disconnect)


class _Held:
    """A breakpoint as a `flow.Hold`: its verdict once a person or the timeout resolved it."""

    __slots__ = ("_addon", "_flow", "_pending", "_seen", "_woke")

    def __init__(self, addon: InterceptAddon, flow: Flow, seen: Seen, pending: Pending) -> None:
        self._addon, self._flow, self._seen, self._pending = addon, flow, seen, pending
        self._woke = threading.Event()
        pending.on_resolved(lambda _p: self._woke.set())
        addon._wake.set()  # the timer learns the new deadline

    def wait(self, timeout: float | None = None) -> Verdict | None:
        if not self._woke.wait(timeout):
            return None
        assert self._pending.outcome is not None
        return self._addon._verdict(self._flow, self._seen, self._pending.outcome)
