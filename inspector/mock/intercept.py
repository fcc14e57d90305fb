"""`mock-server` / `serve` with `--faults`: the interceptor on our own server's messages (issue 17).

`MockIntercept` is the stdio hook (below); `HttpIntercept` decides for the Streamable HTTP
transport, which applies the effects to its POST bodies and SSE events (`mock/serve.py`).

A thin hook between the mock transports (`mock/serve.py`) and `MockSession`:
each line the client sends (`inbound`) and each message the mock sends
(`outbound`) is a `Flow` shown to the interceptor's addon
(`intercept/addon.py`, the one `wrap` uses), and its verdict is applied: delivered (maybe late, maybe altered, maybe twice),
dropped, answered by the inspector instead, or the connection cut. Recording
follows the #17 contract: the sender's bytes as one row with
`meta.intercept` when something was done to them, each row of bytes the
inspector sent instead or in addition with `meta.injected`, every row through
`tap.submit_message` (so with interception on, the stdio transport never
uses the line-framed `tap.submit`).

A delay holds back what follows in the same direction (order is kept unless
a rule reorders); reorder windows are released by `tick`, which the
transport runs every `TICK_S`. A held message (a breakpoint, `--intercept`)
waits for a person on the control channel (`start_mock_control`) or for its
timeout, polled every `TICK_S`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from inspector.capture import Tap
from inspector.errors import RulesError
from inspector.flow import Direction, Flow, HttpContext, StdioContext, Verdict
from inspector.intercept import Interceptor
from inspector.intercept.addon import InterceptAddon

__all__ = ["TICK_S", "HttpIntercept", "MockIntercept", "Send", "end_reason", "mock_interceptor", "with_facts"]

TICK_S = 0.05
Send = Callable[[bytes], Awaitable[None]]
_STDIO_CHANNEL = {"c2s": "stdin", "s2c": "stdout"}


async def settled(verdict: Verdict, interceptor: Interceptor) -> Verdict:
    """`verdict`, or once it is a hold, what the hold was decided to be. The mock runs no addon
    timer: holds are polled every `TICK_S`, and only their timeout can free them."""
    while verdict.hold is not None:
        decided = verdict.hold.wait(0)
        if decided is None:
            await anyio.sleep(TICK_S)
            interceptor.expire()
        else:
            verdict = decided
    return verdict


class MockIntercept:
    """One mock connection's interception: `deliver[d]` sends bytes on in direction d (c2s: to the
    mock session, s2c: to the client); `disconnect(reason)` cuts the connection."""

    def __init__(self, interceptor: Interceptor, tap: Tap) -> None:
        self.interceptor = interceptor
        self.tap = tap
        self.deliver: dict[str, Send] = {}
        self.disconnect: Callable[[str], Awaitable[None]] | None = None
        self.disconnected: str | None = None
        self._locks = {"c2s": anyio.Lock(), "s2c": anyio.Lock()}
        # The interceptor's decisions as verdicts (its timer is not started: `tick` is the timer).
        self.addon = InterceptAddon(interceptor)
        self._context = {"c2s": StdioContext(["mock"], "stdin"), "s2c": StdioContext(["mock"], "stdout")}

    def facts(self) -> dict[str, Any]:
        return {"intercept": self.interceptor.facts()}

    async def inbound(self, raw: bytes, ts_ns: int | None = None) -> None:
        """A line from the client (its terminator included)."""
        await self._decide("c2s", raw, ts_ns)

    async def outbound(self, raw: bytes) -> None:
        """A line the mock sends to the client."""
        await self._decide("s2c", raw, None)

    async def _decide(self, direction: Direction, raw: bytes, ts_ns: int | None) -> None:
        async with self._locks[direction]:  # one line at a time per direction: a delay holds the rest
            if self.disconnected is not None:
                return
            flow = Flow(raw, direction, ts_ns or time.time_ns(), self._context[direction])
            verdict = self.addon.message(flow)
            if verdict is None:
                self._record(direction, raw, None, ts_ns)
                await self._send(direction, raw)
                return
            await self._apply(flow, await settled(verdict, self.interceptor), ts_ns)

    async def _apply(self, flow: Flow, verdict: Verdict, ts_ns: int | None) -> None:
        self._record(flow.direction, flow.raw, dict(flow.meta) or None, ts_ns)
        for s in verdict.sends:
            if s.injected is not None:
                self._record(s.to, s.raw, {"injected": s.injected})
            if s.delay_s > 0:
                await anyio.sleep(s.delay_s)
            await self._send(s.to, s.raw)
        if verdict.disconnect is not None:
            await self._cut(verdict.disconnect)

    async def tick(self) -> None:
        """Release reorder windows that are due and expire held messages (the transport calls it
        every `TICK_S`)."""
        self.interceptor.expire()
        for d in self.interceptor.due():
            await self._send(d.of.direction if d.of is not None else "s2c", d.raw)

    async def flush(self, direction: str) -> None:
        """The direction ended: what a reorder still holds goes out now."""
        for d in self.interceptor.flush(direction):
            await self._send(direction, d.raw)

    async def _send(self, direction: str, raw: bytes) -> None:
        send = self.deliver.get(direction)
        if send is not None and self.disconnected is None:
            await send(raw)

    async def _cut(self, reason: str) -> None:
        if self.disconnected is None:
            self.disconnected = reason
            if self.disconnect is not None:
                await self.disconnect(reason)

    def _record(
        self, direction: str, raw: bytes, meta: dict[str, Any] | None, ts_ns: int | None = None
    ) -> None:
        extra = {"meta": meta} if meta else {}
        self.tap.submit_message(direction, _STDIO_CHANNEL[direction], raw, ts_ns, **extra)


# Actions the mock's HTTP transport does not apply (yet): refused when the rules are loaded.
HTTP_MOCK_UNSUPPORTED = frozenset({"reorder", "drip", "close_stream"})


def mock_interceptor(
    faults: str | None,
    seed: int | None,
    *,
    http: bool,
    intercept: bool = False,
    pause_timeout: float | None = None,
    pause_default: str | None = None,
) -> Interceptor | None:
    """The interceptor `--faults FILE --seed N` (and `--intercept`, `--pause-timeout`,
    `--pause-default`) describe for a mock server, None without `--faults` or `--intercept` (a
    clear error for a bad rules file, or an action the transport cannot apply)."""
    if faults is None and not intercept:
        if seed is not None or pause_timeout is not None or pause_default is not None:
            raise RulesError(
                "--seed, --pause-timeout and --pause-default go with --faults FILE or --intercept"
            )
        return None
    from inspector.intercept.wrap import build_interceptor

    ic = build_interceptor(
        faults,
        intercept=intercept,
        seed=seed,
        pause_timeout=pause_timeout,
        pause_default=pause_default,
        transport="http" if http else "stdio",
    )
    if http:
        for i, rule in enumerate(ic.rules()):
            if rule.action in HTTP_MOCK_UNSUPPORTED:
                raise RulesError(
                    f"{faults}: rule {rule.name!r} (rules[{i}]), field action: {rule.action} is not "
                    "applied by the mock server's HTTP transport (use it with `proxy`, or --stdio)"
                )
    return ic


def end_reason(ended: dict[str, Any] | None) -> str | None:
    """The reason to end the session with when a rule cut the connection (`serve_stdio`'s end)."""
    return str(ended["disconnected"]) if ended is not None and "disconnected" in ended else None


class HttpIntercept:
    """The interceptor on the mock's Streamable HTTP transport: a POST's body (c2s) before the
    mock sees it, each SSE event's data (s2c) before the client does. One per listener; the
    decisions are the intercept addon's verdicts (`intercept/addon.py`, the one `wrap` and `proxy` use)."""

    def __init__(self, interceptor: Interceptor) -> None:
        self.interceptor = interceptor
        self.addon = InterceptAddon(interceptor)  # its timer is not started: holds are polled below
        self._context = HttpContext("POST", "", (), "mock", "")

    def facts(self) -> dict[str, Any]:
        return {"intercept": self.interceptor.facts()}

    async def decide(self, direction: Direction, raw: bytes) -> tuple[Flow, Verdict | None]:
        """The flow (its `meta.intercept` says what was done) and the addon's verdict (None: untouched)."""
        flow = Flow(raw, direction, time.time_ns(), self._context)
        verdict = self.addon.message(flow)
        return flow, None if verdict is None else await settled(verdict, self.interceptor)


def with_facts(
    make: Callable[[], tuple[Any, Tap]], interceptor: Interceptor | None, seen: list[int] | None = None
) -> Callable[[], tuple[Any, Tap]]:
    """A session factory whose sessions record `facts.intercept` (HTTP: a session per client);
    their ids go to `seen` (what the control channel reports)."""
    if interceptor is None:
        return make

    def made() -> tuple[Any, Tap]:
        session, tap = make()
        tap.add_facts({"intercept": interceptor.facts()})
        if seen is not None:
            seen.append(tap.session_id)
        return session, tap

    return made


def start_mock_control(
    interceptor: Interceptor | None, *, kind: str, target: Any, sessions: list[int], engine: Any
) -> Any:
    """With `--intercept`: the control channel (`mcp-inspect intercept`, the UI's panel) for the
    mock's breakpoints, announced in the runtime directory; None otherwise. Close it at the end."""
    if interceptor is None or not interceptor.breakpoints:
        return None
    from inspector.control.server import start_control
    from inspector.store.db import db_key

    return start_control(
        interceptor, kind=kind, target=target, sessions=lambda: list(sessions), db=db_key(engine)
    )
