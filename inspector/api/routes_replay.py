"""Replay, diff and mock-server routes: start a replay job and follow it, diff two sessions,
show the commands that serve a session as a mock server.

Starting a replay spawns a process (or calls a URL) chosen by the caller, so
like every `/api` route it sits behind the `Guard`: the token, and Host and
Origin naming this server. Its body must be JSON (`application/json`), which
a cross-site form cannot send.
"""

from __future__ import annotations

from typing import Annotated, Any, cast

from fastapi import APIRouter, HTTPException, Query, Request, Response

from inspector.api.deps import check_program, json_response, run_query, state_of
from inspector.api.diff_pages import DiffReports
from inspector.api.exchange_view import exchange_view
from inspector.api.mock_commands import free_port, mock_commands
from inspector.api.params import SqlInt
from inspector.api.replay_jobs import ReplayJobs, ignore_set
from inspector.api.schemas_replay import (
    DiffReport,
    DiffSide,
    MockServerCommands,
    ReplayJobOut,
    ReplayRequest,
)
from inspector.store import get_session

__all__ = ["router"]

router = APIRouter(tags=["replay"])

_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "no such session"},
    400: {"description": "bad target or ignore pattern"},
}


def jobs_of(request: Request) -> ReplayJobs:
    return cast(ReplayJobs, request.app.state.replay_jobs)


@router.post(
    "/api/sessions/{session_id}/replay",
    status_code=202,
    response_model=ReplayJobOut,
    summary="Replay a session against a command or URL (a background job), then diff it",
    responses={**_ERRORS, 429: {"description": "too many replays running"}},
)
async def start_replay_route(request: Request, session_id: SqlInt, body: ReplayRequest) -> Response:
    engine = state_of(request).engine
    original = await run_query(get_session, engine, session_id)
    target = body.target.value()
    if isinstance(target, list):
        check_program(target[0])
    await run_query(ignore_set, body.ignore)
    args = {
        "session_id": original.id,
        "target": target,
        "calibrate": body.calibrate,
        "ignore": list(body.ignore),
        "timeout": body.timeout,
        "match": body.match,
        "strict_volatile": body.strict_volatile,
    }
    return jobs_of(request).start_response(args)


@router.get(
    "/api/replays/{job_id}",
    response_model=ReplayJobOut,
    summary="A replay job: running, finished (with its diff report) or failed (with the error)",
    responses={404: {"description": "no such job in this UI process"}},
)
async def replay_job_route(
    request: Request,
    job_id: str,
    wait: Annotated[
        float,
        Query(
            ge=0,
            le=30,
            description="long poll: answer once the job's state or phase changes, or after this many seconds",
        ),
    ] = 0,
) -> Response:
    job = jobs_of(request).get(job_id)
    if job is None:
        raise HTTPException(404, f"no replay job {job_id!r} (jobs are kept until the UI server stops)")
    return await ReplayJobs.follow(job, wait)


DIFF_PAGE = 500  # exchanges listed per page of `/api/diff` unless `limit` says otherwise
MAX_DIFF_PAGE = 5000


@router.get(
    "/api/diff",
    response_model=DiffReport,
    summary="The semantic diff of two recorded sessions (a: original, b: replay)",
    responses=_ERRORS,
)
async def diff_route(
    request: Request,
    a: Annotated[str, Query(description="a session id, `last`, or a name")],
    b: Annotated[str, Query(description="a session id, `last`, or a name")],
    ignore: Annotated[
        list[str] | None, Query(description="extra ignore patterns (repeatable), besides the defaults")
    ] = None,
    strict_volatile: Annotated[
        bool,
        Query(
            description="count values that changed only in clock-like parts (times, dates, ids, "
            "counters) as changes, like `diff --strict-volatile`"
        ),
    ] = False,
    equal: Annotated[
        bool,
        Query(
            description="list the equal exchanges too (by default only those that differ or were "
            "intervened on are listed; `counts` counts every one)"
        ),
    ] = False,
    limit: Annotated[int, Query(ge=1, le=MAX_DIFF_PAGE, description="exchanges listed per page")] = DIFF_PAGE,
    cursor: Annotated[
        str | None,
        Query(max_length=20, description="`next_cursor` of the previous page (the first page without it)"),
    ] = None,
) -> Response:
    engine = state_of(request).engine
    start = 0
    if cursor is not None:
        if not cursor.isdecimal() or not cursor.isascii():
            raise HTTPException(400, "bad cursor: give the next_cursor of a previous page")
        start = int(cursor)
    first = await run_query(get_session, engine, a)
    second = await run_query(get_session, engine, b)
    report = await run_query(
        reports_of(request).page,
        engine,
        first,
        second,
        list(ignore or ()),
        strict_volatile,
        equal=equal,
        start=start,
        limit=limit,
    )
    return json_response(report)


def reports_of(request: Request) -> DiffReports:
    """The app's kept diff reports (made on first use)."""
    found: DiffReports | None = getattr(request.app.state, "diff_reports", None)
    if found is None:
        found = request.app.state.diff_reports = DiffReports()
    return found


@router.get(
    "/api/diff/side",
    response_model=DiffSide,
    summary="One side of a diffed exchange (the JSON its change paths point into)",
    responses={404: {"description": "no such session or message"}},
)
async def diff_side_route(
    request: Request,
    session: Annotated[SqlInt, Query(description="the session id")],
    seq: Annotated[SqlInt, Query(ge=1, description="`original_seq` or `replay_seq` of an exchange")],
) -> Response:
    engine = state_of(request).engine
    await run_query(get_session, engine, session)
    return json_response(await run_query(exchange_view, engine, session, seq))


@router.get(
    "/api/sessions/{session_id}/mock-server",
    response_model=MockServerCommands,
    summary="The commands that serve this session as a mock server (stdio, and HTTP with its URL)",
    responses={404: {"description": "no such session"}},
)
async def mock_server_route(
    request: Request,
    session_id: SqlInt,
    port: Annotated[
        int | None, Query(ge=1, le=65535, description="HTTP port to suggest (default: one free now)")
    ] = None,
) -> Response:
    engine = state_of(request).engine
    found = await run_query(get_session, engine, session_id)
    return json_response(mock_commands(engine, found, port or free_port()))
