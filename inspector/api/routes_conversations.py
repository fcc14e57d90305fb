"""Conversation routes: the multi-round-trip conversations and retry pairs of a session.

Derived per session from its stored rows (`protocol/conversations.py`), never
stored: older recordings get them too. The answer is cached per session and
its highest seq (a new row recomputes it; a finished session is read once) in
an `lru_cache` keyed by the engine object itself: thread-safe, and a disposed
engine's id reused by another database cannot hit its entries.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from fastapi import APIRouter, Request, Response
from sqlalchemy import Engine, select

from inspector.api.deps import json_response, run_query, state_of
from inspector.api.params import SqlInt
from inspector.api.schemas_conversations import Conversations
from inspector.protocol.conversations import derive
from inspector.store import bodies, get_session
from inspector.store.models import Message
from inspector.store.queries import count_messages

__all__ = ["conversations_of", "router"]

router = APIRouter(prefix="/api/sessions/{session_id}", tags=["messages"])

_COLUMNS = (
    "seq",
    "direction",
    "channel",
    "kind",
    "method",
    "rpc_id",
    "answers_seq",
    "meta",
    "raw",
    "body_sha256",
)


def _rows(engine: Engine, session_id: int, upto: int, page: int = 5000) -> Iterator[dict[str, Any]]:
    """The columns `derive` reads, in seq order, up to `upto`, paged."""
    table = Message.__table__  # type: ignore[attr-defined]
    cols = [table.c[name] for name in _COLUMNS]
    after = 0
    with engine.connect() as conn:
        while after < upto:
            rows = conn.execute(
                select(*cols)
                .where(table.c.session_id == session_id, table.c.seq > after, table.c.seq <= upto)
                .order_by(table.c.seq)
                .limit(page)
            ).all()
            dicts = [dict(r._mapping) for r in rows]
            bodies.fill(conn, dicts)
            yield from dicts
            if len(rows) < page:
                return
            after = rows[-1].seq


def conversations_of(engine: Engine, session_id: int) -> dict[str, Any]:
    """The session's conversations, retry pairs and per-seq annotations (JSON-ready)."""
    upto = count_messages(engine, session_id)  # seq is gap-free: the highest seq, an index lookup
    return _derived(engine, session_id, upto)


@lru_cache(maxsize=32)  # thread-safe (queries run in worker threads); keyed by the engine itself
def _derived(engine: Engine, session_id: int, upto: int) -> dict[str, Any]:
    doc = derive(_rows(engine, session_id, upto)).to_json()
    doc["upto_seq"] = upto
    return doc


@router.get(
    "/conversations",
    response_model=Conversations,
    summary="Multi-round-trip conversations and retry pairs (derived from the recorded rows)",
)
async def conversations_route(request: Request, session_id: SqlInt) -> Response:
    engine = state_of(request).engine
    await run_query(get_session, engine, session_id)
    return json_response(await run_query(conversations_of, engine, session_id))
