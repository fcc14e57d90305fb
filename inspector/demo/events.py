"""An in-memory event store, so the demo server's Streamable HTTP streams can be resumed.

With it the SDK gives every SSE event an id; a client whose stream dropped
sends `GET` with `Last-Event-ID` and receives the events it missed, then the
rest of that stream.
"""

from __future__ import annotations

import itertools

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp_types import JSONRPCMessage

__all__ = ["MemoryEventStore"]


class MemoryEventStore(EventStore):
    """Keeps every event of the process, in order (a demo: nothing is ever dropped)."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._events: list[tuple[EventId, StreamId, JSONRPCMessage | None]] = []

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        event_id = str(next(self._ids))
        self._events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        found = next((i for i, (eid, _, _) in enumerate(self._events) if eid == last_event_id), None)
        if found is None:
            return None
        stream_id = self._events[found][1]
        for event_id, sid, message in self._events[found + 1 :]:
            if sid == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id
