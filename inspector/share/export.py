"""Sessions out of the store as a session file (`jsonl.py`), streamed a page of rows at a time."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sqlalchemy import Engine

from inspector.share import jsonl
from inspector.store.models import Session
from inspector.store.queries import iter_rows

__all__ = ["jsonl_lines"]


def jsonl_lines(engine: Engine, sessions: Sequence[Session]) -> Iterator[bytes]:
    """The lines of a JSONL file holding `sessions` in the order given (each once)."""
    yield jsonl.encode_header()
    refs: dict[int, int] = {}
    for ref, session in enumerate(sessions, start=1):
        assert session.id is not None
        refs[session.id] = ref
        parent = refs.get(session.parent_id) if session.parent_id is not None else None
        yield jsonl.encode_session(session.to_json(), ref, parent)
        for row in iter_rows(engine, session.id):
            yield jsonl.encode_message(row, ref)
