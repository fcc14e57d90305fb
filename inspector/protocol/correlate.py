"""Request/response correlation for one MCP connection.

Sans-IO. Requests sent in one direction are answered in the other, so a
response travelling c2s answers a request that travelled s2c (sampling,
roots, elicitation) and vice versa. The correlator also links
`notifications/cancelled` to the request it cancels and
`notifications/progress` to the request that carried the progress token.

Odd traffic is reported through `Pairing.flags`, never raised:
`orphan-response` (no pending request with that id), `duplicate-id` (a
request reused an id that is still pending), `late-after-cancel` (a
response to a cancelled request), `unknown-cancel`, `unknown-progress`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from inspector.flow import BatchItemMeta, RowMeta

from inspector.protocol.jsonrpc import Classified, Kind, id_key

__all__ = ["Correlator", "Pairing", "Pending", "opposite"]

# Module-level members: `Kind.X` is an attribute lookup on the enum class, ~50 ns each time.
_REQUEST, _RESPONSE, _ERROR, _NOTIFICATION, _BATCH = (
    Kind.REQUEST,
    Kind.RESPONSE,
    Kind.ERROR,
    Kind.NOTIFICATION,
    Kind.BATCH,
)


def opposite(direction: str) -> str:
    """The other direction: c2s <-> s2c."""
    return "s2c" if direction == "c2s" else "c2s"


@dataclass(slots=True)
class Pending:
    """A request that has not been answered yet."""

    seq: int
    ts_ns: int
    direction: str
    rpc_id: str
    method: str
    progress_token: str | None = None
    cancelled: bool = False


@dataclass(slots=True)
class Pairing:
    """What correlation learned about one message (or one item of a batch)."""

    answers_seq: int | None = None
    request_method: str | None = None
    latency_ns: int | None = None
    related_seq: int | None = None  # cancelled/progress: the request it refers to
    flags: list[str] = field(default_factory=list)
    items: list[Pairing] = field(default_factory=list)

    def to_meta(self) -> RowMeta:
        """The facts worth storing beside the message, without empty fields."""
        out: RowMeta = {}
        if self.related_seq is not None:
            out["related_seq"] = self.related_seq
        if self.flags:
            out["flags"] = self.flags
        if self.items:
            out["items"] = [
                cast(
                    "BatchItemMeta",
                    {
                        k: v
                        for k, v in (
                            ("answers_seq", p.answers_seq),
                            ("request_method", p.request_method),
                            ("latency_ns", p.latency_ns),
                            ("related_seq", p.related_seq),
                            ("flags", p.flags or None),
                        )
                        if v is not None
                    },
                )
                for p in self.items
            ]
        return out


class Correlator:
    """Pairs responses with requests across both directions of one connection."""

    def __init__(self) -> None:
        # (direction of the request, id) -> requests with that id, oldest first
        self._pending: dict[tuple[str, str], deque[Pending]] = {}
        # (direction the progress notification travels, token) -> request
        self._progress: dict[tuple[str, str], Pending] = {}

    def observe(self, seq: int, ts_ns: int, direction: str, msg: Classified) -> Pairing:
        """Feed one message in arrival order; return its pairing."""
        if msg.kind is _BATCH:
            items = [self._observe_one(seq, ts_ns, direction, item) for item in msg.items]
            first = next((p for p in items if p.answers_seq is not None), None)
            return Pairing(
                answers_seq=first.answers_seq if first else None,
                request_method=first.request_method if first else None,
                latency_ns=first.latency_ns if first else None,
                items=items,
            )
        return self._observe_one(seq, ts_ns, direction, msg)

    def answer_out_of_band(self, request_direction: str, rpc_id: str, ts_ns: int) -> Pairing | None:
        """Pair a response whose id could not name its request (an error with id null) with a request
        known from elsewhere, e.g. the same HTTP exchange; None when that request is not pending."""
        key = (request_direction, rpc_id)
        queue = self._pending.get(key)
        if not queue:
            return None
        req = queue.popleft()
        if not queue:
            del self._pending[key]
        return Pairing(answers_seq=req.seq, request_method=req.method, latency_ns=ts_ns - req.ts_ns)

    def forget(self, direction: str, rpc_id: str, seq: int) -> bool:
        """Stop waiting for an answer to the request at `seq` (one its peer never received, e.g.
        superseded by an edited copy the inspector sent instead); True when it was pending."""
        key = (direction, rpc_id)
        queue = self._pending.get(key)
        if not queue:
            return False
        for req in queue:
            if req.seq == seq:
                queue.remove(req)
                if not queue:
                    del self._pending[key]
                if req.progress_token is not None:
                    self._progress.pop((opposite(direction), req.progress_token), None)
                return True
        return False

    def unanswered(self) -> list[Pending]:
        """Requests still waiting for an answer, in seq order."""
        return sorted((p for q in self._pending.values() for p in q), key=lambda p: p.seq)

    def _observe_one(self, seq: int, ts_ns: int, direction: str, msg: Classified) -> Pairing:
        kind = msg.kind
        if kind is _REQUEST:
            return self._on_request(seq, ts_ns, direction, msg)
        if kind is _RESPONSE or kind is _ERROR:
            return self._on_response(ts_ns, direction, msg)
        if kind is _NOTIFICATION:
            if msg.method == "notifications/cancelled":
                return self._on_cancel(direction, msg)
            if msg.method == "notifications/progress":
                return self._on_progress(direction, msg)
        return Pairing()

    def _on_request(self, seq: int, ts_ns: int, direction: str, msg: Classified) -> Pairing:
        assert msg.rpc_id is not None and msg.method is not None
        params = msg.payload.get("params") if type(msg.payload) is dict else None
        meta = params.get("_meta") if type(params) is dict else None
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        pending = Pending(seq, ts_ns, direction, msg.rpc_id, msg.method)
        pairing = Pairing()
        if token is not None and isinstance(token, (str, int)):
            pending.progress_token = id_key(token)
            self._progress[(opposite(direction), pending.progress_token)] = pending
        key = (direction, msg.rpc_id)
        queue = self._pending.get(key)
        if queue is None:
            self._pending[key] = deque((pending,))
        else:
            if queue:
                pairing.flags.append("duplicate-id")
            queue.append(pending)
        return pairing

    def _on_response(self, ts_ns: int, direction: str, msg: Classified) -> Pairing:
        key = ("s2c" if direction == "c2s" else "c2s", msg.rpc_id or "null")
        queue = self._pending.get(key)
        if not queue:
            return Pairing(flags=["orphan-response"])
        req = queue.popleft()
        if not queue:
            del self._pending[key]
        if req.progress_token is not None:
            self._progress.pop((direction, req.progress_token), None)
        pairing = Pairing(answers_seq=req.seq, request_method=req.method, latency_ns=ts_ns - req.ts_ns)
        if req.cancelled:
            pairing.flags.append("late-after-cancel")
        return pairing

    def _on_cancel(self, direction: str, msg: Classified) -> Pairing:
        request_id = msg.params.get("requestId")
        if request_id is None:
            return Pairing(flags=["unknown-cancel"])
        # A cancel travels the same way as the request it cancels.
        queue = self._pending.get((direction, id_key(request_id)))
        if not queue:
            return Pairing(flags=["unknown-cancel"])
        req = queue[-1]
        req.cancelled = True
        return Pairing(related_seq=req.seq, request_method=req.method)

    def _on_progress(self, direction: str, msg: Classified) -> Pairing:
        token = msg.params.get("progressToken")
        req = self._progress.get((direction, id_key(token))) if token is not None else None
        if req is None:
            return Pairing(flags=["unknown-progress"])
        return Pairing(related_seq=req.seq, request_method=req.method)
