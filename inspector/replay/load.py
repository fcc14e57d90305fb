"""A recording replayed as load: its client messages re-sent at a chosen pace.

`replay SID --rate N | --as-recorded [--speed X] | --max [--concurrency K]` (`Load`). The handshake
(`initialize`, `notifications/initialized`, a leading `server/discover`) is replayed once, as a
plain replay does (`driver.run_replay`); the client messages after it are the load, sent
`--repeat N` times over (default once) or, with `--duration S`, round and round until S seconds
have passed:

- `--rate N`: N messages a second, open loop (the i-th at i/N s, whatever the answers do);
- `--as-recorded`: at the recorded offsets from the first of them (divided by `--speed`); a pass
  follows the one before after the recording's mean gap;
- `--max`: each as soon as a slot is free.

`--concurrency K` bounds the requests in flight (sent, not yet answered): K with `--max` (default
1), no bound with the other two unless given. Over stdio that is K outstanding ids on the one
connection; over HTTP K requests open at once. Each request is sent with a fresh id (the recorded
one could be in flight already), so it is re-encoded; notifications and what does not parse go as
recorded. Values learned in the handshake (`Substitutions`) are put in; a load message's answer
teaches nothing (its order is the pace's, not the recording's). The server's own requests are
answered from the recording as in any replay.

What it measured is not counted here: the replay is recorded as a session, and its numbers per
method are `store.stats` over that session (`mcp-inspect stats`), the one computation of them.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import anyio
import orjson

from inspector.endpoint import Endpoint
from inspector.errors import ConnectionClosed, InspectorError, ResponseTimeout
from inspector.protocol import id_key
from inspector.replay.plan import Step

__all__ = [
    "HANDSHAKE",
    "Load",
    "LoadRun",
    "Progress",
    "drive_load",
    "load_mode",
    "renumber",
    "schedule",
    "split_handshake",
]

# The leading client messages replayed once, before the load.
HANDSHAKE = frozenset({"initialize", "notifications/initialized", "server/discover"})
# A load request's id: counted from here, clear of the small ids clients choose.
FIRST_ID = 1_000_001


@dataclass(frozen=True)
class Load:
    """How a load replay paces its messages (see the module's docstring)."""

    mode: str  # "rate", "as-recorded" or "max"
    rate: float | None = None  # messages a second (`rate`)
    speed: float = 1.0  # `as-recorded`: the recorded gaps divided by this
    concurrency: int | None = None  # requests in flight at most (None: no bound)
    repeat: int = 1  # passes over the recorded messages
    duration: float | None = None  # seconds of sending instead of `repeat` passes

    def describe(self) -> str:
        """The pace in the words of the options, e.g. `--rate 50 --concurrency 4, 2 passes`."""
        words = f"--rate {self.rate:g}" if self.rate is not None else f"--{self.mode}"
        if self.mode == "as-recorded" and self.speed != 1:
            words += f" --speed {self.speed:g}"
        if self.concurrency is not None:
            words += f" --concurrency {self.concurrency}"
        if self.duration is not None:
            return f"{words}, for {self.duration:g} s"
        return f"{words}, {self.repeat} pass{'es' if self.repeat != 1 else ''}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def load_mode(
    *,
    rate: float | None,
    as_recorded: bool,
    max_pace: bool,
    concurrency: int | None,
    speed: float | None,
    repeat: int | None,
    duration: float | None,
) -> Load | None:
    """The `Load` the options ask for (None: a plain replay); a combination that makes no sense is
    an InspectorError naming it."""
    modes = [
        name
        for name, on in (("--rate", rate is not None), ("--as-recorded", as_recorded), ("--max", max_pace))
        if on
    ]
    if len(modes) > 1:
        raise InspectorError(f"{' and '.join(modes)} are different paces: give one of them")
    if not modes:
        given = [
            name
            for name, value in (
                ("--concurrency", concurrency),
                ("--speed", speed),
                ("--repeat", repeat),
                ("--duration", duration),
            )
            if value is not None
        ]
        if given:
            raise InspectorError(
                f"{', '.join(given)} pace a load replay: add --rate N, --as-recorded or --max"
            )
        return None
    if rate is not None and not rate > 0:
        raise InspectorError(f"--rate must be above 0 (messages a second), not {rate:g}")
    if speed is not None and not as_recorded:
        raise InspectorError("--speed scales the recorded gaps: it goes with --as-recorded")
    if speed is not None and not speed > 0:
        raise InspectorError(f"--speed must be above 0, not {speed:g}")
    if concurrency is not None and concurrency < 1:
        raise InspectorError(f"--concurrency must be 1 or more, not {concurrency}")
    if repeat is not None and duration is not None:
        raise InspectorError("--repeat and --duration both say when to stop: give one of them")
    if repeat is not None and repeat < 1:
        raise InspectorError(f"--repeat must be 1 or more, not {repeat}")
    if duration is not None and not duration > 0:
        raise InspectorError(f"--duration must be above 0 seconds, not {duration:g}")
    mode = "rate" if rate is not None else "as-recorded" if as_recorded else "max"
    return Load(
        mode,
        rate=rate,
        speed=speed or 1.0,
        concurrency=concurrency if concurrency is not None or mode != "max" else 1,
        repeat=repeat or 1,
        duration=duration,
    )


def split_handshake(steps: Sequence[Step]) -> tuple[list[Step], list[Step]]:
    """(the leading handshake messages, the rest: the load)."""
    n = 0
    while n < len(steps) and steps[n].method in HANDSHAKE:
        n += 1
    return list(steps[:n]), list(steps[n:])


def schedule(load: Load, steps: Sequence[Step]) -> Iterator[tuple[float | None, Step]]:
    """(seconds after the start, or None: as soon as a slot is free; step) for each message to
    send, in order; endless with `duration` (the sender stops taking)."""
    if not steps:
        return
    passes: Iterator[int] = itertools.count() if load.duration is not None else iter(range(load.repeat))
    first = steps[0].ts_ns
    span = max(0, steps[-1].ts_ns - first) / 1e9 / load.speed
    cycle = span + span / (len(steps) - 1) if len(steps) > 1 else 0.0  # and the mean gap to the next pass
    i = 0
    for n in passes:
        for step in steps:
            if load.mode == "rate":
                assert load.rate is not None
                yield i / load.rate, step
            elif load.mode == "as-recorded":
                yield n * cycle + max(0, step.ts_ns - first) / 1e9 / load.speed, step
            else:
                yield None, step
            i += 1


def renumber(raw: bytes, ids: Iterator[int]) -> tuple[bytes, list[str]]:
    """`raw` with each request in it (a batch's too) given the next id of `ids`, and those ids
    (canonical, for `Endpoint.response`); a message with no request, or not JSON, as it was."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw, []
    items = doc if isinstance(doc, list) else [doc]
    new: list[str] = []
    for item in items:
        if isinstance(item, dict) and "id" in item and isinstance(item.get("method"), str):
            item["id"] = next(ids)
            new.append(id_key(item["id"]))
    return (orjson.dumps(doc), new) if new else (raw, [])


@dataclass
class LoadRun:
    """What the sender saw: how many it sent and got answers to, and when (monotonic seconds)."""

    sent: int = 0
    requests: int = 0
    answered: int = 0
    unanswered: list[str] = field(default_factory=list)  # ids that got no answer in time
    started: float = 0.0
    last_sent: float = 0.0
    finished: float = 0.0

    @property
    def elapsed(self) -> float:
        """From the first message sent to the last answer (or timeout)."""
        return max(0.0, self.finished - self.started)

    @property
    def sending(self) -> float:
        """From the first message sent to the last."""
        return max(0.0, self.last_sent - self.started)

    @property
    def pace(self) -> float | None:
        """Messages sent a second: the gaps between the sends (n - 1 of them for n), as `--rate`
        counts; None for fewer than two."""
        return (self.sent - 1) / self.sending if self.sent > 1 and self.sending > 0 else None


class Progress(Protocol):
    """What a progress bar is told: `total` once (None: open-ended, `duration`), then one `advance`
    per message done (its requests answered or timed out, a notification sent)."""

    def total(self, total: int | None) -> None: ...

    def advance(self) -> None: ...


class _Quiet:
    def total(self, total: int | None) -> None:
        pass

    def advance(self) -> None:
        pass


async def drive_load(
    load: Load,
    steps: Sequence[Step],
    endpoint: Endpoint,
    apply: Callable[[bytes], bytes],
    *,
    timeout: float,
    progress: Progress | None = None,
) -> LoadRun:
    """Send `steps` at `load`'s pace through `endpoint` (an `Endpoint` being served), each request
    awaited in its own task; returns once every request is answered or has timed out. `apply`
    puts learned values into a message (`Substitutions.apply`). A closed connection ends it with
    `ConnectionClosed`."""
    run = LoadRun()
    progress = progress or _Quiet()
    progress.total(None if load.duration is not None else len(steps) * load.repeat)
    limiter = anyio.CapacityLimiter(load.concurrency) if load.concurrency is not None else None
    ids = itertools.count(FIRST_ID)
    closed: list[str] = []

    async def one(token: object, raw: bytes, wanted: list[str]) -> None:
        try:
            await endpoint.send_raw(raw)
            for rid in wanted:
                try:
                    await endpoint.response(rid, timeout=timeout)
                    run.answered += 1
                except ResponseTimeout:
                    run.unanswered.append(rid)
        except ConnectionClosed as exc:
            closed.append(str(exc))
        finally:
            run.finished = time.monotonic()
            if limiter is not None:
                limiter.release_on_behalf_of(token)
            progress.advance()

    start = run.started = time.monotonic()
    async with anyio.create_task_group() as tg:
        for offset, step in schedule(load, steps):
            # --rate stops by its schedule (a late machine still sends what it owes), the others by
            # the clock too (a recording whose messages share one instant has passes of no length).
            elapsed = time.monotonic() - start
            due = offset if load.mode == "rate" and offset is not None else max(offset or 0.0, elapsed)
            if load.duration is not None and due >= load.duration:
                break
            if offset is not None:
                await anyio.sleep(max(0.0, offset - (time.monotonic() - start)))
            token = object()
            if limiter is not None:
                await limiter.acquire_on_behalf_of(token)
            if closed or endpoint.closed.is_set():
                if limiter is not None:
                    limiter.release_on_behalf_of(token)
                break
            raw, wanted = renumber(apply(step.raw), ids)
            run.sent += 1
            run.requests += len(wanted)
            run.last_sent = time.monotonic()
            tg.start_soon(one, token, raw, wanted)
    run.finished = max(run.finished, run.last_sent)
    if closed or (endpoint.closed.is_set() and run.answered < run.requests):
        raise ConnectionClosed(closed[0] if closed else "the server closed the connection during the load")
    return run
