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

Subscribers are called on a second thread, the writer: while it inserts
one batch (SQLite releases the GIL while it works), the recording thread
frames and classifies the next, so the two overlap on two cores. At most one
batch is in flight; the next waits for it (rows stay in order, and a slow
database slows the recording thread down, which in turn holds forwarding
back through the bounded queue). Session ends, durable submits and stop
wait until their rows are committed, as before.

The backlog is bounded (`max_queued_chunks`, at most 64 KiB each): if
recording falls that far behind, forwarding waits instead of memory growing
without limit.

Sessions can be created on the recording thread (`Recorder.open_new`): the
transport gets a tap at once, under a provisional handle, and never waits on
the database (an HTTP proxy creates a session per client, on its event loop).

When the subscribers keep failing (a database that is gone, full or locked),
the rows waiting for them are bounded by `max_pending_bytes`: past it, new
rows are dropped (their seq stays unused), counted per session in the facts
(`dropped_messages`, written when the database comes back) and reported on
stderr. Forwarding never stops for it. A failing database is retried with a
growing delay (50 ms doubling to 2 s), said once on stderr in one line when it
starts failing and once when it works again. What is still unwritten when the
recorder stops (a database that never came back) is counted per session
(`not_recorded`), for the process's closing line.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Protocol

from inspector.capture.builder import MessageBuilder
from inspector.capture.pause import Pauses, drop_body
from inspector.capture.redact import Redaction, active, header_pairs
from inspector.store.models import MessageRow

__all__ = ["Recorder", "Subscriber", "Tap", "record_cap"]


class Subscriber(Protocol):
    """Receives every batch of rows, in order, on the recorder thread."""

    def on_batch(self, rows: list[MessageRow], facts: dict[int, dict[str, Any]]) -> None:
        """Rows of any sessions, and the new facts of the sessions whose facts changed."""

    def on_end(self, session_id: int, exit_status: int | None, reason: str, facts: dict[str, Any]) -> None:
        """A session ended (after all its rows were handed over)."""


_DATA, _EOS, _MSG, _OPEN, _END, _STOP, _CREATE, _FACTS, _PAUSE = range(9)
# Rows of a failing database kept in memory at most (raw bytes plus a per-row estimate).
DEFAULT_MAX_PENDING_BYTES = int(os.environ.get("MCP_INSPECTOR_MAX_PENDING_BYTES", 64 * 1024 * 1024))
_ROW_OVERHEAD = 600  # a row dict's own size, roughly
_RETRY_FIRST = 0.05  # seconds before retrying a failed batch, doubling up to _RETRY_MAX
_RETRY_MAX = 2.0
_CREATE_ATTEMPTS = 5
_raw = itemgetter("raw")


def record_cap(flag: str | int | None = None) -> int:
    """What a row keeps of one message at most: a `--max-record-bytes` value, else the setting
    `storage.max_record_bytes` (`MCP_INSPECTOR_MAX_RECORD_BYTES`). A bad flag value is the user's
    error (InspectorError); a config file that cannot be read gives the default (recording goes on,
    `mcp-inspect config` reports it)."""
    from inspector.errors import InspectorError
    from inspector.settings import MAX_RECORD_BYTES, load, parse_size

    if flag is not None:
        try:
            cap = parse_size(flag)
        except ValueError as exc:
            raise InspectorError(f"--max-record-bytes: {exc}") from None
        if cap < 1024:
            raise InspectorError(f"--max-record-bytes: must be at least 1KiB, got {flag}")
        return cap
    try:
        return int(load().settings.storage.max_record_bytes)
    except (InspectorError, OSError):
        return MAX_RECORD_BYTES


@dataclass(slots=True, eq=False)
class _Batch:
    """Rows (and facts) handed to the writer thread; `error` is set when a subscriber failed."""

    rows: list[MessageRow]
    facts: dict[int, dict[str, Any]]
    waiters: list[threading.Event]
    size: int  # its share of the pending bytes
    done: threading.Event = field(default_factory=threading.Event)
    error: Exception | None = None


class Tap:
    """A transport's handle on one session of a recorder."""

    __slots__ = ("_put", "_put_now", "session_id")

    def __init__(self, recorder: Recorder, session_id: int) -> None:
        self.session_id = session_id  # negative: a provisional handle (`Recorder.open_new`)
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
        """Hand over one already-framed message (HTTP body, SSE event data) with its HTTP metadata.

        Headers go as `http_headers` ([name, value] strings) or, cheaper for the caller, as
        `http_raw_headers` ((name, value) bytes as received), decoded on the recording thread."""
        self._put((_MSG, ts_ns or time.time_ns(), self.session_id, direction, channel, raw, http))

    def end_stream(self, direction: str, channel: str, ts_ns: int | None = None) -> None:
        """The stream ended: its partial last line (if any) is recorded."""
        self._put((_EOS, ts_ns or time.time_ns(), self.session_id, direction, channel, b"", None))

    def add_facts(self, facts: dict[str, Any]) -> None:
        """Session facts a transport knows (e.g. `intercept`: the seed and rules), merged into the
        facts the traffic gives and written with them."""
        self._put((_FACTS, time.time_ns(), self.session_id, None, None, b"", dict(facts)))

    def end(self, exit_status: int | None, reason: str) -> None:
        """The session ended: flush its partial lines and mark it ended."""
        self._put_now((_END, time.time_ns(), self.session_id, exit_status, reason, b"", None))

    def pause(self, paused: bool, ts_ns: int | None = None) -> None:
        """Pause (True) or resume (False) recording this session; bytes keep flowing (see
        `capture/pause.py`): the rows of messages completed while paused are not recorded."""
        self._put_now((_PAUSE, ts_ns or time.time_ns(), self.session_id, paused, None, b"", None))


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
        max_pending_bytes: int = DEFAULT_MAX_PENDING_BYTES,
        redaction: Redaction | None = None,
        record: str = "full",
        max_record_bytes: int | None = None,
    ) -> None:
        self.subscribers = subscribers
        # Read by the transports too (the HTTP proxy keeps at most this much of a body it forwards).
        self.max_record_bytes = max_record_bytes if max_record_bytes is not None else record_cap()
        self.record = record  # how sessions are recorded unless `open` says (capture/pause.py)
        self._all_paused = False  # `pause_all`: sessions opened from now on start paused
        self._facts_dirty = False  # facts changed with no row to carry them (a paused session)
        self.redaction = redaction or active()
        self.flush_interval = flush_interval
        self.batch_rows = batch_rows
        self.errors = 0
        self.builders: dict[int, MessageBuilder] = {}  # open sessions, by tap handle
        self.final_counts: dict[int, int] = {}  # ended sessions: rows recorded
        self.paused_skipped: dict[int, int] = {}  # ended sessions: rows not recorded while paused
        self.session_ids: dict[int, int] = {}  # provisional handle -> session id, once created
        self.max_pending_bytes = max_pending_bytes
        self.dropped: dict[int, int] = {}  # handle -> rows dropped while the subscribers failed
        self._pending_bytes = 0
        self._dropping = False
        self._failures = 0  # batches failed in a row (0: the database works)
        self._retry_at = 0.0  # monotonic time before which a failed database is not tried again
        self._failing_since = 0.0
        self.left_unwritten: dict[int, int] = {}  # session id -> rows still unwritten at stop
        self._handles = itertools.count(-1, -1)
        self.drain_interval = drain_interval
        self.max_queued_chunks = max_queued_chunks
        self._items: deque[tuple[Any, ...]] = deque()
        # The thread's doorbell: a plain lock, held while nobody rang. Waiting on it with a timeout
        # is one C call; a threading.Event's wait and clear were about ten Python calls per poll
        # (a poll every `drain_interval`, traffic or not).
        self._bell = threading.Lock()
        self._bell.acquire()
        self._room = threading.Condition()
        self._room_waiting = 0  # producers waiting for room in the queue (rare: the queue is full)
        self._pending: list[MessageRow] = []
        self._oldest = 0.0
        self._waiters: list[threading.Event] = []
        self._inflight: _Batch | None = None  # the batch the writer thread has (at most one)
        self._batches: queue.SimpleQueue[_Batch | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="mcp-inspect-recorder", daemon=True)
        self._writer = threading.Thread(target=self._write, name="mcp-inspect-writer", daemon=True)
        self._stopped = threading.Event()

    def start(self) -> Recorder:
        self._writer.start()
        self._thread.start()
        return self

    def open(self, session_id: int, record: str | None = None, redaction: Redaction | None = None) -> Tap:
        """Start recording a session (its row already exists in the store); `record`: full,
        metadata (no bodies) or paused (starts paused); default: the recorder's `record`.
        `redaction`: the session's own rules (a per-server rule's names), else the recorder's."""
        self._put((_OPEN, time.time_ns(), session_id, record or self.record, redaction, b"", None))
        return Tap(self, session_id)

    def pause_all(self, paused: bool) -> None:
        """Pause or resume every open session, and the sessions opened from now on (a signal to a
        process that records several: the proxy)."""
        self._put_now((_PAUSE, time.time_ns(), 0, paused, None, b"", None))

    def open_new(
        self, create: Callable[[], int], record: str | None = None, redaction: Redaction | None = None
    ) -> Tap:
        """Start recording a session whose row `create()` inserts, on the recording thread.

        Returns at once with a tap under a provisional (negative) handle: nothing on the
        caller's path waits for the database. `session_id(handle)` gives the id once created."""
        handle = next(self._handles)
        self._put((_CREATE, time.time_ns(), handle, record or self.record, redaction, b"", create))
        return Tap(self, handle)

    def session_id(self, handle: int) -> int | None:
        """The session id behind a tap's handle (None while not created yet)."""
        return handle if handle > 0 else self.session_ids.get(handle)

    def stop(self, reason: str = "recorder stopped", timeout: float | None = None) -> None:
        """Record everything queued, end the sessions still open with `reason`, stop the thread."""
        self._put_now((_STOP, time.time_ns(), 0, None, reason, b"", None))
        self._stopped.wait(timeout)

    def _put(self, item: tuple[Any, ...]) -> None:
        items = self._items
        if len(items) >= self.max_queued_chunks:
            with self._room:
                self._room_waiting += 1
                try:
                    while len(items) >= self.max_queued_chunks and not self._stopped.is_set():
                        self._ring()
                        self._room.wait(0.05)
                finally:
                    self._room_waiting -= 1
        items.append(item)

    def _put_now(self, item: tuple[Any, ...]) -> None:
        self._items.append(item)
        self._ring()

    def _ring(self) -> None:
        """Wake the recording thread now (rather than at its next poll)."""
        if self._bell.locked():
            with contextlib.suppress(RuntimeError):  # another thread rang it first
                self._bell.release()

    def messages_recorded(self, session_id: int) -> int:
        """How many rows a session has produced so far (read from any thread)."""
        builder = self.builders.get(session_id)
        if builder is None:
            return self.final_counts.get(session_id, 0)
        return builder.seq - (builder.pauses.skipped_total if builder.pauses is not None else 0)

    def _run(self) -> None:
        items = self._items
        bell = self._bell
        while True:
            bell.acquire(timeout=self.drain_interval)  # rung, or the poll: it is held again either way
            while items:
                if self._handle(items.popleft()):
                    return
                if len(self._pending) >= self.batch_rows and time.monotonic() >= self._retry_at:
                    self._flush()  # waits for the batch in flight: a slow database slows recording down
            if self._room_waiting:  # unlocked read: a missed notify costs a waiter its 50 ms timeout
                with self._room:
                    self._room.notify_all()
            if self._inflight is not None and self._inflight.done.is_set():
                self._settle()  # a failed batch goes back to the pending rows, for the next flush
            if self._pending or self._facts_dirty:
                now = time.monotonic()
                if now - self._oldest >= self.flush_interval and now >= self._retry_at:
                    self._flush(block=False)

    def _write(self) -> None:
        """The writer thread: hand each batch to the subscribers."""
        while True:
            batch = self._batches.get()
            if batch is None:
                return
            try:
                for sub in self.subscribers:
                    sub.on_batch(batch.rows, batch.facts)
            except Exception as exc:  # the recording thread reports it and retries
                batch.error = exc
            batch.done.set()

    def _handle(self, item: tuple[Any, ...]) -> bool:
        """Process one handed-over item; True when the recorder must stop."""
        op, ts_ns, sid, a, b, data, extra = item
        builders = self.builders
        if op == _STOP:
            for open_sid in list(builders):
                self._end(open_sid, ts_ns, None, b)
            if not self._flush(attempts=5, wait=True) and self._pending:
                for row in self._pending:  # the database never came back: say how much is missing
                    sid = row["session_id"]
                    self.left_unwritten[sid] = self.left_unwritten.get(sid, 0) + 1
            self._batches.put(None)
            self._stopped.set()
            with self._room:
                self._room.notify_all()
            return True
        if op == _OPEN:
            builders[sid] = self._builder(sid, a, ts_ns, b)
            return False
        if op == _PAUSE and sid == 0:
            self._all_paused = a
            for each in builders.values():
                self._switch(each, a, ts_ns)
            return False
        if op == _CREATE:
            created = self._create(extra)
            if created is not None:
                self.session_ids[sid] = created
                builders[sid] = self._builder(created, a, ts_ns, b)
            return False
        builder = builders.get(sid)
        if builder is None:
            self._warn(f"dropped traffic for session {sid}, which has already ended")
            if extra is not None and op == _DATA:
                extra.set()
            return False
        try:
            if op == _DATA:
                self._add(builder.feed(ts_ns, a, b, data), sid)
                if extra is not None:
                    self._waiters.append(extra)
                    self._flush(wait=True)
            elif op == _MSG:
                raw_headers = extra.pop("http_raw_headers", None)
                if raw_headers is not None:  # decoded here, off the transport's path
                    extra["http_headers"] = header_pairs(raw_headers)
                self._add([builder.message(ts_ns, a, b, data, **extra)], sid)
            elif op == _EOS:
                self._add(builder.close_stream(ts_ns, a, b), sid)
            elif op == _FACTS:
                builder.extra_facts.update(extra)
                builder.facts_changed = True
                self._mark_facts()  # written even when no row follows (a session gone idle)
            elif op == _END:
                self._end(sid, ts_ns, a, b)
            elif op == _PAUSE:
                self._switch(builder, a, ts_ns)
        except Exception as exc:  # our bug must not stop recording the rest
            self._warn(f"internal error while recording session {sid}: {exc!r}")
        return False

    def _switch(self, builder: MessageBuilder, paused: bool, ts_ns: int) -> None:
        """Pause or resume one session; its facts are written at once (the UI waits for them)."""
        if builder.pauses is not None and builder.pauses.switch(paused, ts_ns, builder.seq):
            builder.extra_facts["recording_pauses"] = builder.pauses.facts()
            builder.facts_changed = True
            self._flush(wait=True)

    def _mark_facts(self) -> None:
        if not self._pending and not self._facts_dirty:
            self._oldest = time.monotonic()
        self._facts_dirty = True

    def _builder(
        self, session_id: int, record: str | None, ts_ns: int, redaction: Redaction | None = None
    ) -> MessageBuilder:
        builder = MessageBuilder(session_id, self.max_record_bytes)
        builder.redaction = redaction
        if record == "metadata":
            builder.metadata_only = True
            builder.extra_facts["record"] = "metadata"
            builder.facts_changed = True
        builder.pauses = Pauses()
        if record == "paused" or self._all_paused:
            builder.pauses.switch(True, ts_ns, 0)
            builder.extra_facts["recording_pauses"] = builder.pauses.facts()
            builder.facts_changed = True
        if builder.facts_changed:
            self._mark_facts()
        return builder

    def _create(self, create: Callable[[], int]) -> int | None:
        """Insert a session row on this thread, retrying a failing database a few times."""
        for attempt in range(_CREATE_ATTEMPTS):
            try:
                return create()
            except Exception as exc:
                self._warn(f"could not create a session, will retry: {exc}")
                time.sleep(0.1 * (attempt + 1))
        self._warn("could not create a session: its traffic is not recorded")
        return None

    def _gate(self, builder: MessageBuilder | None, rows: list[MessageRow]) -> list[MessageRow]:
        """A paused session's rows are not recorded (only counted); a metadata-only session's lose
        their bodies here, just before the redaction step."""
        if builder is None or not rows:
            return rows
        pauses = builder.pauses
        if pauses is not None and pauses.paused:
            pauses.skipped(rows)  # framed and correlated, not recorded
            builder.extra_facts["recording_pauses"] = pauses.facts()
            builder.facts_changed = True
            self._mark_facts()  # no row carries them: written at the next flush anyway
            return []
        if pauses is not None and pauses.skipped_total:
            rows = pauses.renumber(rows)
        if builder.metadata_only:
            for row in rows:
                drop_body(row)
        return rows

    def _add(self, rows: list[MessageRow], handle: int = 0, rules: Redaction | None = None) -> None:
        builder = self.builders.get(handle) if handle else None
        if rows and handle:
            rows = self._gate(builder, rows)
        if rows:
            # A session a config file's per-server rule adds names to has its own rules.
            rules = rules or (builder.redaction if builder is not None else None) or self.redaction
            if not rules.keep:
                redact = rules.row
                for row in rows:
                    try:
                        redact(row)
                    except Exception as exc:  # our bug: the row keeps its place, not its body
                        self._redact_failed(row, exc)
            if not self._pending:
                self._oldest = time.monotonic()
                self._pending_bytes = 0
            size = sum(map(len, map(_raw, rows))) + _ROW_OVERHEAD * len(rows)  # one pass in C
            kept = self._pending_bytes + (self._inflight.size if self._inflight is not None else 0)
            if kept + size > self.max_pending_bytes and handle and self._settle(block=False):
                # The batch in flight was written meanwhile (the database is back): it no longer
                # counts. Without this look a message right after recovery was dropped.
                kept = self._pending_bytes
            if kept + size > self.max_pending_bytes and handle:
                self._drop(handle, len(rows))
                return
            self._pending_bytes += size
            self._pending.extend(rows)

    def _drop(self, handle: int, count: int) -> None:
        """The subscribers keep failing and the budget is spent: count the rows instead of keeping them."""
        self.dropped[handle] = self.dropped.get(handle, 0) + count
        builder = self.builders.get(handle)
        if builder is not None:
            builder.facts_changed = True  # the count goes out with the session's facts
        if not self._dropping:
            self._dropping = True
            print(
                f"[mcp-inspect] recording is failing and {self.max_pending_bytes // 1024} KiB of rows"
                " are waiting: dropping new messages (still forwarding)",
                file=sys.stderr,
                flush=True,
            )

    def _redact_failed(self, row: MessageRow, exc: Exception) -> None:
        """The redaction step raised (our bug): keep the row's place (seq), never a secret it might hold."""
        self._warn(f"internal error while redacting a row of session {row['session_id']}: {exc!r}")
        row["raw"], row["size"], row["http_headers"] = b"", 0, None
        row["http_path"] = (row["http_path"] or "").partition("?")[0] or row["http_path"]
        row["meta"] = {**(row["meta"] or {}), "problem": "redaction failed; the body was not stored"}

    def _changed_facts(self) -> dict[int, dict[str, Any]]:
        changed = {}
        for handle, builder in self.builders.items():
            if builder.facts_changed:
                changed[builder.session_id] = self._facts(handle, builder)
        return changed

    def _facts(self, handle: int, builder: MessageBuilder) -> dict[str, Any]:
        facts = builder.facts.snapshot()
        if builder.extra_facts:
            facts.update(builder.extra_facts)
        if handle in self.dropped:
            facts["dropped_messages"] = self.dropped[handle]
        return facts

    def _flush(self, attempts: int = 1, *, wait: bool = False, block: bool = True) -> bool:
        """Hand the pending rows to the writer thread, after the batch in flight is written.

        `block=False`: do nothing while that batch is still being written. `wait`: return once
        the rows are committed, trying `attempts` times. False when nothing was handed over or
        (`wait`) the rows could not be written; they stay pending for the next flush."""
        settled = self._settle(block)
        if settled is None or (settled is False and not wait):
            return False
        for attempt in range(attempts):
            self._dispatch()
            if not wait:
                return True
            if self._settle():
                return True
            if attempt + 1 < attempts:
                time.sleep(0.1 * (attempt + 1))
        return False

    def _dispatch(self) -> None:
        self._facts_dirty = False
        facts = self._changed_facts()
        if not self._pending and not facts:
            for waiter in self._waiters:  # nothing to write, nothing in flight: all committed
                waiter.set()
            self._waiters.clear()
            return
        batch = _Batch(self._pending, facts, self._waiters, self._pending_bytes)
        for builder in self.builders.values():
            if builder.session_id in facts:
                builder.facts_changed = False
        self._pending = []
        self._waiters = []
        self._pending_bytes = 0
        self._inflight = batch
        self._batches.put(batch)

    def _settle(self, block: bool = True) -> bool | None:
        """Collect the batch in flight: True once written (or none), False when it failed (its rows
        are pending again), None when `block` is False and it is still being written."""
        batch = self._inflight
        if batch is None:
            return True
        if not batch.done.is_set():
            if not block:
                return None
            batch.done.wait()
        self._inflight = None
        if batch.error is not None:  # a full disk must not stop forwarding; retry at the next flush
            if not self._failures:
                self._failing_since = time.monotonic()
                print(
                    f"[mcp-inspect] recording failed, retrying (still forwarding): {_first_line(batch.error)}",
                    file=sys.stderr,
                    flush=True,
                )
            self._failures += 1
            self._retry_at = time.monotonic() + min(_RETRY_FIRST * 2 ** (self._failures - 1), _RETRY_MAX)
            self._pending = batch.rows + self._pending
            self._pending_bytes += batch.size
            self._waiters = batch.waiters + self._waiters
            for builder in self.builders.values():
                if builder.session_id in batch.facts:
                    builder.facts_changed = True
                    self._facts_dirty = True
            self._oldest = time.monotonic()
            return False
        if self._failures:
            down = time.monotonic() - self._failing_since
            self._failures, self._retry_at = 0, 0.0
            if not self._dropping:
                print(
                    f"[mcp-inspect] recording resumed after {down:.1f} s, nothing dropped",
                    file=sys.stderr,
                    flush=True,
                )
        if self._dropping:
            self._dropping = False
            lost = ", ".join(f"{self._sid(h)}: {n}" for h, n in self.dropped.items())
            print(
                f"[mcp-inspect] recording resumed; messages dropped (session: count) {lost}",
                file=sys.stderr,
                flush=True,
            )
        for waiter in batch.waiters:
            waiter.set()
        return True

    def not_recorded(self, session_id: int) -> int:
        """Rows of a session that are not in the store: dropped past the budget, or still unwritten
        when the recorder stopped (read after `stop`)."""
        handles = [h for h, s in self.session_ids.items() if s == session_id] + [session_id]
        return sum(self.dropped.get(h, 0) for h in handles) + self.left_unwritten.get(session_id, 0)

    def losses(self) -> dict[int | str, int]:
        """Every session with rows not in the store (`not_recorded`), by session id ('?' when its
        row was never created); read after `stop`."""
        lost: dict[int | str, int] = {}
        for handle, count in self.dropped.items():
            key = self._sid(handle)
            lost[key] = lost.get(key, 0) + count
        for sid, count in self.left_unwritten.items():
            lost[sid] = lost.get(sid, 0) + count
        return lost

    def _sid(self, handle: int) -> int | str:
        return self.session_id(handle) or "?"

    def _end(self, sid: int, ts_ns: int, exit_status: int | None, reason: str) -> None:
        builder = self.builders[sid]
        rows = self._gate(builder, builder.close_all(ts_ns))
        if builder.pauses is not None and builder.pauses.switch(False, ts_ns, builder.seq, ended=True):
            builder.extra_facts["recording_pauses"] = builder.pauses.facts()
            builder.facts_changed = True
        del self.builders[sid]
        pauses = builder.pauses
        self.final_counts[sid] = builder.seq - (pauses.skipped_total if pauses is not None else 0)
        if pauses is not None and pauses.skipped_total:
            self.paused_skipped[sid] = pauses.skipped_total
        self._add(rows, sid, builder.redaction)
        self._flush(attempts=5, wait=True)  # the writer thread is idle after this: on_end runs here
        facts = self._facts(sid, builder)
        facts["unanswered"] = [
            {"seq": seq, "direction": p.direction, "method": p.method}
            for p in builder.correlator.unanswered()
            # a request sent while paused is not in the store
            if (seq := p.seq if pauses is None else pauses.stored(p.seq)) is not None
        ]
        try:
            for sub in self.subscribers:
                sub.on_end(builder.session_id, exit_status, reason, facts)
        except Exception as exc:
            self._warn(f"could not mark session {builder.session_id} ended: {exc}")

    def _warn(self, text: str) -> None:
        text = _first_line(text)
        self.errors += 1
        if self.errors <= 5:
            print(f"[mcp-inspect] {text}", file=sys.stderr, flush=True)


def _first_line(error: object) -> str:
    """An error's first line (SQLAlchemy appends the SQL and its parameters: not for stderr)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
