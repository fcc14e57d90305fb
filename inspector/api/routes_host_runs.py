"""Host run routes: the runs (the stdio sessions one host process started), one run, and a run's
rows of all its sessions merged by time (store/host_runs.py), paged forward by cursor, and what its
servers' tools/list costs a model together (store/stats.py `tools_cost`)."""

from __future__ import annotations

import base64
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request, Response
from pydantic import TypeAdapter

from inspector.api.deps import json_response, run_query, state_of
from inspector.api.params import SqlInt
from inspector.api.schemas_host_runs import HostRunList, HostRunOut, HostRunTimeline, HostRunTools
from inspector.api.views import session_out
from inspector.store.host_runs import HostRun, TimelineCursor, host_run, host_runs, run_timeline
from inspector.store.stats import tools_cost

__all__ = ["router"]

router = APIRouter(prefix="/api/host-runs", tags=["host runs"])

_INT: TypeAdapter[int] = TypeAdapter(SqlInt)


def _run_out(run: HostRun) -> dict[str, object]:
    return {**run.summary(), "sessions": [session_out(s) for s in run.sessions]}


def encode_cursor(ts_ns: int, session_id: int, seq: int) -> str:
    """An opaque cursor: the rows after this (time, session, seq)."""
    return base64.urlsafe_b64encode(f"t:{ts_ns}:{session_id}:{seq}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> TimelineCursor:
    """The (time, session, seq) of a cursor; a 400 answer for anything else."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        tag, ts, sid, seq = text.split(":")
        if tag != "t":
            raise ValueError(text)
        return _INT.validate_strings(ts), _INT.validate_strings(sid), _INT.validate_strings(seq)
    except (ValueError, UnicodeDecodeError):
        raise HTTPException(
            400, f"bad cursor {cursor!r}: pass a next_cursor or last_cursor given by the API"
        ) from None


@router.get("", response_model=HostRunList, summary="Host runs, newest first (live ones included)")
async def host_runs_route(
    request: Request,
    name: Annotated[str | None, Query(description="a session's name contains this (any case)")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[SqlInt, Query()] = 0,
) -> Response:
    runs, total = await run_query(host_runs, state_of(request).engine, limit=limit, offset=offset, name=name)
    return json_response(
        {"items": [_run_out(r) for r in runs], "total": total, "offset": offset, "limit": limit}
    )


@router.get("/{run_id}", response_model=HostRunOut, summary="One host run (any of its session ids names it)")
async def host_run_route(request: Request, run_id: SqlInt) -> Response:
    return json_response(_run_out(await run_query(host_run, state_of(request).engine, run_id)))


@router.get(
    "/{run_id}/timeline",
    response_model=HostRunTimeline,
    summary="A page of a run's rows of all its sessions, by time (stderr lines included)",
)
async def host_run_timeline_route(
    request: Request,
    run_id: SqlInt,
    cursor: Annotated[str | None, Query(description="next_cursor / last_cursor of an earlier page")] = None,
    session: Annotated[
        list[SqlInt] | None, Query(description="only these sessions of the run (a filter per server)")
    ] = None,
    channel: Annotated[list[str] | None, Query(description="stdin, stdout, stderr, ...")] = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
) -> Response:
    after = decode_cursor(cursor) if cursor is not None else None
    engine = state_of(request).engine

    def page() -> list[dict[str, object]]:
        run = host_run(engine, run_id)
        ids = [s.id for s in run.sessions if s.id is not None and (not session or s.id in session)]
        return run_timeline(engine, ids, after=after, channels=tuple(channel or ()), limit=limit)

    rows = await run_query(page)
    last = encode_cursor(rows[-1]["ts_ns"], rows[-1]["session_id"], rows[-1]["seq"]) if rows else None
    return json_response(
        {"items": rows, "next_cursor": last if len(rows) == limit else None, "last_cursor": last}
    )


@router.get(
    "/{run_id}/tools",
    response_model=HostRunTools,
    summary="What the tools/list of a run's servers costs a model, per server and together",
)
async def host_run_tools_route(request: Request, run_id: SqlInt) -> Response:
    engine = state_of(request).engine

    def cost() -> dict[str, object]:
        run = host_run(engine, run_id)
        return {"run_id": run.id, **tools_cost(engine, [s.id for s in run.sessions if s.id is not None])}

    return json_response(await run_query(cost))
