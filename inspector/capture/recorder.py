"""The recording thread: captured chunks in, batched message rows out to subscribers.

Forwarding threads call `submit` with a copy of the bytes they just
forwarded; that costs one queue put. Framing, classification, correlation
and database writes all happen on this thread. Rows are handed to the
subscribers in batches: when `batch_rows` are pending or `flush_interval`
has passed since the oldest pending row. `submit_durable` waits until the
chunk's rows are committed (the `--durable` mode).

The queue is bounded (`max_queued_chunks`): if recording falls that far
behind, forwarding waits instead of memory growing without limit.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from typing import Any, Protocol

from inspector.capture.builder import MessageBuilder

__all__ = ["Recorder", "Subscriber"]


class Subscriber(Protocol):
    """Receives every batch of rows, in order, on the recorder thread."""

    def on_batch(self, rows: list[dict[str, Any]], facts: dict[str, Any] | None) -> None: ...

    def on_end(self, exit_status: int | None, reason: str, facts: dict[str, Any]) -> None: ...


_DATA, _EOS, _MSG, _FINISH = range(4)


class Recorder:
    """Owns the recording thread of one session."""

    def __init__(
        self,
        builder: MessageBuilder,
        subscribers: list[Subscriber],
        *,
        flush_interval: float = 0.005,
        batch_rows: int = 5000,
        max_queued_chunks: int = 1024,
    ) -> None:
        self.builder = builder
        self.subscribers = subscribers
        self.flush_interval = flush_interval
        self.batch_rows = batch_rows
        self.errors = 0
        self._q: queue.Queue[tuple[Any, ...]] = queue.Queue(max_queued_chunks)
        self._pending: list[dict[str, Any]] = []
        self._oldest = 0.0
        self._waiters: list[threading.Event] = []
        self._thread = threading.Thread(target=self._run, name="mcp-inspect-recorder", daemon=True)
        self._finished = threading.Event()

    def start(self) -> Recorder:
        self._thread.start()
        return self

    def submit(self, direction: str, channel: str, data: bytes, ts_ns: int | None = None) -> None:
        """Hand over bytes that were just forwarded (hot path)."""
        self._q.put((_DATA, ts_ns or time.time_ns(), direction, channel, data, None))

    def submit_durable(self, direction: str, channel: str, data: bytes, ts_ns: int | None = None) -> None:
        """Hand over bytes and wait until their complete lines are committed."""
        done = threading.Event()
        self._q.put((_DATA, ts_ns or time.time_ns(), direction, channel, data, done))
        done.wait()

    def submit_message(
        self, direction: str, channel: str, raw: bytes, ts_ns: int | None = None, **http: Any
    ) -> None:
        """Hand over one already-framed message (HTTP body, SSE data) with its HTTP metadata."""
        self._q.put((_MSG, ts_ns or time.time_ns(), direction, channel, raw, http))

    def end_stream(self, direction: str, channel: str) -> None:
        """The stream ended: its partial last line (if any) is recorded."""
        self._q.put((_EOS, time.time_ns(), direction, channel, b"", None))

    def finish(self, exit_status: int | None, reason: str, timeout: float | None = None) -> None:
        """Record everything still queued, mark the session ended, stop the thread."""
        self._q.put((_FINISH, time.time_ns(), exit_status, reason, b"", None))
        self._finished.wait(timeout)

    def _run(self) -> None:
        builder = self.builder
        get = self._q.get
        while True:
            timeout = None
            if self._pending:
                timeout = max(0.0, self._oldest + self.flush_interval - time.monotonic())
            try:
                op, ts_ns, a, b, data, extra = get(timeout=timeout)
            except queue.Empty:
                self._flush()
                continue
            if op == _DATA:
                self._add(builder.feed(ts_ns, a, b, data))
                if extra is not None:
                    self._waiters.append(extra)
                    self._flush()
            elif op == _MSG:
                self._add([builder.message(ts_ns, a, b, data, **extra)])
            elif op == _EOS:
                self._add(builder.close_stream(ts_ns, a, b))
            else:
                self._add(builder.close_all(ts_ns))
                self._flush()
                self._end(a, b)
                return
            if len(self._pending) >= self.batch_rows:
                self._flush()

    def _add(self, rows: list[dict[str, Any]]) -> None:
        if rows:
            if not self._pending:
                self._oldest = time.monotonic()
            self._pending.extend(rows)

    def _flush(self) -> None:
        facts = None
        if self.builder.facts_changed:
            facts = self.builder.facts.snapshot()
        rows = self._pending
        if rows or facts is not None:
            try:
                for sub in self.subscribers:
                    sub.on_batch(rows, facts)
            except Exception as exc:  # a full disk must not stop forwarding; retry at the next flush
                self._warn(f"recording failed, will retry: {exc}")
                self._oldest = time.monotonic()
                return
            self._pending = []
            self.builder.facts_changed = False
        for waiter in self._waiters:
            waiter.set()
        self._waiters.clear()

    def _end(self, exit_status: int | None, reason: str) -> None:
        facts = self.builder.facts.snapshot()
        facts["unanswered"] = [
            {"seq": p.seq, "direction": p.direction, "method": p.method}
            for p in self.builder.correlator.unanswered()
        ]
        try:
            for sub in self.subscribers:
                sub.on_end(exit_status, reason, facts)
        except Exception as exc:
            self._warn(f"could not mark the session ended: {exc}")
        finally:
            for waiter in self._waiters:
                waiter.set()
            self._finished.set()

    def _warn(self, text: str) -> None:
        self.errors += 1
        if self.errors <= 5:
            print(f"[mcp-inspect] {text}", file=sys.stderr, flush=True)
