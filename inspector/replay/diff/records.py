"""The diff's input: stored message records read as `_RpcMessage`s (a batch's items one by one), each
with the recorder's pairing; bodies of both sessions parsed once where they are the same bytes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import orjson

from inspector.protocol.json_depth import loads as bounded_loads
from inspector.protocol.jsonrpc import classify_value
from inspector.protocol.sse import stored_body
from inspector.replay.paths import Item
from inspector.store.interventions import describe, server_side

if TYPE_CHECKING:
    from inspector.store.models import MessageRecord


class _Watch(Protocol):
    """What `_expand` tells a builder (`stream._StreamBuilder`): a conversation may open."""

    input_required: bool


class _Lane(Protocol):
    """What `_expand` reads and leaves of the streamed diff's lane (`stream._Stream`)."""

    last: MessageRecord | None
    mirror: bool
    offset: int


_SKIPPED_KINDS = frozenset({"log", "http"})


def _payload(m: MessageRecord) -> Any:
    """The parsed JSON-RPC object of a record (a list for a batch), None when unparsable."""
    try:
        return bounded_loads(stored_body(m.channel, m.raw))
    except (orjson.JSONDecodeError, TypeError):
        return None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class _Parsed:
    """A message body parsed once for both sessions (`_Stream`): identical stored bytes give the same
    objects, and what the builder derives from them (subject and params view, response view) is
    worked out once. Nothing in the diff changes a payload or a view, so sharing them is safe, and
    `_identical` knows two shared views at once (`is`) without serialising them."""

    __slots__ = ("payload", "request", "response")

    def __init__(self, payload: Any) -> None:
        self.payload = payload
        self.request: tuple[Item | None, dict[str, Any]] | None = None  # subject, params view
        self.response: dict[str, Any] | None = None  # response view


class _RpcMessage(NamedTuple):
    """One JSON-RPC message as the diff's builder reads it: a stored record, or one item of a batch
    record (sharing its seq), with the recorder's pairing of it (`answers_seq`, and `related_seq`
    for progress/cancel)."""

    seq: int
    direction: str
    kind: str
    method: str | None
    rpc_id: str | None
    payload: Any
    answers_seq: int | None
    related_seq: int | None
    intervention: str | None = None
    raw: bytes | None = None  # the stored bytes of a whole-row message (not a batch's item)
    parsed: _Parsed | None = None  # its body as both sessions share it (`_Stream`)
    # The body its payload was parsed from, for a whole row read as stored (no intervention, not a
    # batch): two such parts with equal `body` and columns feed a builder alike (`_Stream`'s lane).
    body: bytes | None = None


_SHARE, _SHARE_BYTES = 64, 4096  # bodies parsed once for both sessions (`_expand`'s `shared`)


def _expand(
    messages: Iterable[MessageRecord],
    shared: dict[bytes, _Parsed] | None = None,
    watch: _Watch | None = None,
    lane: _Lane | None = None,
    side: int = 0,
) -> Iterable[_RpcMessage]:
    """Messages in order, a batch's items one by one, each with the recorder's stored pairing.

    A session recorded with interception is read as the server lived it (`store.interventions`):
    what it received (not what the inspector kept from it) and what it sent (not what the
    inspector made up); the marks of what is read go along as `intervention`.

    `shared` (the streamed diff's, one for both sessions): the common row's body, when small, is
    parsed once for two messages with the same bytes (`_Parsed`): the first one parses it and leaves
    it here, the next one takes it away, so a replay that agrees with its original reuses the
    original's parse. What finds no twin is let go past `_SHARE` entries: parsed bodies held longer
    survive into the collector's older generations (with 512 held, a 100k diff ran ~500 collections,
    1 s of CPU). `watch`: the builder to tell when a response may open
    a conversation (`protocol.conversations`: only an `input_required` result does, and its body
    says so). `lane` (the streamed diff's, `_Stream`): the original's side (`side` 0) leaves each
    record there as `lane.last`; in the lane, the replay's side yields a row that is the twin of
    that one (`_twin_records`) unread, as a `_TWIN` part holding the record."""
    loads, decode_error = bounded_loads, orjson.JSONDecodeError  # deep levels as text (json_depth)
    for m in messages:
        kind = m.kind
        if watch is not None and kind == "response" and not watch.input_required:
            raw = m.raw if isinstance(m.raw, bytes | bytearray) else str(m.raw or "").encode()
            watch.input_required = b'"input_required"' in raw
        if lane is not None:
            if side == 0:
                lane.last = m
            elif lane.mirror and (twin := lane.last) is not None and _twin_records(twin, m, lane.offset):
                yield _RpcMessage(m.seq, m.direction, _TWIN, None, None, m, None, None)
                continue
        meta = m.meta if isinstance(m.meta, dict) else None
        if not meta:
            # The common row (no interception, no link, no batch): read straight through.
            parsed = None
            if kind in _SKIPPED_KINDS:
                payload, body = None, b""
            else:
                body = m.raw if m.channel != "sse" else stored_body(m.channel, m.raw)
                if shared is not None and type(body) is bytes and len(body) <= _SHARE_BYTES:
                    parsed = shared.pop(body, None)
                    if parsed is None:
                        try:
                            payload = loads(body)
                        except decode_error:
                            payload = None
                        parsed = shared[body] = _Parsed(payload)  # for its twin
                        if len(shared) > _SHARE:  # let go at once: dropping the oldest one by one
                            shared.clear()  # walks the dict's freed slots each time
                    payload = parsed.payload
                else:
                    try:
                        payload = loads(body)
                    except (decode_error, TypeError):
                        payload = None
            if kind != "batch" or not isinstance(payload, list):
                yield _RpcMessage(
                    m.seq,
                    m.direction,
                    kind,
                    m.method,
                    m.rpc_id,
                    payload,
                    m.answers_seq,
                    None,
                    None,
                    m.raw,
                    parsed,
                    body if type(body) is bytes else None,
                )
                continue
            meta = {}
        elif not server_side(m.direction, meta):
            continue
        else:
            payload = _payload(m) if kind not in _SKIPPED_KINDS else None
        note = describe(meta) if meta else None
        if note is None and kind != "batch" and type(m.raw) is bytes:
            # Read as stored, one message: its columns and bytes say all the builder will do with it.
            body = b"" if kind in _SKIPPED_KINDS else stored_body(m.channel, m.raw)
            related = _int_or_none(meta.get("related_seq"))
            yield _RpcMessage(
                m.seq,
                m.direction,
                kind,
                m.method,
                m.rpc_id,
                payload,
                m.answers_seq,
                related,
                None,
                None,
                None,
                body,
            )
            continue
        if m.kind == "batch" and isinstance(payload, list):
            items = meta.get("items")
            items = items if isinstance(items, list) and len(items) == len(payload) else [{}] * len(payload)
            for el, pairing in zip(payload, items, strict=True):
                c = classify_value(el)
                p = pairing if isinstance(pairing, dict) else {}
                yield _RpcMessage(
                    m.seq,
                    m.direction,
                    c.kind.value,
                    c.method or p.get("request_method"),
                    c.rpc_id,
                    el,
                    _int_or_none(p.get("answers_seq")),
                    _int_or_none(p.get("related_seq")),
                    note,
                )
        else:
            yield _RpcMessage(
                m.seq,
                m.direction,
                m.kind,
                m.method,
                m.rpc_id,
                payload,
                m.answers_seq,
                _int_or_none(meta.get("related_seq")),
                note,
            )
    if lane is not None and side == 0:
        lane.last = None  # the original ended: nothing more is a twin


_TWIN = "(twin)"  # the kind of a replay part the lane did not read (`_expand`'s `lane`)


def _twin_records(a: MessageRecord, b: MessageRecord, offset: int) -> bool:
    """Two common rows (no meta, not a batch) that `_expand` would make twin parts (`_twin_parts`)
    at `offset`: the same bytes on the same channel, the same columns, the answer's link shifted."""
    raw = b.raw
    if type(raw) is not bytes or raw != a.raw or a.meta or b.meta or b.seq - a.seq != offset:
        return False
    if b.kind != a.kind or b.kind == "batch" or b.channel != a.channel or b.direction != a.direction:
        return False
    if b.method != a.method or b.rpc_id != a.rpc_id:
        return False
    x, y = a.answers_seq, b.answers_seq
    return x is None and y is None or (x is not None and y is not None and y - x == offset)
