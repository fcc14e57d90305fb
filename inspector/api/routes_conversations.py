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
from sqlalchemy import (
    Engine,
    LargeBinary,
    String,
    Text,
    and_,
    bindparam,
    func,
    literal,
    or_,
    select,
    text,
    type_coerce,
)
from sqlalchemy import cast as sql_cast

from inspector.api.deps import json_response, run_query, state_of
from inspector.api.params import SqlInt
from inspector.api.schemas_conversations import Conversations
from inspector.protocol.conversations import derive
from inspector.store import bodies, get_session, schema
from inspector.store.pages import count_messages

__all__ = ["conversations_of", "router"]

router = APIRouter(prefix="/api/sessions/{session_id}", tags=["messages"])

_T = schema.message

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


def _meta_text(engine: Engine, table: Any = _T) -> Any:
    """`meta` as its stored JSON text (a LIKE on it skips parsing every row's JSON)."""
    if engine.dialect.name == "postgresql":
        return sql_cast(table.c.meta, Text)
    return type_coerce(table.c.meta, String)


def _raw_contains(engine: Engine, table: Any, needle: bytes) -> Any:
    """`raw` holds `needle` (bytes; searched in SQL, without reading the row into Python).
    On PostgreSQL, `table` must be named `message` (the condition is written as text)."""
    if engine.dialect.name == "postgresql":
        return text("position(:needle in message.raw) > 0").bindparams(
            bindparam("needle", needle, type_=LargeBinary)
        )
    return func.instr(table.c.raw, literal(needle, LargeBinary)) > 0


def _methods_that_matter(engine: Engine, session_id: int, upto: int) -> dict[str, int]:
    """The methods whose requests `derive` can put in a conversation or a retry pair: those with a
    request of the client's that no delivered answer answers (a retry's original), or answered
    `input_required` (a conversation's first round). Requests of any other method are all answered
    and never open a conversation, so `derive` skips them: they need not be read. Found in SQL from
    the indexed columns, the bodies searched in SQL; only bodies stored out of line (the `blob`
    table) are read, to search them whole. A superset is harmless (more rows read, same result).
    Per method, the seq of its first such request: its earlier requests cannot matter either."""
    m, r = _T.alias("m"), _T.alias("r")
    client_request = and_(
        m.c.session_id == session_id,
        m.c.seq <= upto,
        m.c.kind == "request",
        m.c.direction == "c2s",
        m.c.method.is_not(None),
    )
    answered = (
        select(r.c.seq)
        .where(r.c.session_id == session_id, r.c.answers_seq == m.c.seq, r.c.kind.in_(("response", "error")))
        .exists()
    )
    answer_of = and_(
        r.c.session_id == session_id,
        r.c.seq <= upto,
        r.c.kind.in_(("response", "error")),
        m.c.session_id == session_id,
        m.c.seq == r.c.answers_seq,
    )
    raw_r = _T.alias("message")  # the name `_raw_contains` refers to on PostgreSQL
    methods: dict[str, int] = {}

    def add(found: Any) -> None:
        for method, seq in found:
            methods[method] = min(seq, methods.get(method, seq))

    with engine.connect() as conn:
        add(
            conn.execute(
                select(m.c.method, func.min(m.c.seq)).where(client_request, ~answered).group_by(m.c.method)
            )
        )
        # Answers that may say input_required (in their stored bytes) or were held by an intercept rule.
        inline = (
            select(m.c.method, func.min(m.c.seq))
            .select_from(
                raw_r.join(m, and_(m.c.session_id == raw_r.c.session_id, m.c.seq == raw_r.c.answers_seq))
            )
            .where(
                client_request,
                raw_r.c.session_id == session_id,
                raw_r.c.seq <= upto,
                raw_r.c.kind.in_(("response", "error")),
                or_(
                    and_(raw_r.c.kind == "response", _raw_contains(engine, raw_r, b'"input_required"')),
                    _meta_text(engine, raw_r).like('%"intercept"%'),
                ),
            )
            .group_by(m.c.method)
        )
        add(conn.execute(inline))
        # Bodies stored out of line keep only their head in `raw`: read those answers whole.
        big = conn.execute(
            select(r.c.raw, r.c.body_sha256, r.c.channel, m.c.method, m.c.seq).where(
                answer_of, client_request, r.c.kind == "response", r.c.body_sha256.is_not(None)
            )
        ).all()
        for start in range(0, len(big), 500):
            dicts = [dict(row._mapping) for row in big[start : start + 500]]
            bodies.fill(conn, dicts)
            add((d["method"], d["seq"]) for d in dicts if b'"input_required"' in bytes(d["raw"]))
    return methods


def _rows(engine: Engine, session_id: int, upto: int, page: int = 5000) -> Iterator[dict[str, Any]]:
    """The rows `derive` can use, in seq order, up to `upto`, paged: the client's requests of the
    methods that matter (`_methods_that_matter`) with their answers, and the rows that record a
    problem of their HTTP exchange (what a retry pair says broke)."""
    methods = _methods_that_matter(engine, session_id, upto)
    if not methods:
        return
    table = _T
    cols = [table.c[name] for name in _COLUMNS]
    q = _T.alias("q")
    of_them = or_(
        *(and_(q.c.method == method, q.c.seq >= start) for method, start in sorted(methods.items()))
    )
    requests = select(q.c.seq).where(
        q.c.session_id == session_id, q.c.kind == "request", q.c.direction == "c2s", of_them
    )
    wanted = or_(
        table.c.seq.in_(requests),
        and_(table.c.kind.in_(("response", "error")), table.c.answers_seq.in_(requests)),
        _meta_text(engine).like('%"problem"%'),
    )
    after = min(methods.values()) - 1  # nothing before the first request that matters can
    with engine.connect() as conn:
        while after < upto:
            rows = conn.execute(
                select(*cols)
                .where(table.c.session_id == session_id, table.c.seq > after, table.c.seq <= upto, wanted)
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
