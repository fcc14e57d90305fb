"""Waterfall routes: a session's requests as spans in a time window (`inspector.store.waterfall`),
and a host run's, one lane per server (session)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from inspector.api.deps import json_response, run_query, state_of
from inspector.api.params import SqlInt
from inspector.api.schemas_waterfall import Waterfall
from inspector.store import get_session
from inspector.store.host_runs import host_run
from inspector.store.waterfall import MAX_BUCKETS, MAX_LIMIT, Window, waterfall

__all__ = ["router"]

router = APIRouter(tags=["waterfall"])

From = Annotated[
    SqlInt | None, Query(description="the window's start (ns since the epoch); default the first row")
]
To = Annotated[SqlInt | None, Query(description="the window's end (ns); default the last row")]
Limit = Annotated[
    int, Query(ge=0, le=MAX_LIMIT, description="spans returned one by one per lane at most; past it, buckets")
]
Slices = Annotated[int, Query(ge=1, le=MAX_BUCKETS, description="the window's slices when aggregated")]


@router.get(
    "/api/sessions/{session_id}/waterfall",
    response_model=Waterfall,
    summary="A session's requests as spans in a time window (aggregated past a limit)",
)
async def session_waterfall_route(
    request: Request,
    session_id: SqlInt,
    from_ns: From = None,
    to_ns: To = None,
    limit: Limit = 1000,
    buckets: Slices = 400,
) -> Response:
    engine = state_of(request).engine
    await run_query(get_session, engine, session_id)
    found = await run_query(waterfall, engine, [session_id], Window(from_ns, to_ns, limit, buckets))
    return json_response(found)


@router.get(
    "/api/host-runs/{run_id}/waterfall",
    response_model=Waterfall,
    summary="A host run's requests as spans, a lane per server (session)",
)
async def host_run_waterfall_route(
    request: Request,
    run_id: SqlInt,
    from_ns: From = None,
    to_ns: To = None,
    limit: Limit = 1000,
    buckets: Slices = 400,
) -> Response:
    engine = state_of(request).engine

    def lanes() -> dict[str, object]:
        run = host_run(engine, run_id)
        ids = [s.id for s in run.sessions if s.id is not None]
        return waterfall(engine, ids, Window(from_ns, to_ns, limit, buckets))

    return json_response(await run_query(lanes))
