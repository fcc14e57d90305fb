"""Sessions out of the store as a session file (`jsonl.py`), streamed a page of rows at a time."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import Engine, select

from inspector.share import jsonl
from inspector.store.models import Message, Session

__all__ = ["jsonl_lines", "stored_rows"]

_PAGE = 2000


def stored_rows(engine: Engine, session_id: int) -> Iterator[dict[str, Any]]:
    """Every stored row of a session in seq order, as plain dicts (all columns)."""
    table = Message.__table__  # type: ignore[attr-defined]
    after = 0
    with engine.connect() as conn:
        while True:
            page = conn.execute(
                select(table)
                .where(table.c.session_id == session_id, table.c.seq > after)
                .order_by(table.c.seq)
                .limit(_PAGE)
            ).mappings()
            rows = [dict(r) for r in page]
            yield from rows
            if len(rows) < _PAGE:
                return
            after = rows[-1]["seq"]


def jsonl_lines(engine: Engine, sessions: Sequence[Session]) -> Iterator[bytes]:
    """The lines of a JSONL file holding `sessions` in the order given (each once)."""
    yield jsonl.encode_header()
    refs: dict[int, int] = {}
    for ref, session in enumerate(sessions, start=1):
        assert session.id is not None
        refs[session.id] = ref
        parent = refs.get(session.parent_id) if session.parent_id is not None else None
        yield jsonl.encode_session(session.to_json(), ref, parent)
        for row in stored_rows(engine, session.id):
            yield jsonl.encode_message(row, ref)
