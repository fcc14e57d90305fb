"""Exchanges: one session's messages grouped as the recorder paired them (`_Builder`), the
request/response views the diff compares, and a conversation's rounds."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.protocol.conversations import derive
from inspector.replay.diff.records import _SKIPPED_KINDS, _expand, _RpcMessage
from inspector.replay.diff.tree import _canon, _normal
from inspector.replay.paths import Item, PathCursor, PathSet

if TYPE_CHECKING:
    from inspector.store.models import MessageRecord


_HANDSHAKE = frozenset({"initialize", "server/discover"})


@dataclass
class _Note:
    method: str
    subject: Item | None
    view: dict[str, Any]


@dataclass(slots=True)
class _RpcExchange:
    """What the diff aligns and compares: a JSON-RPC request with its response and the notifications
    linked to it, or a message standing alone (a notification, an orphan response, an invalid one)."""

    role: str  # request | notification | response (an orphan) | invalid
    direction: str
    method: str
    subject: Item | None
    seq: int
    view: dict[str, Any]
    rpc_id: str | None = None  # only to tell apart the requests of one batch (they share a seq)
    response: dict[str, Any] | None = None
    answered: bool = False
    notes: list[_Note] = field(default_factory=list)
    key: str = ""
    interventions: list[str] = field(default_factory=list)
    round: tuple[int, int] | None = None  # (n, of): a round of a multi-round-trip conversation
    # The streamed diff's bookkeeping (`_Stream`): complete (no more messages will join it), left
    # out (wholly ignored), its place among its session's kept exchanges, its aligned partner.
    done: bool = False
    dropped: bool = False
    side: int = 0
    index: int = -1
    partner: _RpcExchange | None = None
    cursor: PathCursor | None = None  # its ignore cursor, once keyed
    raw: bytes | None = None  # the stored bytes it began with, when a whole row (the key's memo)
    # The lane (`_Stream`): the replay index of its twin, the replay exchange the lane did not build
    # because it would be this one at seq + offset; _NO_TWIN none, _DROPPED_TWIN a dropped one's.
    twin: int = -1

    @property
    def summary(self) -> str:
        text = _summary(self.method, self.subject)
        return f"{text} · round {self.round[0]} of {self.round[1]}" if self.round else text

    @property
    def params_compared(self) -> bool:
        """Aligned by method alone (or by conversation round), so the params are part of the comparison."""
        return self.role == "request" and (
            self.direction == "s2c" or self.method in _HANDSHAKE or self.round is not None
        )


def _summary(method: str, subject: Item | None) -> str:
    return method if subject is None else f"{method} {subject.field}={subject.value}"


def _opposite(direction: str) -> str:
    return "s2c" if direction == "c2s" else "c2s"


def _subject(params: Any) -> Item | None:
    """What a request is about: its tool/prompt name, resource uri, or completion ref."""
    if not isinstance(params, dict):
        return None
    for f in ("name", "uri"):
        if isinstance(params.get(f), str):
            return Item(f, params[f])
    ref = params.get("ref")
    if isinstance(ref, dict):
        for f in ("name", "uri"):
            if isinstance(ref.get(f), str):
                return Item("ref", ref[f])
    return None


def params_view(payload: dict[str, Any]) -> dict[str, Any]:
    """What the diff compares of a request: its params."""
    return {"params": payload["params"]} if "params" in payload else {}


def response_view(payload: dict[str, Any]) -> dict[str, Any]:
    """What the diff compares of a response: its result, or its error's code and message."""
    if "error" in payload:
        err = payload["error"]
        if isinstance(err, dict):
            return {"error": {k: err[k] for k in ("code", "message") if k in err}}
        return {"error": err}
    return {"result": payload.get("result")}


def _request_view(m: _RpcMessage, payload: dict[str, Any]) -> tuple[Item | None, dict[str, Any]]:
    """A request's or notification's subject and params view (once per shared body)."""
    p = m.parsed
    if p is None:
        return _subject(payload.get("params")), params_view(payload)
    if p.request is None:
        p.request = (_subject(payload.get("params")), params_view(payload))
    return p.request


def _response_view(m: _RpcMessage, payload: dict[str, Any]) -> dict[str, Any]:
    p = m.parsed
    if p is None:
        return response_view(payload)
    if p.response is None:
        p.response = response_view(payload)
    return p.response


class _Builder:
    """Groups one session's messages into exchanges, as the recorder paired them.

    A response belongs to the request its stored `answers_seq` names, a progress or cancel
    notification to its `related_seq`: JSON-RPC ids are never matched again here, so reused
    or duplicate ids pair exactly as the recorder saw them."""

    def __init__(self) -> None:
        self.out: list[_RpcExchange] = []
        self.by_seq: dict[int, list[_RpcExchange]] = defaultdict(list)

    def feed(self, m: _RpcMessage) -> None:
        if m.kind in _SKIPPED_KINDS:
            return
        payload = m.payload if isinstance(m.payload, dict) else None
        if payload is not None and m.kind == "request":
            self._request(m, payload)
        elif payload is not None and m.kind in ("response", "error"):
            self._response(m, payload)
        elif payload is not None and m.kind == "notification":
            self._notification(m, payload)
        else:
            invalid = _RpcExchange("invalid", m.direction, "(invalid)", None, m.seq, {"payload": m.payload})
            invalid.interventions = [m.intervention] if m.intervention else []
            self.out.append(invalid)

    def _request(self, m: _RpcMessage, payload: dict[str, Any]) -> None:
        method = m.method or str(payload.get("method"))
        subject, view = _request_view(m, payload)
        ex = _RpcExchange("request", m.direction, method, subject, m.seq, view)
        ex.rpc_id, ex.raw = m.rpc_id, m.raw
        ex.interventions = [m.intervention] if m.intervention else []
        self.out.append(ex)
        self.by_seq[m.seq].append(ex)

    def _take(self, m: _RpcMessage) -> _RpcExchange | None:
        """The request the recorder paired this response with. The requests of one batch share its
        seq: among those, the one with the response's id (an error with id null: the first)."""
        if m.answers_seq is None:
            return None
        candidates = [
            ex for ex in self.by_seq.get(m.answers_seq, []) if not ex.answered and ex.direction != m.direction
        ]
        for ex in candidates:
            if ex.rpc_id == m.rpc_id:
                return ex
        return candidates[0] if candidates else None

    def _response(self, m: _RpcMessage, payload: dict[str, Any]) -> _RpcExchange | None:
        """Pair a response with its request; returns that request's exchange (None: an orphan)."""
        ex = self._take(m)
        if ex is None:
            orphan = _RpcExchange("response", m.direction, m.method or "(response)", None, m.seq, {})
            orphan.view = _response_view(m, payload)
            orphan.interventions = [m.intervention] if m.intervention else []
            self.out.append(orphan)
            return None
        ex.response = _response_view(m, payload)
        ex.answered = True
        if m.intervention:
            ex.interventions.append(m.intervention)
        return ex

    def _notification(self, m: _RpcMessage, payload: dict[str, Any]) -> None:
        method = m.method or str(payload.get("method"))
        note = _Note(method, *_request_view(m, payload))
        # Only the recorder's link (a progress token) ties a notification to a request. Arrival while
        # a request is in flight is timing: a server's timer log, or one sent on the GET stream
        # over HTTP, lands inside or outside a call from run to run, and stdio and HTTP recordings
        # would disagree. Those notifications are exchanges of their own, paired by content anywhere
        # in the session, so their interleaving never matters.
        opposite = _opposite(m.direction)
        for ex in self.by_seq.get(m.related_seq, []) if m.related_seq is not None else []:
            if ex.direction == opposite:
                ex.notes.append(note)
                if m.intervention:
                    ex.interventions.append(m.intervention)
                return
        alone = _RpcExchange("notification", m.direction, method, note.subject, m.seq, note.view)
        alone.raw = m.raw
        alone.interventions = [m.intervention] if m.intervention else []
        self.out.append(alone)


def _exchanges(messages: Sequence[MessageRecord], ignore: PathSet) -> list[_RpcExchange]:
    """A session's exchanges with their alignment keys; wholly ignored messages dropped."""
    b = _Builder()
    for m in _expand(messages):
        b.feed(m)
    rounds = _conversation_rounds(messages)
    out = []
    for ex in b.out:
        cur = ignore.cursor(ex.method, ex.subject)
        if cur.hit:
            continue
        if ex.role == "request" and (found := rounds.get(ex.seq)) is not None:
            # A multi-round-trip conversation: round n pairs with round n of the same request (new ids,
            # the echoed state and the answers given are compared, never taken for a new exchange).
            ex.round = found
            subject = [ex.subject.field, ex.subject.value] if ex.subject else None
            ex.key = _canon([ex.direction, ex.role, ex.method, subject, "round", found[0]])
        elif ex.params_compared:
            ex.key = _canon([ex.direction, ex.role, ex.method])
        else:
            ex.key = _canon([ex.direction, ex.role, ex.method, _normal(ex.view, cur)])
        out.append(ex)
    return out


def _conversation_rounds(messages: Sequence[MessageRecord]) -> dict[int, tuple[int, int]]:
    """The seq of each request that is a round of a conversation (`protocol.conversations`): (n, of)."""
    rows = [
        {
            "seq": m.seq,
            "direction": m.direction,
            "channel": m.channel,
            "kind": m.kind,
            "method": m.method,
            "rpc_id": m.rpc_id,
            "answers_seq": m.answers_seq,
            "raw": m.raw,
            "meta": m.meta,
        }
        for m in messages
        if m.kind in ("request", "response", "error")
    ]
    out: dict[int, tuple[int, int]] = {}
    for conv in derive(rows).conversations:
        for rnd in conv.rounds:
            out[rnd.request_seq] = (rnd.n, len(conv.rounds))
    return out
