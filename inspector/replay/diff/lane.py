"""The lane's pieces (`stream._Stream`): while the replay mirrors the original, twin records and
parts at one seq offset stand for each other, so only the original's side is built."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from inspector.replay.diff.compare import _same_notes
from inspector.replay.diff.exchanges import _RpcExchange
from inspector.replay.diff.records import _int_or_none, _RpcMessage
from inspector.replay.diff.tree import _identical
from inspector.store.interventions import describe, server_side

if TYPE_CHECKING:
    from inspector.store.models import MessageRecord


def _pull(records: Iterator[MessageRecord], back: list[MessageRecord]) -> Iterator[MessageRecord]:
    """`records`, after what was handed back to `back` (the record lane's, `_Stream._fast`)."""
    while True:
        if back:
            yield back.pop()
            continue
        m = next(records, None)
        if m is None:
            return
        yield m


_NOT_PLAIN: Any = object()


def _plain_link(m: MessageRecord) -> Any:
    """A row's `related_seq` (None: none) when `_expand` reads it as stored, one whole message (no
    intervention; the server's own side); else _NOT_PLAIN."""
    meta = m.meta if isinstance(m.meta, dict) else None
    if not meta:
        return None
    if len(meta) == 1 and "related_seq" in meta and m.direction in ("c2s", "s2c"):
        return _int_or_none(meta["related_seq"])  # the recorder's link alone: no mark to read
    if not server_side(m.direction, meta) or describe(meta) is not None:
        return _NOT_PLAIN
    return _int_or_none(meta.get("related_seq"))


class _LaneRequest:
    """A request of the record lane (`_Stream._fast`): its records only, until it is counted equal
    with its twin or becomes an `_RpcExchange` (`_Stream._materialise`)."""

    __slots__ = ("answer", "direction", "index", "key", "notes", "record", "twin")

    def __init__(self, record: MessageRecord, index: int, twin: int, direction: str, key: str) -> None:
        self.record, self.index, self.twin, self.direction = record, index, twin, direction
        self.key = key  # "" unless something waited to be aligned (`_begin` keys it then)
        self.answer: MessageRecord | None = None
        self.notes: list[MessageRecord] = []


_NO_TWIN, _DROPPED_TWIN = -1, -2  # `_RpcExchange.twin`: none; a dropped exchange's (no index)


def _twin_parts(pa: _RpcMessage, pb: _RpcMessage) -> bool:
    """Two messages a builder takes alike (seqs and their links shifted by one offset): the same
    body read as stored (no intervention, not a batch's item) and the same columns."""
    body = pa.body
    if body is None or pb.body != body:
        return False
    if pa.kind != pb.kind or pa.direction != pb.direction or pa.method != pb.method or pa.rpc_id != pb.rpc_id:
        return False
    offset = pb.seq - pa.seq
    for x, y in ((pa.answers_seq, pb.answers_seq), (pa.related_seq, pb.related_seq)):
        if (x is None) != (y is None) or (x is not None and y is not None and y - x != offset):
            return False
    return True


def _mirrors(xa: _RpcExchange, xb: _RpcExchange) -> bool:
    """Two open requests that are twins so far: paired with each other (or both dropped), the same
    content, so the same messages complete them alike and `_compare` would find nothing."""
    if xa.dropped or xb.dropped:
        paired = xa.dropped and xb.dropped and xa.partner is None and xb.partner is None
    else:
        paired = xa.partner is xb and xb.partner is xa
    return (
        paired
        and not xa.done
        and not xb.done
        and xa.round is None
        and xb.round is None
        and xa.role == xb.role
        and xa.direction == xb.direction
        and xa.method == xb.method
        and xa.rpc_id == xb.rpc_id
        and xa.answered == xb.answered
        and xa.subject == xb.subject
        and xa.key == xb.key
        and xa.interventions == xb.interventions
        and _identical(xa.view, xb.view)
        and _identical(xa.response, xb.response)
        and _same_notes(xa.notes, xb.notes)
    )
