"""One side of a diffed exchange as the diff compares it, for the diff view to show and highlight.

The paths of `SessionDiff` changes are relative to an exchange's *view*:
`{"params": ...}` of its first message, plus `{"result": ...}` or
`{"error": {"code", "message"}}` of the answer, plus the notifications the
recorder linked to the request (`meta.related_seq`) under
`notifications[<method>]`. This module rebuilds that view from the store
for one exchange (given by the seq `ExchangeDiff.original_seq` / `replay_seq`
names), so the UI can resolve the paths against it.
"""

from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import Engine

from inspector.replay.diff import params_view, response_view
from inspector.store import iter_messages, pair_of
from inspector.store.models import Message
from inspector.store.queries import get_message

__all__ = ["exchange_view"]

_NOTE_SCAN = 5000  # messages looked at between a request and its answer for linked notifications


def _payload(m: Message) -> Any:
    try:
        return orjson.loads(m.body)
    except (orjson.JSONDecodeError, TypeError):
        return None


def _answer_view(payload: Any) -> dict[str, Any]:
    return response_view(payload) if isinstance(payload, dict) else {"payload": payload}


def _linked_notes(engine: Engine, first: Message, answer: Message | None) -> dict[str, list[Any]]:
    """Notifications linked to a request, by method, as the diff groups them."""
    if answer is None or answer.seq <= first.seq:
        return {}
    notes: dict[str, list[Any]] = {}
    span = min(answer.seq - first.seq - 1, _NOTE_SCAN)
    for m in iter_messages(engine, first.session_id, after_seq=first.seq, limit=span):
        meta = m.meta if isinstance(m.meta, dict) else {}
        if m.kind != "notification" or meta.get("related_seq") != first.seq or m.direction == first.direction:
            continue
        payload = _payload(m)
        if isinstance(payload, dict):
            notes.setdefault(m.method or str(payload.get("method")), []).append(params_view(payload))
    return notes


def exchange_view(engine: Engine, session_id: int, seq: int) -> dict[str, Any]:
    """The API's `DiffSide` dict: the exchange starting at `seq` as the diff sees it."""
    first = get_message(engine, session_id, seq)
    payload = _payload(first)
    answer: Message | None = None
    if first.kind == "request" and isinstance(payload, dict):
        view = params_view(payload)
        answer = pair_of(engine, first)
        if answer is not None:
            view.update(_answer_view(_payload(answer)))
        notes = _linked_notes(engine, first, answer)
        if notes:
            view["notifications"] = notes
    elif first.kind == "notification" and isinstance(payload, dict):
        view = params_view(payload)
    elif first.kind in ("response", "error"):
        view = _answer_view(payload)
    else:
        view = {"payload": payload}
    return {
        "session_id": session_id,
        "seq": seq,
        "kind": first.kind,
        "method": first.method,
        "direction": first.direction,
        "answer_seq": answer.seq if answer is not None else None,
        "view": view,
    }
