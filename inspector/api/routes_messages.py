"""Message routes: pages by seq with cursors and filters (FTS5 text), one message with its pair,
raw bytes, a message's position under a filter, and the HTTP exchanges of a session."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Response

from inspector.api.deps import decode_cursor, encode_cursor, json_response, run_query, state_of
from inspector.api.network import HTTP_CHANNELS, group_exchanges, message_routing, routing_bodies
from inspector.api.params import SqlInt
from inspector.api.schemas import HttpExchangeOut, MessagePage, MessageWithPair, Position
from inspector.api.views import message_detail
from inspector.store import get_session, pair_of
from inspector.store.interventions import injected_of, mark_of
from inspector.store.pages import (
    MessageFilter,
    count_messages,
    intervention_rows,
    message_page,
    message_rows,
    rows_by_seq,
)
from inspector.store.queries import get_message

__all__ = ["router"]

router = APIRouter(prefix="/api/sessions/{session_id}", tags=["messages"])


def message_filter(
    direction: Literal["c2s", "s2c"] | None = None,
    kind: Annotated[
        list[str] | None, Query(description="request, notification, response, error, ...")
    ] = None,
    channel: Annotated[
        list[str] | None, Query(description="stdin, stdout, stderr, http-request, ...")
    ] = None,
    method: Annotated[
        list[str] | None, Query(description="exact method, or a prefix ending in * (tools/*)")
    ] = None,
    q: Annotated[str | None, Query(description="words that must all appear in the raw text (FTS5)")] = None,
    findings: Annotated[
        Literal["any", "warning", "error"] | None,
        Query(description="only messages with lint findings: any, warning (or worse), error"),
    ] = None,
    intervened: Annotated[
        bool,
        Query(
            description="only messages the inspector intervened on: held, dropped, delayed, edited "
            "(meta.intercept) or sent by it (meta.injected)"
        ),
    ] = False,
    from_ns: Annotated[
        SqlInt | None, Query(description="only messages recorded at or after this time (ns since the epoch)")
    ] = None,
    to_ns: Annotated[
        SqlInt | None, Query(description="only messages recorded at or before this time (ns)")
    ] = None,
) -> MessageFilter:
    """The filter query parameters shared by the message routes."""
    return MessageFilter(
        direction=direction,
        kinds=tuple(kind or ()),
        channels=tuple(channel or ()),
        methods=tuple(m for m in method or () if m),
        text=q.strip() if q and q.strip() else None,
        findings=findings,
        intervened=intervened,
        since_ns=from_ns,
        until_ns=to_ns,
    )


Filter = Annotated[MessageFilter, Depends(message_filter)]


async def _session_exists(request: Request, session_id: SqlInt) -> None:
    await run_query(get_session, state_of(request).engine, session_id)


@router.get("/messages", response_model=MessagePage, summary="A page of messages in seq order")
async def messages_route(
    request: Request,
    session_id: SqlInt,
    flt: Filter,
    cursor: Annotated[str | None, Query(description="next_cursor / prev_cursor of an earlier page")] = None,
    after_seq: Annotated[SqlInt | None, Query(description="rows after this seq")] = None,
    before_seq: Annotated[
        SqlInt | None, Query(ge=1, description="rows before this seq (the last ones first)")
    ] = None,
    offset: Annotated[SqlInt, Query(description="skip this many matching rows")] = 0,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
    count: Annotated[bool, Query(description="also count every matching row (total)")] = False,
) -> Response:
    if cursor is not None:
        way, seq = decode_cursor(cursor)
        after_seq, before_seq = (seq, None) if way == "a" else (None, seq)
    # One worker-thread hop: the session's existence, the page and the count (store/pages.py).
    rows, total = await run_query(
        message_page,
        state_of(request).engine,
        session_id,
        flt,
        after_seq=after_seq,
        before_seq=before_seq,
        offset=offset,
        limit=limit,
        count=count,
    )
    page: dict[str, Any] = {
        "items": rows,
        "next_cursor": encode_cursor("a", rows[-1]["seq"]) if len(rows) == limit else None,
        "prev_cursor": encode_cursor("b", rows[0]["seq"]) if rows and rows[0]["seq"] > 1 else None,
        "total": total,
    }
    if before_seq is not None and len(rows) < limit:
        page["prev_cursor"] = None
        page["next_cursor"] = encode_cursor("a", rows[-1]["seq"]) if rows else None
    elif before_seq is not None and rows:
        page["next_cursor"] = encode_cursor("a", rows[-1]["seq"])
    return json_response(page)


@router.get("/messages/{seq}", response_model=MessageWithPair, summary="One message with its pair")
async def message_route(request: Request, session_id: SqlInt, seq: SqlInt) -> Response:
    engine = state_of(request).engine
    await _session_exists(request, session_id)
    found = await run_query(get_message, engine, session_id, seq)
    pair = await run_query(pair_of, engine, found)
    meta = found.meta if isinstance(found.meta, dict) else {}
    related = await run_query(
        rows_by_seq, engine, session_id, [meta.get("related_seq")] if "related_seq" in meta else []
    )
    if pair is not None and pair.seq > found.seq:
        # Progress and cancel notifications of a request arrive between it and its answer.
        between = await run_query(
            message_rows,
            engine,
            session_id,
            MessageFilter(kinds=("notification",)),
            after_seq=found.seq,
            before_seq=pair.seq,
            limit=2000,
        )
        related += [
            r for r in between if isinstance(r["meta"], dict) and r["meta"].get("related_seq") == found.seq
        ]
    mark = mark_of(meta) or injected_of(meta)
    doc = {
        "message": message_detail(found),
        "pair": (await run_query(rows_by_seq, engine, session_id, [pair.seq]))[0] if pair else None,
        "related": related,
        "intervention": await run_query(intervention_rows, engine, session_id, mark.get("n")) if mark else [],
        "routing": await run_query(message_routing, engine, session_id, found),
    }
    return json_response(doc)


@router.get(
    "/messages/{seq}/raw",
    summary="The exact bytes of one message",
    response_class=Response,
    responses={200: {"content": {"application/octet-stream": {}}}},
)
async def raw_route(request: Request, session_id: SqlInt, seq: SqlInt) -> Response:
    await _session_exists(request, session_id)
    found = await run_query(get_message, state_of(request).engine, session_id, seq)
    return Response(
        found.raw,
        media_type="application/octet-stream",
        headers={"content-disposition": f'attachment; filename="session{session_id}-msg{seq}.bin"'},
    )


@router.get(
    "/messages/{seq}/position", response_model=Position, summary="Where a message sits under a filter"
)
async def position_route(request: Request, session_id: SqlInt, seq: SqlInt, flt: Filter) -> Response:
    engine = state_of(request).engine
    await _session_exists(request, session_id)
    await run_query(get_message, engine, session_id, seq)
    index = await run_query(count_messages, engine, session_id, flt, before_seq=seq)
    first = await run_query(message_rows, engine, session_id, flt, after_seq=seq - 1, limit=1)
    matches = bool(first) and first[0]["seq"] == seq
    return json_response({"seq": seq, "index": index, "matches": matches})


@router.get("/exchanges", response_model=list[HttpExchangeOut], summary="HTTP exchanges with their messages")
async def exchanges_route(
    request: Request, session_id: SqlInt, limit: Annotated[int, Query(ge=1, le=100_000)] = 20_000
) -> Response:
    engine = state_of(request).engine
    await _session_exists(request, session_id)
    rows = await run_query(
        message_rows, engine, session_id, MessageFilter(channels=HTTP_CHANNELS), limit=limit
    )
    bodies = await run_query(routing_bodies, engine, session_id, rows)
    return json_response(group_exchanges(rows, bodies))
