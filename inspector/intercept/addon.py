"""The interceptor as an addon (`inspector.flow`): rules and breakpoints deciding per flow.

The transport frames messages and asks `message(flow)`; this addon asks the
`Interceptor` (`engine.py`) and turns its `Decision` into a `Verdict` the
transport can act on: the sender's row gets `meta.intercept`, bytes the
inspector sends instead or in addition carry `meta.injected`, a breakpoint is
a hold the transport waits on. A timer thread releases what a reorder holds
back and expires breakpoints at their deadline; it sleeps while nothing is
held (the pumps and the interceptor's "pending" event wake it).

The same addon serves `wrap` (stdio) and `proxy` (HTTP): on HTTP its verdicts
also carry `http_error`, `drip`, `close_after` and `deferred` (a reorder), JSON-RPC
ids are tracked per recorded session, and each session gets the `intercept`
fact when it opens and when it ends (rules added live are named too). Built with
`decides=False` (no rule can ever act), it only records those facts: the
transport forwards as the plain proxy does.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import cast

from inspector.flow import (
    Addon,
    Connection,
    Direction,
    Drip,
    Facts,
    Flow,
    HttpContext,
    HttpStatus,
    InjectedMeta,
    InterceptMeta,
    Send,
    Verdict,
)
from inspector.intercept import engine
from inspector.intercept.engine import Decision, Deliver, Disconnect, Interceptor, Pending, Reply
from inspector.intercept.match import Seen, Tracker

__all__ = ["InterceptAddon"]

_SAME: dict[str, Direction] = {"c2s": "c2s", "s2c": "s2c"}
_OTHER: dict[str, Direction] = {"c2s": "s2c", "s2c": "c2s"}


class InterceptAddon(Addon):
    """`wrap`/`proxy --faults/--intercept`: the interceptor's decisions, one flow at a time."""

    def __init__(self, interceptor: Interceptor, *, decides: bool = True) -> None:
        self.interceptor = interceptor
        self.decides = decides
        self._conn: Connection | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._unsubscribe: Callable[[], None] | None = None
        self._ticker: threading.Thread | None = None
        self._trackers: dict[
            int, Tracker
        ] = {}  # HTTP: per recorded session (JSON-RPC ids repeat across them)
        self._deferred: dict[int, tuple[Seen, Flow]] = {}  # id(Seen) a reorder holds back -> its flow
        self.on_session: Callable[[], None] | None = None  # told when a session opens (the control channel)

    # ----- recorded sessions (HTTP)

    def session_start(self, session: int, facts: Facts) -> None:
        self._trackers[session] = Tracker()
        facts.add_facts({"intercept": self.interceptor.facts()})
        if self.on_session is not None:  # once the recorder has created the row (its id is known)
            import asyncio

            loop = asyncio.get_running_loop()
            for later in (0.1, 1.0):
                loop.call_later(later, self.on_session)

    def session_end(self, session: int, facts: Facts) -> None:
        self._trackers.pop(session, None)
        if self.decides:
            facts.add_facts({"intercept": self.interceptor.facts()})  # rules added live are named too

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
            conn.send(direction, d.raw, 0.0, self._owner(d))

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
                    to = _SAME[d.of.direction] if d.of is not None else "s2c"
                    conn.send(to, d.raw, d.delay_s, self._owner(d))

    def _owner(self, d: Deliver) -> Flow | None:
        """The flow a released message belongs to (None: not one this addon saw held back)."""
        if d.of is None:
            return None
        held = self._deferred.pop(id(d.of), None)
        return held[1] if held is not None and held[0] is d.of else None

    # ----- one message

    def message(self, flow: Flow) -> Verdict | None:
        ic = self.interceptor
        ctx = flow.context
        tracker = ic.tracker
        if isinstance(ctx, HttpContext) and ctx.session is not None:  # (a mock's one listener: none)
            tracker = self._trackers.get(ctx.session) or self._trackers.setdefault(ctx.session, Tracker())
        seen = Seen.of(flow.direction, flow.raw, tracker)
        decision = ic.decide(seen)
        if decision.held is None and decision.intervention is None:
            return None  # passing untouched
        return self._verdict(flow, seen, decision)

    def _verdict(self, flow: Flow, seen: Seen, decision: Decision) -> Verdict:
        pending = decision.held
        if pending is not None:
            return Verdict(hold=_Held(self, flow, seen, pending))
        iv = decision.intervention
        injected: InjectedMeta | None = None
        deferred = False
        if iv is not None:
            flow.meta["intercept"] = cast(InterceptMeta, iv.meta())
            injected = InjectedMeta(n=iv.n, action=iv.action, by=iv.by)
            if iv.action == "reorder":
                deferred = True
                self._deferred[id(seen)] = (seen, flow)
                self._wake.set()  # the timer learns the window's deadline
        sends: list[Send] = []
        disconnect: str | None = None
        http_error: HttpStatus | None = None
        drip: Drip | None = None
        close_after: int | None = None
        for eff in decision.effects:
            if isinstance(eff, Deliver):
                to = _SAME[eff.of.direction] if eff.of is not None else flow.direction
                if eff.of is None or eff.of is seen:
                    of: Flow | None = flow
                    self._deferred.pop(id(seen), None)
                else:  # a message a reorder held back (None: its owner is gone; stdio: the pipe owns it)
                    of = self._owner(eff)
                sends.append(Send(eff.raw, to, eff.delay_s, injected if eff.injected else None, of))
            elif isinstance(eff, Reply):
                sends.append(Send(eff.raw, _OTHER[flow.direction], 0.0, injected, flow))
            elif isinstance(eff, Disconnect):
                disconnect = eff.reason
            # HTTP only (refused for stdio when the rules are loaded; one added live is a drop there):
            elif isinstance(eff, engine.HttpError):
                http_error = HttpStatus(eff.status, eff.body, eff.headers)
            elif isinstance(eff, engine.Drip):
                drip = Drip(eff.chunk, eff.interval_s)
            elif isinstance(eff, engine.CloseStream):
                close_after = eff.events
        return Verdict(
            sends, disconnect, http_error=http_error, drip=drip, close_after=close_after, deferred=deferred
        )


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

    def when_decided(self, callback: Callable[[], object]) -> None:
        def decided(_p: Pending) -> None:
            callback()

        self._pending.on_resolved(decided)
