"""Search route: full-text search over every session or one, paged by message id.

The index is kept as rows arrive (store/fts.py on SQLite, the `fts` column on PostgreSQL): a
search only reads it, walking it in id order and stopping after a page of hits."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from inspector.api.deps import decode_cursor, encode_cursor, json_response, run_query, state_of
from inspector.api.params import SqlInt
from inspector.api.schemas_search import SearchPageOut
from inspector.store import get_session
from inspector.store.search import search_page

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["search"])


@router.get("/search", response_model=SearchPageOut, summary="Full-text search over all sessions or one")
async def search_route(
    request: Request,
    q: Annotated[
        str,
        Query(
            min_length=1,
            max_length=1000,
            description="words that must all appear (each taken literally), or with `syntax=true` the "
            "backend's query syntax: FTS5's on SQLite, websearch_to_tsquery's on PostgreSQL",
        ),
    ],
    session_id: Annotated[SqlInt | None, Query(description="only this session's messages")] = None,
    limit: Annotated[int, Query(ge=1, le=200, description="hits per page")] = 50,
    cursor: Annotated[str | None, Query(description="next_cursor of an earlier page")] = None,
    syntax: Annotated[bool, Query(description="read `q` in the backend's query syntax")] = False,
) -> Response:
    engine = state_of(request).engine
    if session_id is not None:
        await run_query(get_session, engine, session_id)
    after_id = 0
    if cursor is not None:
        _, after_id = decode_cursor(cursor)
    page = await run_query(
        search_page, engine, q, session_id=session_id, limit=limit, after_id=after_id, syntax=syntax
    )
    return json_response(
        {
            "query": q,
            "session_id": session_id,
            "hits": page.hits,
            "next_cursor": encode_cursor("a", page.next_after_id) if page.next_after_id is not None else None,
            "total": page.total,
            "total_exact": page.total_exact,
        }
    )
