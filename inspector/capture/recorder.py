"""The recording thread: captured bytes in, batched message rows out to subscribers.

One recorder serves every session of a process (one for a stdio wrap, many
for an HTTP proxy). Transports talk to it through a `Tap` bound to one
session: `tap.submit(...)` with a copy of bytes just read costs one queue
put. Framing, classification, correlation and database writes all happen
on the recording thread. Rows go to the subscribers in batches: when
`batch_rows` are pending or `flush_interval` has passed since the oldest
pending row. `Tap.submit_durable` waits until the chunk's rows are
committed (the `--durable` mode).

Handing over never wakes the recording thread: taps append to a deque and
the thread drains it every `drain_interval` (a thread wake-up per chunk
cost more forwarding latency than all the recording work). Durable submits,
session ends and stop do wake it at once.

Every row passes the process's redaction (`capture/redact.py`) before any
subscriber sees it: one step for every producer, so no transport has to
remember it.

The backlog is bounded (`max_queued_chunks`, at most 64 KiB each): if
recording falls that far behind, forwarding waits instead of memory growing
without limit.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from typing import Any, Protocol

from inspector.capture.builder import MessageBuilder
from inspector.capture.redact import Redaction, active

__all__ = ["Recorder", "Subscriber", "Tap"]


class Subscriber(Protocol):
    """Receives every batch of rows, in order, on the recorder thread."""

    def on_batch(self, rows: list[dict[str, Any]], facts: dict[int, dict[str, Any]]) -> None:
        """Rows of any sessions, and the new facts of the sessions whose facts changed."""

    def on_end(self, session_id: int, exit_status: int | None, reason: str, facts: dict[str, Any]) -> None:
        """A session ended (after all its rows were handed over)."""


_DATA, _EOS, _MSG, _OPEN, _END, _STOP = range(6)


class Tap:
    """A transport's handle on one session of a recorder."""

    __slots__ = ("_put", "_put_now", "session_id")

    def __init__(self, recorder: Recorder, session_id: int) -> None:
        self.session_id = session_id
        self._put = recorder._put
        self._put_now = recorder._put_now

    def submit(self, direction: str, channel: str, data: bytes, ts_ns: int | None = None) -> None:
        """Hand over bytes of a line-framed stream (hot path); `ts_ns`: when read, if not now."""
        self._put((_DATA, ts_ns or time.time_ns(), self.session_id, direction, channel, data, None))

    def submit_durable(self, direction: str, channel: str, data: bytes) -> None:
        """Hand over bytes and wait until their complete lines are committed."""
        done = threading.Event()
        self._put_now((_DATA, time.time_ns(), self.session_id, direction, channel, data, done))
        done.wait()

    def submit_message(
        self, direction: str, channel: str, raw: bytes, ts_ns: int | None = None, **http: Any
    ) -> None:
        """Hand over one already-framed message (HTTP body, SSE event data) with its HTTP metadata."""
        self._put((_MSG, ts_ns or time.time_ns(), self.session_id, direction, channel, raw, http))

    def end_stream(self, direction: str, channel: str, ts_ns: int | None = None) -> None:
        """The stream ended: its partial last line (if any) is recorded."""
        self._put((_EOS, ts_ns or time.time_ns(), self.session_id, direction, channel, b"", None))

    def end(self, exit_status: int | None, reason: str) -> None:
        """The session ended: flush its partial lines and mark it ended."""
        self._put_now((_END, time.time_ns(), self.session_id, exit_status, reason, b"", None))


class Recorder:
    """Owns the recording thread of a process."""

    def __init__(
        self,
        subscribers: list[Subscriber],
        *,
        flush_interval: float = 0.005,
        drain_interval: float = 0.002,
        batch_rows: int = 5000,
        max_queued_chunks: int = 256,
        redaction: Redaction | None = None,
    ) -> None:
        self.subscribers = subscribers
        self.redaction = redaction or active()
        self.flush_interval = flush_interval
        self.batch_rows = batch_rows
        self.errors = 0
        self.builders: dict[int, MessageBuilder] = {}  # open sessions
        self.final_counts: dict[int, int] = {}  # ended sessions: rows recorded
        self.drain_interval = drain_interval
        self.max_queued_chunks = max_queued_chunks
        self._items: deque[tuple[Any, ...]] = deque()
        self._wake = threading.Event()
        self._room = threading.Condition()
        self._pending: list[dict[str, Any]] = []
        self._oldest = 0.0
        self._waiters: list[threading.Event] = []
        self._thread = threading.Thread(target=self._run, name="mcp-inspect-recorder", daemon=True)
        self._stopped = threading.Event()

    def start(self) -> Recorder:
        self._thread.start()
        return self

    def open(self, session_id: int) -> Tap:
        """Start recording a session (its row already exists in the store)."""
        self._put((_OPEN, time.time_ns(), session_id, None, None, b"", None))
        return Tap(self, session_id)

    def stop(self, reason: str = "recorder stopped", timeout: float | None = None) -> None:
        """Record everything queued, end the sessions still open with `reason`, stop the thread."""
        self._put_now((_STOP, time.time_ns(), 0, None, reason, b"", None))
        self._stopped.wait(timeout)

    def _put(self, item: tuple[Any, ...]) -> None:
        items = self._items
        if len(items) >= self.max_queued_chunks:
            with self._room:
                while len(items) >= self.max_queued_chunks and not self._stopped.is_set():
                    self._wake.set()
                    self._room.wait(0.05)
        items.append(item)

    def _put_now(self, item: tuple[Any, ...]) -> None:
        self._items.append(item)
        self._wake.set()

    def messages_recorded(self, session_id: int) -> int:
        """How many rows a session has produced so far (read from any thread)."""
        builder = self.builders.get(session_id)
        return builder.seq if builder else self.final_counts.get(session_id, 0)

    def _run(self) -> None:
        items = self._items
        wake = self._wake
        while True:
            wake.wait(self.drain_interval)
            wake.clear()
            while items:
                if self._handle(items.popleft()):
                    return
                if len(self._pending) >= self.batch_rows:
                    self._flush()
            with self._room:
                self._room.notify_all()
            if self._pending and time.monotonic() - self._oldest >= self.flush_interval:
                self._flush()

    def _handle(self, item: tuple[Any, ...]) -> bool:
        """Process one handed-over item; True when the recorder must stop."""
        op, ts_ns, sid, a, b, data, extra = item
        builders = self.builders
        if op == _STOP:
            for open_sid in list(builders):
                self._end(open_sid, ts_ns, None, b)
            self._flush(attempts=5)
            self._stopped.set()
            with self._room:
                self._room.notify_all()
            return True
        if op == _OPEN:
            builders[sid] = MessageBuilder(sid)
            return False
        builder = builders.get(sid)
        if builder is None:
            self._warn(f"dropped traffic for session {sid}, which has already ended")
            if extra is not None and op == _DATA:
                extra.set()
            return False
        try:
            if op == _DATA:
                self._add(builder.feed(ts_ns, a, b, data))
                if extra is not None:
                    self._waiters.append(extra)
                    self._flush()
            elif op == _MSG:
                self._add([builder.message(ts_ns, a, b, data, **extra)])
            elif op == _EOS:
                self._add(builder.close_stream(ts_ns, a, b))
            elif op == _END:
                self._end(sid, ts_ns, a, b)
        except Exception as exc:  # our bug must not stop recording the rest
            self._warn(f"internal error while recording session {sid}: {exc!r}")
        return False

    def _add(self, rows: list[dict[str, Any]]) -> None:
        if rows:
            if not self.redaction.keep:
                for row in rows:
                    self._redact(row)
            if not self._pending:
                self._oldest = time.monotonic()
            self._pending.extend(rows)

    def _redact(self, row: dict[str, Any]) -> None:
        try:
            self.redaction.row(row)
        except Exception as exc:  # our bug: keep the row's place (seq), never a secret it might hold
            self._warn(f"internal error while redacting a row of session {row['session_id']}: {exc!r}")
            row["raw"], row["size"], row["http_headers"] = b"", 0, None
            row["http_path"] = (row["http_path"] or "").partition("?")[0] or row["http_path"]
            row["meta"] = {**(row["meta"] or {}), "problem": "redaction failed; the body was not stored"}

    def _changed_facts(self) -> dict[int, dict[str, Any]]:
        changed = {}
        for sid, builder in self.builders.items():
            if builder.facts_changed:
                changed[sid] = builder.facts.snapshot()
        return changed

    def _flush(self, attempts: int = 1) -> bool:
        facts = self._changed_facts()
        rows = self._pending
        for attempt in range(attempts):
            if not rows and not facts:
                break
            try:
                for sub in self.subscribers:
                    sub.on_batch(rows, facts)
            except Exception as exc:  # a full disk must not stop forwarding; retry at the next flush
                self._warn(f"recording failed, will retry: {exc}")
                self._oldest = time.monotonic()
                if attempt + 1 < attempts:
                    time.sleep(0.1 * (attempt + 1))
                    continue
                return False
            break
        self._pending = []
        for sid in facts:
            if sid in self.builders:
                self.builders[sid].facts_changed = False
        for waiter in self._waiters:
            waiter.set()
        self._waiters.clear()
        return True

    def _end(self, sid: int, ts_ns: int, exit_status: int | None, reason: str) -> None:
        builder = self.builders.pop(sid)
        self.final_counts[sid] = builder.seq
        self._add(builder.close_all(ts_ns))
        self._flush(attempts=5)
        facts = builder.facts.snapshot()
        facts["unanswered"] = [
            {"seq": p.seq, "direction": p.direction, "method": p.method}
            for p in builder.correlator.unanswered()
        ]
        try:
            for sub in self.subscribers:
                sub.on_end(sid, exit_status, reason, facts)
        except Exception as exc:
            self._warn(f"could not mark session {sid} ended: {exc}")

    def _warn(self, text: str) -> None:
        self.errors += 1
        if self.errors <= 5:
            print(f"[mcp-inspect] {text}", file=sys.stderr, flush=True)
