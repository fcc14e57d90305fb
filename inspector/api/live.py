"""The live feed: one background task tails the database and pushes typed events to websockets.

Recordings are written by other processes (a `wrap` in another terminal), so
the feed polls the database every `interval` seconds: new sessions (by id),
changes of sessions that were recording, and new message rows (by message id)
of the sessions some client subscribed to. One poll serves every
subscriber; nothing is polled while nobody listens. A subscription may give
`after_seq`: the rows after it are sent at once, so nothing falls between
what the client fetched and what the feed tails (a row may come twice).
A message that is not a valid `Subscribe` (ids past the database's 64-bit
range, bad JSON, a binary frame) is answered with an `error` event and the
connection stays open.

Each client's queue is bounded by bytes (`Listener`): when it reads slower than
rows come, the rows that do not fit are dropped from its queue and one `behind`
marker per session tells the session's message count; the client fetches what it
shows through the REST API. A poll that finds more than `MAX_ROWS_PER_POLL` new
rows reads only the newest `TAIL_ROWS` of each subscribed session that grew and sends them as
a `truncated` `messages` event: a timeline at the tail shows them at once, and fetches the rows
in between through the REST API only if they scroll into view. A client that
leaves `MAX_QUEUED_EVENTS` other events unread is disconnected; it reconnects and
catches up through the REST API, like any late subscriber.

On PostgreSQL the feed is pushed rather than polled: recorders NOTIFY after each committed
batch (`store/notify.py`), one connection LISTENs (`api/live_notify.py`) and each notice
wakes the feed at once (at most one poll per `min_gap`). While it listens the feed still
looks every `safety_interval` (`MCP_INSPECTOR_LIVE_SAFETY_POLL`, 2 s): a recorder that died
sends nothing, and its session turns `interrupted` only in a poll. Without the connection
(lost, reconnecting) it polls every `interval`, like on SQLite. `status()` says which, and how
many polls each cause started (the `/api/live/status` route).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import anyio
import orjson
from pydantic import TypeAdapter, ValidationError
from sqlalchemy import Engine, func
from sqlalchemy import select as sa_select

from inspector.api.live_notify import wakeups_for
from inspector.api.schemas import (
    AnyLiveEvent,
    Behind,
    LiveError,
    NewMessages,
    SessionCreated,
    SessionDeleted,
    SessionEnded,
    SessionUpdated,
    Subscribe,
)
from inspector.api.schemas_live import LiveStatus
from inspector.api.security import SUBPROTOCOL
from inspector.api.views import session_out
from inspector.errors import NotFoundError
from inspector.store import Session, schema, session_state
from inspector.store.notify import Notice
from inspector.store.pages import MessageFilter, message_page, message_rows
from inspector.store.queries import SessionFilter, find_sessions, max_ids, sessions_after_id, sessions_by_ids

__all__ = ["LiveFeed", "Listener"]

MAX_ROWS_PER_POLL = 1000
SPAN_SCAN_LIMIT = 50 * MAX_ROWS_PER_POLL  # new ids a look scans for which sessions grew (else: counts)
TAIL_ROWS = 200  # a poll that finds more new rows than it sends sends each session's newest ones
# While rows flow, the next look comes after `BUSY_INTERVAL` (smaller, more frequent pushes: the
# browser applies each in one frame); an idle feed looks every `interval`.
BUSY_INTERVAL = 0.04
# A session's message count alone changes every poll while it records: its `session_updated`
# goes out at most every COUNT_EVERY s (the timeline counts from the rows); other changes at once.
COUNT_EVERY = 1.0
SAFETY_INTERVAL = float(os.environ.get("MCP_INSPECTOR_LIVE_SAFETY_POLL", "2"))


# While anyone listens, every RELEASE_EVERY s the C heap's free pages go back to the system
# (`release_memory`): a stream's polls, pages and the lint of an ended session leave freed memory
# in glibc's heaps, which it keeps (the UI server's RSS rose ~5 MB that way per session streamed).
RELEASE_EVERY = 5.0


def _trim_function() -> Any:
    try:
        libc = ctypes.CDLL(None)
        return libc.malloc_trim  # glibc only
    except (OSError, AttributeError):
        return None


_malloc_trim = _trim_function()


def release_memory() -> bool:
    """Give the C heap's free pages back to the system (glibc's `malloc_trim`); False elsewhere."""
    if _malloc_trim is None:
        return False
    _malloc_trim(0)
    return True


MAX_QUEUED_BYTES = int(os.environ.get("MCP_INSPECTOR_LIVE_QUEUE_BYTES", str(2 * 1024 * 1024)))
MAX_QUEUED_EVENTS = 2000  # events other than rows (sessions, clients): past this, disconnect


@dataclass(eq=False)
class Listener:
    """One websocket client: its outgoing queue and the sessions whose messages it wants.

    The queue is bounded by bytes. Rows are coalesced when the client falls behind: a `messages`
    event that does not fit (or comes while a marker for its session waits) drops the rows of that
    session still queued and leaves one `behind` marker in their place, saying how many messages
    the session has now (the highest seq dropped). The client fetches what it shows through the
    REST API; rows pile up nowhere. Other events are small and kept; a client that leaves
    `MAX_QUEUED_EVENTS` of them unread is disconnected (it reconnects and refetches)."""

    sessions: set[int] = field(default_factory=set)
    overflowed: asyncio.Event = field(default_factory=asyncio.Event)
    max_bytes: int = field(default_factory=lambda: MAX_QUEUED_BYTES)
    # (session id of a `messages` event or of a `behind` marker, its bytes; None for a marker)
    pending: deque[tuple[int | None, bytes | None]] = field(default_factory=deque)
    queued_bytes: int = 0
    behind: dict[int, int] = field(default_factory=dict)  # session -> count for its waiting marker
    markers: int = 0
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    def push(self, data: bytes) -> None:
        """Queue an event that is not rows (sessions, clients, errors)."""
        if len(self.pending) >= MAX_QUEUED_EVENTS:
            self.overflowed.set()
            return
        self.pending.append((None, data))
        self.queued_bytes += len(data)
        self.ready.set()

    def push_rows(self, session_id: int, data: bytes, last_seq: int) -> None:
        """Queue a `messages` event, or coalesce it into a `behind` marker when the client is behind."""
        if session_id not in self.behind and (
            not self.pending or self.queued_bytes + len(data) <= self.max_bytes
        ):
            self.pending.append((session_id, data))
            self.queued_bytes += len(data)
            self.ready.set()
            return
        self.mark_behind(session_id, last_seq)

    def mark_behind(self, session_id: int, count: int) -> None:
        """Drop this session's queued rows; a `behind` marker with `count` goes in their place
        (last in the queue), or the marker still waiting takes the higher count."""
        if session_id not in self.behind:
            kept: deque[tuple[int | None, bytes | None]] = deque()
            for sid, item in self.pending:
                if sid == session_id and item is not None:
                    self.queued_bytes -= len(item)
                else:
                    kept.append((sid, item))
            self.pending = kept
            self.pending.append((session_id, None))
            self.markers += 1
            self.ready.set()
        self.behind[session_id] = max(self.behind.get(session_id, 0), count)

    async def next(self) -> bytes:
        """The next frame to send (waits for one)."""
        while not self.pending:
            self.ready.clear()
            await self.ready.wait()
        sid, data = self.pending.popleft()
        if data is None:
            assert sid is not None
            return encode(Behind(session_id=sid, message_count=self.behind.pop(sid)))
        self.queued_bytes -= len(data)
        return data


def _fingerprint(s: Session) -> tuple[Any, ...]:
    return (s.message_count, s.status, session_state(s), s.name, s.labels, s.protocol_version, s.ended_ns)


class LiveFeed:
    """Tails the database for all listeners; `publish` also sends events the API itself causes."""

    def __init__(
        self,
        engine: Engine,
        *,
        interval: float = 0.15,
        safety_interval: float | None = None,
        min_gap: float = 0.02,
    ) -> None:
        self.engine = engine
        self.interval = interval
        self.safety_interval = SAFETY_INTERVAL if safety_interval is None else safety_interval
        self.min_gap = min_gap
        self.listeners: set[Listener] = set()
        self._last_session = 0
        self._last_message = 0
        self._watched: dict[int, tuple[Any, ...]] = {}  # sessions still recording -> fingerprint
        self._wake = asyncio.Event()
        self._kick = asyncio.Event()  # a notification arrived: poll now
        self.polls = 0
        self._push = wakeups_for(engine)
        self._listening = False
        self._kicked_by = "timer"
        self._notices = 0
        self._polls_by: dict[str, int] = {"notification": 0, "timer": 0, "listener": 0}
        self._last_delay_ns: int | None = None
        self._failing = False
        self._touched: set[int] = set()  # sessions renamed or deleted by another `ui` (notified)
        self._row_seq: dict[int, int] = {}  # session -> highest seq the feed has seen (its `behind` count)
        self.rows_events = 0
        self.skips = 0  # polls that found more rows than they send (markers instead)
        self._busy = False  # the last look found rows: the next one comes sooner
        self._released = time.monotonic()  # when the C heap's free pages were last given back
        self._count_sent: dict[int, float] = {}  # session -> when its count alone was last sent
        self.markers_sent = 0  # `behind` markers of listeners gone (the current ones count theirs)

    def status(self) -> LiveStatus:
        """How the feed learns of changes now, and what woke it so far."""
        return LiveStatus(
            backend=self.engine.dialect.name,
            mode="notify" if self._listening else "poll",
            notifications=self._notices,
            polls_on_notification=self._polls_by["notification"],
            polls_on_timer=self._polls_by["timer"],
            polls_on_new_listener=self._polls_by["listener"],
            last_notification_delay_ms=(
                None if self._last_delay_ns is None else round(self._last_delay_ns / 1e6, 3)
            ),
            listeners=len(self.listeners),
            queued_bytes=sum(listener.queued_bytes for listener in self.listeners),
            rows_events=self.rows_events,
            skipped_polls=self.skips,
            behind_markers=self.markers_sent + sum(listener.markers for listener in self.listeners),
        )

    def _on_notice(self, notice: Notice, received_ns: int) -> None:
        self._notices += 1
        if notice.kind in ("changed", "deleted") and notice.session_ids:
            self._touched.update(notice.session_ids)
        self._last_delay_ns = max(0, received_ns - notice.sent_ns)
        self._kick.set()

    def _on_state(self, listening: bool) -> None:
        self._listening = listening
        self._kick.set()  # (re)connected: notices sent meanwhile are gone, look once now

    async def _next_tick(self) -> None:
        """Sleep until the next poll: a notice (listening) or the interval (polling)."""
        if self._listening:
            await asyncio.sleep(self.min_gap)
        else:
            await asyncio.sleep(min(BUSY_INTERVAL, self.interval) if self._busy else self.interval)
        if self._listening and not self._kick.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._kick.wait(), self.safety_interval)
        self._kicked_by = "notification" if self._kick.is_set() else "timer"
        self._kick.clear()

    async def run(self) -> None:
        """Poll until cancelled (started by the app's lifespan); on PostgreSQL, when notified."""
        push = None
        if self._push is not None:
            push = asyncio.create_task(self._push.run(self._on_notice, self._on_state))
        try:
            await self._run()
        finally:
            if push is not None:
                push.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await push

    async def _run(self) -> None:
        need_reset = False
        while True:
            if not self.listeners:
                self._wake.clear()
                await self._wake.wait()
                # Listeners load what exists through the REST API; the feed tells what comes after.
                self._kick.clear()  # what was notified before is in the REST answers
                need_reset = True
                self._kicked_by = "listener"
            self._polls_by[self._kicked_by] += 1
            try:
                if need_reset:  # in the try: a database unreadable just then must not end the feed
                    await anyio.to_thread.run_sync(self._reset)
                    need_reset = False
                touched, self._touched = self._touched, set()
                events = await anyio.to_thread.run_sync(self.poll, self._subscribed(), touched)
            except Exception as exc:  # a locked or briefly unreadable database: try again next tick
                events = []
                if not self._failing:  # once per outage (a restarting server fails every tick)
                    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                    print(f"[mcp-inspect ui] live feed poll failed: {first}; retrying", flush=True)
                self._failing = True
            else:
                if self._failing:
                    print("[mcp-inspect ui] live feed reads the database again", flush=True)
                self._failing = False
            if time.monotonic() - self._released >= RELEASE_EVERY:
                self._released = time.monotonic()
                await anyio.to_thread.run_sync(release_memory)
            for targets, data in events:
                for listener in list(self.listeners):
                    if targets is None:
                        listener.push(data)
                    elif targets & listener.sessions:  # rows of one session: coalesced when behind
                        sid = next(iter(targets))
                        listener.push_rows(sid, data, self._row_seq.get(sid, 0))
            await self._next_tick()

    def add(self, listener: Listener) -> None:
        self.listeners.add(listener)
        self._wake.set()

    def remove(self, listener: Listener) -> None:
        self.listeners.discard(listener)
        self.markers_sent += listener.markers

    def publish(self, event: AnyLiveEvent) -> None:
        """Send an event to every listener now (renames and deletes made through the API)."""
        data = encode(event)
        for listener in list(self.listeners):
            listener.push(data)

    def _subscribed(self) -> list[int]:
        return sorted({sid for listener in self.listeners for sid in listener.sessions})

    def _reset(self) -> None:
        self._last_session, self._last_message = max_ids(self.engine)
        found, _ = find_sessions(self.engine, SessionFilter(state="recording"), limit=10_000)
        self._watched = {s.id: _fingerprint(s) for s in found if s.id is not None}

    def poll(
        self, subscribed: list[int], touched: set[int] | None = None
    ) -> list[tuple[set[int] | None, bytes]]:
        """One look at the database: the events since the last look, each with its audience.
        `touched`: sessions another `ui` renamed or deleted (their current row, or their absence)."""
        self.polls += 1
        events: list[tuple[set[int] | None, bytes]] = []
        if touched:  # (a session still recording is compared by its fingerprint below)
            found = {s.id: s for s in sessions_by_ids(self.engine, sorted(touched))}
            for sid in sorted(touched):
                if sid in found and sid not in self._watched:
                    doc = {"session": session_out(found[sid])}
                    events.append((None, encode(SessionUpdated.model_validate(doc))))
                elif sid not in found and sid <= self._last_session:
                    self._watched.pop(sid, None)
                    events.append((None, encode(SessionDeleted(session_id=sid))))
        for s in sessions_after_id(self.engine, self._last_session):
            assert s.id is not None
            self._last_session = max(self._last_session, s.id)
            events.append((None, encode(SessionCreated.model_validate({"session": session_out(s)}))))
            if s.status == "recording":
                self._watched[s.id] = _fingerprint(s)
        now = time.monotonic()
        for s in sessions_by_ids(self.engine, sorted(self._watched)):
            assert s.id is not None
            fp = _fingerprint(s)
            old = self._watched[s.id]
            if fp == old:
                continue
            if fp[1:] == old[1:] and now - self._count_sent.get(s.id, 0.0) < COUNT_EVERY:
                continue  # only the count grew, and it was sent just now: the next one tells it
            self._count_sent[s.id] = now
            state = session_state(s)
            model = SessionUpdated if state == "recording" else SessionEnded
            events.append((None, encode(model.model_validate({"session": session_out(s)}))))
            # An interrupted session (its recorder gone, its row still `recording`) stays watched: a
            # wrap's detached finisher may still write its last rows and end it (wrap_finish).
            if s.status == "recording":
                self._watched[s.id] = fp
            else:
                del self._watched[s.id]
                self._count_sent.pop(s.id, None)
        rows = self._new_rows(subscribed)
        self._busy = bool(rows)
        events.extend(rows)
        return events

    def _new_rows(self, subscribed: list[int]) -> list[tuple[set[int] | None, bytes]]:
        _, newest = max_ids(self.engine)
        if newest <= self._last_message or not subscribed:
            self._last_message = max(self._last_message, newest)
            return []
        if newest - self._last_message > SPAN_SCAN_LIMIT:
            # Far more rows came than a poll sends: the sessions' counts say which grew, to where.
            spans = {
                s.id: (self._row_seq.get(s.id, 0) + 1, s.message_count)
                for s in sessions_by_ids(self.engine, subscribed)
                if s.id is not None and s.message_count > self._row_seq.get(s.id, 0)
            }
        else:
            spans = _grown(self.engine, self._last_message, newest, subscribed)
        self._last_message = newest
        out: list[tuple[set[int] | None, bytes]] = []
        for sid, (first, last) in spans.items():
            # Rows by seq from the store's page path (on SQLite its JSON columns are embedded as
            # stored, not parsed: a third of a poll's time went to reading rows by id before).
            truncated = last - first + 1 > MAX_ROWS_PER_POLL
            # More rows came than a poll sends: only the newest TAIL_ROWS, as a `truncated` event.
            # A timeline at the tail shows them at once; the rows in between are fetched through
            # the REST API only if they scroll into view.
            after = last - TAIL_ROWS if truncated else first - 1
            try:
                rows, _ = message_page(self.engine, sid, MessageFilter(), after_seq=after, limit=last - after)
            except NotFoundError:  # deleted meanwhile (its `session_deleted` tells the clients)
                continue
            if truncated:
                self.skips += 1
            if not rows:
                continue
            self._row_seq[sid] = max(self._row_seq.get(sid, 0), rows[-1]["seq"])
            self.rows_events += 1
            out.append(({sid}, encode(_messages(sid, rows, truncated))))
        return out


def _grown(engine: Engine, after_id: int, upto_id: int, sessions: list[int]) -> dict[int, tuple[int, int]]:
    """The subscribed sessions with rows of ids in (after_id, upto_id]: session -> (first, last) seq."""
    m = schema.message
    stmt = (
        sa_select(m.c.session_id, func.min(m.c.seq).label("first"), func.max(m.c.seq).label("last"))
        .where(m.c.id > after_id, m.c.id <= upto_id, m.c.session_id.in_(sessions))
        .group_by(m.c.session_id)
    )
    with engine.connect() as conn:
        return {int(row.session_id): (int(row.first), int(row.last)) for row in conn.execute(stmt)}


def _messages(session_id: int, rows: list[dict[str, Any]], truncated: bool) -> NewMessages:
    """A `messages` event. Its rows come from the store's queries already shaped as `PageRow`
    (`store.pages.PAGE_FIELDS`), so they are not validated again: up to 1000 a poll."""
    # model_construct: the rows are PageRow documents already; the stubs want PageRow models.
    return NewMessages.model_construct(
        session_id=session_id,
        items=rows,  # type: ignore[arg-type]
        truncated=truncated,
    )


def encode(event: AnyLiveEvent) -> bytes:
    """An event's JSON text, every declared field of its model (the `type` first)."""
    if isinstance(event, NewMessages):
        return orjson.dumps(
            {
                "type": event.type,
                "session_id": event.session_id,
                "items": event.items,
                "truncated": event.truncated,
            }
        )
    return event.model_dump_json().encode()


_SUBSCRIBE = TypeAdapter(Subscribe)


def _problem(exc: ValidationError) -> str:
    """What was wrong with a client's message, by field, without its content."""
    where = [f"{'.'.join(map(str, e['loc'])) or 'message'}: {e['msg']}" for e in exc.errors()]
    return "not a subscribe message (ignored): " + "; ".join(where)


def _backlog(engine: Engine, session_id: int, after_seq: int) -> list[dict[str, Any]]:
    return message_rows(engine, session_id, after_seq=after_seq, limit=MAX_ROWS_PER_POLL)


async def serve_listener(feed: LiveFeed, websocket: Any) -> None:
    """Run one websocket: forward the feed's events, apply the client's subscribe messages."""
    from starlette.websockets import WebSocketDisconnect

    # A browser offers `mcp-inspector` and `bearer.<token>` (the Guard checked it): echo only the first.
    offered = websocket.scope.get("subprotocols", [])
    await websocket.accept(subprotocol=SUBPROTOCOL if SUBPROTOCOL in offered else None)
    listener = Listener()
    feed.add(listener)

    async def read_client() -> None:
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(frame.get("code", 1000))
            try:
                # Validated before use: its ints go into the feed's queries (one bad id would fail every poll).
                msg = _SUBSCRIBE.validate_json(frame.get("text") or frame.get("bytes") or b"")
            except ValidationError as exc:
                listener.push(encode(LiveError(message=_problem(exc))))
                continue
            if msg.type == "subscribe":
                listener.sessions.add(msg.session_id)
                if msg.after_seq is not None:
                    # The rows the client has not seen yet; later ones come from the feed (maybe twice).
                    rows = await anyio.to_thread.run_sync(
                        _backlog, feed.engine, msg.session_id, msg.after_seq
                    )
                    truncated = len(rows) == MAX_ROWS_PER_POLL
                    data = encode(_messages(msg.session_id, rows, truncated))
                    listener.push_rows(msg.session_id, data, rows[-1]["seq"] if rows else msg.after_seq)
            else:
                listener.sessions.discard(msg.session_id)

    async def write_client() -> None:
        while True:
            data = await listener.next()
            await websocket.send_text(data.decode())

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_client)
            tg.start_soon(write_client)
            await listener.overflowed.wait()
            tg.cancel_scope.cancel()
        with contextlib.suppress(Exception):
            await websocket.close(code=1013, reason="too far behind; reconnect and refetch")
    except (WebSocketDisconnect, anyio.get_cancelled_exc_class(), RuntimeError):
        pass
    except BaseExceptionGroup as group:  # a disconnect seen by one task ends both
        if not group.subgroup((WebSocketDisconnect, RuntimeError)):
            raise
    finally:
        feed.remove(listener)
