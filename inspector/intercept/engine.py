"""The interceptor: given one message a transport saw, what the transport must do with it.

Sans-IO: no threads, no asyncio, no sockets. Transports (`wrap`'s pumps, the
HTTP proxy) build a `Seen` per message, call `Interceptor.decide`, and apply
the `Decision`'s effects in order:

    Deliver(raw, delay_s)   send these bytes on to the peer (the original, an altered
                            copy, a duplicate), after delay_s seconds
    Reply(raw)              send these bytes back to the sender (the inspector answers)
    Hold(pending)           a breakpoint: wait for `pending.outcome` (a Decision)
    Disconnect(reason)      close the connection
    HttpError / Drip / CloseStream   HTTP only (the proxy)

An empty effects list means drop. `Decision.intervention` is None when the
message passes untouched (the common case), else it says what was done, by
which rule or person, and gives the JSON recorded with the message.

Rules are tried in order; the first rule that matches and applies decides
(`after`, `count` and `probability` can make a matching rule pass a message
on to the next rule). Randomness comes from one `random.Random` per rule,
seeded from the interceptor's seed and the rule's name: the same seed and
the same sequence of messages give the same decisions, and adding a rule
does not change another rule's draws.

One lock guards the state; callbacks (`subscribe`, `Pending.on_resolved`)
are called outside it.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from inspector.errors import ControlError, RulesError
from inspector.intercept.commands import one_switch, resolution, rule_for, sent_for
from inspector.intercept.match import Seen, Tracker
from inspector.intercept.rules import Rule, RuleSet

__all__ = [
    "CloseStream",
    "Commands",
    "Decision",
    "Deliver",
    "Disconnect",
    "Drip",
    "Effect",
    "Hold",
    "HttpError",
    "Interceptor",
    "Intervention",
    "Pending",
    "Reply",
]


# --- effects ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Deliver:
    """Send `raw` on to the peer after `delay_s`. `injected` is True when these are not the
    sender's bytes as sent (an altered copy, a duplicate): the transport records them as
    their own row with `meta.injected`. `of` is the message these bytes belong to when it
    is not the one just decided (a reorder releasing held messages)."""

    raw: bytes
    delay_s: float = 0.0
    injected: bool = False
    of: Seen | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    """Send `raw` back to the sender (always injected: the inspector's answer)."""

    raw: bytes


@dataclass(frozen=True, slots=True)
class Hold:
    """A breakpoint: wait for `pending.outcome`, then apply it."""

    pending: Pending


@dataclass(frozen=True, slots=True)
class Disconnect:
    """Close the connection (both ways); the session ends with `reason`."""

    reason: str = "disconnected by the inspector"


@dataclass(frozen=True, slots=True)
class HttpError:
    """HTTP only: answer the request with this status instead of forwarding it."""

    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Drip:
    """HTTP only: send the SSE response in `chunk`-byte pieces every `interval_s`."""

    chunk: int
    interval_s: float


@dataclass(frozen=True, slots=True)
class CloseStream:
    """HTTP only: end the SSE response after `events` events."""

    events: int = 0


Effect = Deliver | Reply | Hold | Disconnect | HttpError | Drip | CloseStream

_counter = itertools.count(1)
_counter_lock = threading.Lock()


def _next_n() -> int:
    with _counter_lock:
        return next(_counter)


@dataclass(frozen=True, slots=True)
class Intervention:
    """What was done to a message: recorded as `meta.intercept` on the sender's row and as
    `meta.injected` on every row of bytes the inspector sent instead or in addition."""

    n: int
    action: str
    by: str  # "rule:<name>", "user", "timeout" or "shutdown" (wrap: holds resolved at the end)
    delivered: bool  # did the peer receive the sender's bytes?
    rule: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def meta(self) -> dict[str, Any]:
        """`meta.intercept` of the sender's row."""
        out: dict[str, Any] = {"n": self.n, "action": self.action, "by": self.by, "delivered": self.delivered}
        if self.rule is not None:
            out["rule"] = self.rule
        out.update(self.extra)
        return out

    def injected_meta(self) -> dict[str, Any]:
        """`meta.injected` of a row the inspector sent."""
        return {"n": self.n, "action": self.action, "by": self.by}


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with one message: `effects` in order (empty = drop), and what was changed."""

    effects: list[Effect]
    intervention: Intervention | None = None

    @property
    def held(self) -> Pending | None:
        """The breakpoint to wait for, if this decision is a hold."""
        for e in self.effects:
            if isinstance(e, Hold):
                return e.pending
        return None

    @property
    def disconnect(self) -> Disconnect | None:
        for e in self.effects:
            if isinstance(e, Disconnect):
                return e
        return None


def _with_terminator(raw: bytes, seen: Seen) -> bytes:
    """Bytes the inspector wrote get the terminator the original line had (none for HTTP)."""
    t = seen.terminator
    if t and not raw.endswith(b"\n"):
        return raw + t
    return raw


def _dumps(obj: Any) -> bytes:
    return orjson.dumps(obj)


# --- breakpoints --------------------------------------------------------------------------


class Pending:
    """A message held at a breakpoint until someone (or the timeout) decides."""

    def __init__(
        self,
        interceptor: Interceptor,
        pid: str,
        seen: Seen,
        rule: Rule | None,
        created: float,
        deadline: float,
    ) -> None:
        self._interceptor = interceptor
        self.id = pid
        self.seen = seen
        self.rule = rule
        self.created = created
        self.deadline = deadline
        self.outcome: Decision | None = None
        self._callbacks: list[Callable[[Pending], None]] = []

    @property
    def resolved(self) -> bool:
        return self.outcome is not None

    def on_resolved(self, fn: Callable[[Pending], None]) -> None:
        """Call `fn(pending)` once resolved (now, if it already is). Called outside the lock,
        from whatever thread resolved it: asyncio users wrap with `loop.call_soon_threadsafe`."""
        with self._interceptor._lock:
            if self.outcome is None:
                self._callbacks.append(fn)
                return
        fn(self)

    def resolve(self, action: str, raw: bytes | None = None, by: str = "user") -> Decision:
        """Decide: forward (unchanged), drop, edit (forward `raw` instead), respond (reply `raw`
        to the sender). Returns the outcome; resolving twice returns the first outcome.
        ValueError for an unknown action or a missing `raw`."""
        return self._interceptor._resolve(self, action, raw, by)

    def to_json(self, now: float) -> dict[str, Any]:
        s = self.seen
        return {
            "id": self.id,
            "direction": s.direction,
            "kind": s.kind,
            "method": s.method,
            "name": s.name,
            "rpc_id": s.rpc_id,
            "rule": self.rule.name if self.rule is not None else None,
            "raw": s.raw.decode("utf-8", errors="replace"),
            "seconds_left": max(0.0, self.deadline - now),
        }


# --- the interceptor ----------------------------------------------------------------------


@dataclass(slots=True)
class _RuleState:
    rng: random.Random
    matched: int = 0
    applied: int = 0


@dataclass(slots=True)
class _Held:
    seen: Seen
    n: int
    since: float


class Interceptor:
    """Decides per message, from a RuleSet plus live changes. Thread-safe, no IO."""

    def __init__(
        self,
        ruleset: RuleSet | None = None,
        *,
        seed: int | None = None,
        now: Callable[[], float] = time.monotonic,
        breakpoints: bool = False,
        source: str | None = None,
    ) -> None:
        ruleset = ruleset if ruleset is not None else RuleSet()
        if seed is None:
            seed = ruleset.seed
        self.seed: int = seed if seed is not None else random.SystemRandom().randrange(2**31)
        self.source = source  # the rules file, for the session facts
        self.pause_timeout_s = ruleset.pause_timeout_s
        self.pause_default = ruleset.pause_default
        self.tracker = Tracker()
        self._now = now
        self._lock = threading.RLock()
        self._rules: list[Rule] = []
        self._state: dict[str, _RuleState] = {}
        self._breakpoints = breakpoints
        self._pending: dict[str, Pending] = {}
        self._pending_ids = itertools.count(1)
        self._reorder: dict[tuple[str, str], list[_Held]] = {}
        self._subscribers: list[Callable[[str, dict[str, Any]], None]] = []
        for rule in ruleset.rules:
            self._add(rule)

    # ----- live changes

    def _add(self, rule: Rule) -> None:
        if rule.name in self._state:
            raise RulesError(f"a rule named {rule.name!r} exists already")
        self._rules.append(rule)
        self._state[rule.name] = _RuleState(random.Random(f"{self.seed}:{rule.name}"))

    def rules(self) -> list[Rule]:
        with self._lock:
            return list(self._rules)

    def add_rule(self, rule: Rule) -> None:
        """Add a rule at the end (RulesError if its name is taken)."""
        with self._lock:
            self._add(rule)
        self._notify("rules", {"added": rule.name})

    def remove_rule(self, name: str) -> bool:
        """Remove a rule; False if there is none by that name. Messages it holds for a reorder are kept
        until `flush`/`due`."""
        with self._lock:
            if name not in self._state:
                return False
            self._rules = [r for r in self._rules if r.name != name]
            del self._state[name]
        self._notify("rules", {"removed": name})
        return True

    def set_enabled(self, name: str, enabled: bool) -> bool:
        with self._lock:
            for i, rule in enumerate(self._rules):
                if rule.name == name:
                    self._rules[i] = rule.model_copy(update={"enabled": enabled})
                    break
            else:
                return False
        self._notify("rules", {"name": name, "enabled": enabled})
        return True

    def breakpoints_on(self, on: bool) -> None:
        """Turn breakpoints (the `pause` rules) on or off. Off: pause rules let messages pass."""
        with self._lock:
            self._breakpoints = on
        self._notify("breakpoints", {"on": on})

    @property
    def breakpoints(self) -> bool:
        return self._breakpoints

    @property
    def active(self) -> bool:
        """Could anything be intercepted? (an enabled rule that can act, or breakpoints on)"""
        with self._lock:
            if self._breakpoints:
                return True
            return any(r.enabled and r.action != "pause" for r in self._rules)

    def subscribe(self, fn: Callable[[str, dict[str, Any]], None]) -> Callable[[], None]:
        """Call `fn(event, detail)` on a change: "pending" (new hold), "resolved", "rules",
        "breakpoints". Returns a function that unsubscribes."""
        with self._lock:
            self._subscribers.append(fn)

        def unsubscribe() -> None:
            with self._lock:
                if fn in self._subscribers:
                    self._subscribers.remove(fn)

        return unsubscribe

    def commands(self, kind: str) -> Commands:
        """What a control channel's requests do to this interceptor, in a process of `kind`
        (`inspector.control.server` serves them)."""
        return Commands(self, kind)

    def _notify(self, event: str, detail: dict[str, Any]) -> None:
        with self._lock:
            subs = list(self._subscribers)
        for fn in subs:
            with contextlib.suppress(Exception):  # a subscriber's bug must not break forwarding
                fn(event, detail)

    # ----- breakpoints

    def pending(self) -> list[Pending]:
        with self._lock:
            return list(self._pending.values())

    def get_pending(self, pid: str) -> Pending | None:
        with self._lock:
            return self._pending.get(pid)

    def expire(self, now: float | None = None) -> list[Pending]:
        """Resolve every hold past its deadline with `pause_default` (by "timeout"); return them."""
        now = self._now() if now is None else now
        with self._lock:
            late = [p for p in self._pending.values() if p.deadline <= now]
        for p in late:
            self._resolve(p, self.pause_default, None, "timeout")
        return late

    def next_deadline(self) -> float | None:
        """The earliest hold deadline or reorder release time, for a transport's timer."""
        with self._lock:
            times = [p.deadline for p in self._pending.values()]
            for (name, _d), held in self._reorder.items():
                rule = self._rule(name)
                if held and rule is not None:
                    times.append(held[0].since + self._reorder_wait(rule))
            return min(times) if times else None

    def _rule(self, name: str) -> Rule | None:
        for r in self._rules:
            if r.name == name:
                return r
        return None

    def _resolve(self, p: Pending, action: str, raw: bytes | None, by: str) -> Decision:
        if action not in ("forward", "drop", "edit", "respond"):
            raise ValueError(f"unknown action {action!r}: forward, drop, edit or respond")
        if action in ("edit", "respond") and raw is None:
            raise ValueError(f"{action} needs the bytes to send")
        with self._lock:
            if p.outcome is not None:
                return p.outcome
            n = _next_n()
            held_ms = round((self._now() - p.created) * 1000, 1)
            rule = p.rule.name if p.rule is not None else None
            extra = {"held_ms": held_ms}
            if action == "forward":
                decision = Decision(
                    [Deliver(p.seen.raw)],
                    Intervention(n, "pause", by, True, rule, {**extra, "resolved": "forward"}),
                )
            elif action == "drop":
                decision = Decision([], Intervention(n, "drop", by, False, rule, extra))
            elif action == "edit":
                assert raw is not None
                decision = Decision(
                    [Deliver(_with_terminator(raw, p.seen), injected=True)],
                    Intervention(n, "edit", by, False, rule, extra),
                )
            else:
                assert raw is not None
                decision = Decision(
                    [Reply(_with_terminator(raw, p.seen))], Intervention(n, "respond", by, False, rule, extra)
                )
            p.outcome = decision
            self._pending.pop(p.id, None)
            callbacks, p._callbacks = p._callbacks, []
        for fn in callbacks:
            fn(p)
        self._notify("resolved", {"id": p.id, "action": action, "by": by})
        return decision

    # ----- reorder windows

    def _reorder_wait(self, rule: Rule) -> float:
        return (rule.ms if rule.ms is not None else 1000.0) / 1000.0

    def due(self, now: float | None = None) -> list[Deliver]:
        """Messages held by a reorder whose wait is over, released (in the rule's order)."""
        now = self._now() if now is None else now
        out: list[Deliver] = []
        with self._lock:
            for key, held in list(self._reorder.items()):
                rule = self._rule(key[0])
                wait = self._reorder_wait(rule) if rule is not None else 0.0
                if held and held[0].since + wait <= now:
                    out += self._release(key, rule)
        return out

    def flush(self, direction: str | None = None) -> list[Deliver]:
        """Release everything a reorder still holds (at the end of a connection), or only what
        travels in `direction`."""
        out: list[Deliver] = []
        with self._lock:
            for key in list(self._reorder):
                if direction is None or key[1] == direction:
                    out += self._release(key, self._rule(key[0]))
        return out

    def _release(self, key: tuple[str, str], rule: Rule | None) -> list[Deliver]:
        held = self._reorder.pop(key, [])
        if rule is not None and rule.order == "shuffle":
            self._state[rule.name].rng.shuffle(held)
        else:
            held.reverse()
        return [Deliver(h.seen.raw, of=h.seen) for h in held]

    # ----- deciding

    def decide(self, seen: Seen) -> Decision:
        """What to do with `seen`. Passing untouched: `Decision([Deliver(seen.raw)], None)`."""
        with self._lock:
            for rule in self._rules:
                if not rule.enabled or (rule.action == "pause" and not self._breakpoints):
                    continue
                if not rule.match.matches(seen) or not self._applicable(rule, seen):
                    continue
                state = self._state[rule.name]
                state.matched += 1
                if state.matched <= rule.after:
                    continue
                if rule.count is not None and state.applied >= rule.count:
                    continue
                if rule.probability < 1.0 and state.rng.random() >= rule.probability:
                    continue
                state.applied += 1
                decision, new_pending = self._apply(rule, state, seen)
                break
            else:
                return Decision([Deliver(seen.raw)])
        if new_pending is not None:
            self._notify("pending", {"id": new_pending.id})
        return decision

    def _applicable(self, rule: Rule, seen: Seen) -> bool:
        if rule.action == "replace":  # a notification has nothing to replace or answer
            return seen.kind in ("request", "response", "error")
        return True

    def _apply(self, rule: Rule, state: _RuleState, seen: Seen) -> tuple[Decision, Pending | None]:
        by = f"rule:{rule.name}"
        a = rule.action
        raw = seen.raw

        def iv(delivered: bool, **extra: Any) -> Intervention:
            return Intervention(_next_n(), a, by, delivered, rule.name, extra)

        if a == "pause":
            now = self._now()
            pid = f"p{next(self._pending_ids)}"
            p = Pending(self, pid, seen, rule, now, now + self.pause_timeout_s)
            self._pending[pid] = p
            return Decision([Hold(p)]), p
        if a == "delay":
            ms = float(rule.ms or 0.0)
            if rule.jitter_ms:
                ms += state.rng.uniform(0.0, rule.jitter_ms)
            return Decision([Deliver(raw, ms / 1000.0)], iv(True, delay_ms=round(ms, 3))), None
        if a == "drop":
            return Decision([], iv(False)), None
        if a == "duplicate":
            copies: list[Effect] = [Deliver(raw, injected=True) for _ in range(rule.times)]
            return Decision([Deliver(raw), *copies], iv(True, times=rule.times)), None
        if a == "reorder":
            key = (rule.name, seen.direction)
            held = self._reorder.setdefault(key, [])
            i = iv(True, position=len(held) + 1)
            held.append(_Held(seen, i.n, self._now()))
            effects: list[Effect] = []
            if len(held) >= rule.window:
                effects = list(self._release(key, rule))
            return Decision(effects, i), None
        if a == "corrupt":
            body = bytearray(seen.body)
            if body:
                for pos in state.rng.sample(range(len(body)), min(rule.bytes, len(body))):
                    new = body[pos] ^ state.rng.randrange(1, 256)
                    while new in (0x0A, 0x0D):  # never split or end the line
                        new = body[pos] ^ state.rng.randrange(1, 256)
                    body[pos] = new
            out = bytes(body) + seen.terminator
            return Decision([Deliver(out, injected=True)], iv(False, bytes=rule.bytes)), None
        if a == "truncate":
            whole = seen.body
            at = rule.at if rule.at is not None else 0
            cut = int(len(whole) * at) if isinstance(at, float) else int(at)
            out = whole[:cut] + (seen.terminator if rule.keep_newline else b"")
            return Decision([Deliver(out, injected=True)], iv(False, at=cut)), None
        if a == "replace":
            error = rule.error.model_dump(exclude_none=True) if rule.error is not None else None
            if seen.kind == "request":
                answer: dict[str, Any] = {"jsonrpc": "2.0", "id": seen.obj.get("id")}
                if error is not None:
                    answer["error"] = error
                else:
                    answer["result"] = rule.result
                return Decision([Reply(_with_terminator(_dumps(answer), seen))], iv(False)), None
            obj = dict(seen.obj)
            obj.pop("result", None)
            obj.pop("error", None)
            if error is not None:
                obj["error"] = error
            else:
                obj["result"] = rule.result
            return Decision([Deliver(_with_terminator(_dumps(obj), seen), injected=True)], iv(False)), None
        if a == "disconnect":
            return Decision([Disconnect(f"disconnected by rule {rule.name}")], iv(False)), None
        if a == "http_error":
            body_b = b""
            headers = dict(rule.headers)
            if isinstance(rule.body, str):
                body_b = rule.body.encode()
            elif rule.body is not None:
                body_b = _dumps(rule.body)
                headers.setdefault("content-type", "application/json")
            status = rule.status or 500
            return Decision([HttpError(status, body_b, headers)], iv(False, status=status)), None
        if a == "drip":
            return Decision([Drip(rule.chunk, rule.interval_ms / 1000.0), Deliver(raw)], iv(True)), None
        # close_stream
        return Decision([Deliver(raw), CloseStream(rule.events)], iv(True, events=rule.events)), None

    # ----- state for the control channel

    def snapshot(self) -> dict[str, Any]:
        """JSON: seed, breakpoints, pause settings, rules with hit counts, pending holds."""
        now = self._now()
        with self._lock:
            rules = []
            for rule in self._rules:
                st = self._state[rule.name]
                d = rule.model_dump(mode="json", exclude_unset=True)
                d["enabled"] = rule.enabled
                d["matched"] = st.matched
                d["hits"] = st.applied
                rules.append(d)
            return {
                "seed": self.seed,
                "file": self.source,
                "breakpoints": self._breakpoints,
                "active": self._breakpoints or any(r.enabled and r.action != "pause" for r in self._rules),
                "pause_timeout_s": self.pause_timeout_s,
                "pause_default": self.pause_default,
                "rules": rules,
                "pending": [p.to_json(now) for p in self._pending.values()],
            }

    def facts(self) -> dict[str, Any]:
        """`facts.intercept` of the session."""
        with self._lock:
            return {"seed": self.seed, "rules": [r.name for r in self._rules], "file": self.source}


class Commands:
    """The control channel's requests applied to `interceptor`, in a process of `kind` (bodies
    checked by `inspector.intercept.commands`; a refusal is a `ControlError` with its HTTP status)."""

    def __init__(self, interceptor: Interceptor, kind: str) -> None:
        self.interceptor = interceptor
        self.kind = kind

    def snapshot(self) -> dict[str, Any]:
        return dict(self.interceptor.snapshot())

    def counts(self, snapshot: dict[str, Any] | None = None) -> tuple[Any, ...]:
        """The rules' match and hit counts: they change with every message a rule sees, which the
        interceptor does not announce (a notification per message would cost the forwarding path)."""
        rules = (snapshot or self.interceptor.snapshot())["rules"]
        return tuple((r.get("name"), r.get("matched"), r.get("hits")) for r in rules)

    def resolve(self, pending_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Resolve paused message `pending_id` as `body` says: what was done and what was sent."""
        action = resolution(body)
        pending = self.interceptor.get_pending(pending_id)
        if pending is None or pending.resolved:
            raise ControlError(404, f"no paused message {pending_id!r} (already resolved or timed out)")
        raw = sent_for(pending.seen, action, body)
        try:
            outcome = pending.resolve(action, raw, by="user")
        except ValueError as exc:
            raise ControlError(422, f"paused message {pending_id!r} cannot be resolved: {exc}") from None
        done = outcome.intervention
        if done is not None and done.by != "user":  # the timeout came first
            raise ControlError(409, f"paused message {pending_id!r} was resolved by the {done.by} already")
        return {
            "id": pending_id,
            "action": action,
            "sent": None if raw is None else raw.decode("utf-8", "replace"),
        }

    def add_rule(self, body: dict[str, Any]) -> None:
        rule = rule_for(body, self.kind)
        if any(r.name == rule.name for r in self.interceptor.rules()):
            raise ControlError(409, f"a rule named {rule.name!r} exists already (remove it first)")
        try:
            self.interceptor.add_rule(rule)
        except RulesError as exc:  # the name is taken (added meanwhile)
            raise ControlError(409, str(exc)) from None

    def set_enabled(self, name: str, body: dict[str, Any]) -> None:
        if not self.interceptor.set_enabled(name, one_switch(body, "enabled")):
            raise ControlError(404, f"no rule named {name!r}")

    def remove_rule(self, name: str) -> None:
        if not self.interceptor.remove_rule(name):
            raise ControlError(404, f"no rule named {name!r}")

    def breakpoints(self, body: dict[str, Any]) -> None:
        self.interceptor.breakpoints_on(one_switch(body, "on"))
