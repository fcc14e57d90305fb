"""Stats route: a session's numbers per method and name, its tools/list sizes, and what the UI's
Overview tab draws (`inspector.store.stats`, the computation `mcp-inspect stats` prints)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from inspector.api.deps import json_response, run_query, state_of
from inspector.api.params import SqlInt
from inspector.api.schemas_stats import SessionStats
from inspector.store import get_session
from inspector.store.stats import session_stats

__all__ = ["router"]

router = APIRouter(prefix="/api/sessions/{session_id}", tags=["stats"])


@router.get("/stats", response_model=SessionStats, summary="A session's numbers per method and name")
async def stats_route(request: Request, session_id: SqlInt) -> Response:
    engine = state_of(request).engine
    await run_query(get_session, engine, session_id)
    found = await run_query(session_stats, engine, session_id, overview=True)
    return json_response({"session_id": session_id, **found})
