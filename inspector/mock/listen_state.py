"""The mock client's `subscriptions/listen` streams (2026-07-28) as plain state (no IO).

The client keeps what it wants to hear about (resource URIs, list-changed
kinds) and at most one current listen stream carrying exactly that set; a
change of the set opens a new stream (then the old one is cancelled). Each
stream is `opening` until the server's `notifications/subscriptions/acknowledged`
(then `open`, with the honored subset), and ends `closed` (the server's
result: a graceful close, or an error answer: `refused`), `cancelled` (by the
client: replaced, or nothing left to listen for) or `lost` (connection).
See `inspector.protocol.listen` for the wire shapes; `mock/listen.py` drives it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from inspector.protocol import id_key
from inspector.protocol.listen import LIST_KINDS, build_filter, subscription_id

__all__ = ["ListenState", "ListenStream"]

PAST_STREAMS = 10


@dataclass
class ListenStream:
    key: str  # the listen request's id as JSON text
    rpc_id: Any
    requested: dict[str, Any]  # the SubscriptionFilter sent
    opened: float
    state: str = "opening"  # opening | open | closed | refused | cancelled | lost
    honored: dict[str, Any] | None = None  # from the acknowledgement
    ack: dict[str, Any] | None = None  # the acknowledgement as it came
    acknowledged: float | None = None
    ended: float | None = None
    end_reason: str | None = None
    response: dict[str, Any] | None = None  # the listen request's response (its end), when one came
    notifications: int = 0  # change notifications that named this stream

    @property
    def live(self) -> bool:
        return self.state in ("opening", "open")

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "id": self.rpc_id,
            "requested": self.requested,
            "opened": self.opened,
            "state": self.state,
            "honored": self.honored,
            "acknowledged": self.acknowledged,
            "ended": self.ended,
            "end_reason": self.end_reason,
            "response": self.response,
            "notifications": self.notifications,
        }


@dataclass
class ListenState:
    uris: list[str] = field(default_factory=list)
    list_changed: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(LIST_KINDS, False))
    current: ListenStream | None = None
    past: deque[ListenStream] = field(default_factory=lambda: deque(maxlen=PAST_STREAMS))
    _streams: dict[str, ListenStream] = field(default_factory=dict)

    def want(
        self, *, add: str | None = None, remove: str | None = None, kinds: dict[str, bool] | None = None
    ) -> None:
        """Change the wanted set (a URI in or out, list-changed kinds on or off)."""
        if add is not None and add not in self.uris:
            self.uris.append(add)
        if remove is not None and remove in self.uris:
            self.uris.remove(remove)
        for kind, on in (kinds or {}).items():
            if kind in self.list_changed:
                self.list_changed[kind] = bool(on)

    @property
    def empty(self) -> bool:
        return not self.uris and not any(self.list_changed.values())

    def filter(self) -> dict[str, Any]:
        return build_filter(self.uris, self.list_changed)

    def opened(self, key: str, rpc_id: Any, requested: dict[str, Any], now: float) -> ListenStream:
        """A listen request was sent: it becomes the current stream."""
        if self.current is not None:
            self.past.append(self.current)
        stream = ListenStream(key, rpc_id, requested, now)
        self.current = self._streams[key] = stream
        return stream

    def stream_of(self, message: dict[str, Any]) -> ListenStream | None:
        """The stream a frame names in `_meta` (acknowledgement or change notification), if ours."""
        sid = subscription_id(message)
        return None if sid is None else self._streams.get(id_key(sid))

    def acknowledged(self, message: dict[str, Any], now: float) -> ListenStream | None:
        stream = self.stream_of(message)
        if stream is None or stream.ack is not None:
            return None
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        honored = params.get("notifications") if isinstance(params, dict) else None
        stream.honored = honored if isinstance(honored, dict) else {}
        stream.ack, stream.acknowledged = message, now
        if stream.state == "opening":
            stream.state = "open"
        return stream

    def ended(
        self, key: str, state: str, reason: str, now: float, response: dict[str, Any] | None = None
    ) -> ListenStream | None:
        stream = self._streams.pop(key, None)
        if stream is None:
            return None
        if stream.live:
            stream.state = state
            stream.end_reason = reason
        stream.ended, stream.response = now, response
        return stream

    def honored_uris(self) -> list[str]:
        """The URIs the current open stream carries updates for."""
        if self.current is None or self.current.state != "open":
            return []
        return list((self.current.honored or {}).get("resourceSubscriptions") or [])

    def to_json(self) -> dict[str, Any]:
        return {
            "wanted": {"uris": list(self.uris), "list_changed": dict(self.list_changed)},
            "current": self.current.to_json() if self.current else None,
            "past": [s.to_json() for s in reversed(self.past)],
        }
