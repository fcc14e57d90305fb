"""Versions routes: start a versions run (a background job), follow it, list past runs, read a matrix.

Starting a run spawns the caller's command (or calls a URL), so the replay
route's rules apply: behind the `Guard` (token, Host, Origin), a JSON body,
and the program checked with `deps.check_program` before anything runs.
"""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import APIRouter, HTTPException, Query, Request, Response

from inspector.api.deps import check_program, json_response, run_query, state_of
from inspector.api.schemas_versions import VersionMatrix, VersionsJobOut, VersionsRequest, VersionsRunOut
from inspector.api.versions_jobs import VersionsJobs
from inspector.store import get_session
from inspector.versions import list_runs, matrix_of_run, parse_revisions

__all__ = ["router"]

router = APIRouter(tags=["versions"])


def jobs_of(request: Request) -> VersionsJobs:
    return cast(VersionsJobs, request.app.state.versions_jobs)


@router.post(
    "/api/versions",
    status_code=202,
    response_model=VersionsJobOut,
    summary="Probe a command or URL once per protocol revision (a background job)",
    responses={
        400: {"description": "bad target"},
        404: {"description": "no such session to replay"},
        429: {"description": "too many runs"},
    },
)
async def start_versions_route(request: Request, body: VersionsRequest) -> Response:
    engine = state_of(request).engine
    target = body.target.value()
    if isinstance(target, list):
        check_program(target[0])
    if body.replay_session_id is not None:
        await run_query(get_session, engine, body.replay_session_id)
    args = {
        "target": target,
        "revisions": body.revisions or parse_revisions(None),
        "timeout": body.timeout,
        "replay_session_id": body.replay_session_id,
    }
    return jobs_of(request).start_response(args)


@router.get(
    "/api/versions/jobs/{job_id}",
    response_model=VersionsJobOut,
    summary="A versions run started here: running, finished or failed",
    responses={404: {"description": "no such job in this UI process"}},
)
async def versions_job_route(
    request: Request,
    job_id: str,
    wait: Annotated[
        float, Query(ge=0, le=30, description="long poll: answer once the job changes, or after this long")
    ] = 0,
) -> Response:
    job = jobs_of(request).get(job_id)
    if job is None:
        raise HTTPException(
            404, f"no versions job {job_id!r} (its matrix stays at /api/versions/runs/{job_id})"
        )
    return await VersionsJobs.follow(job, wait)


@router.get(
    "/api/versions/runs", response_model=list[VersionsRunOut], summary="Past versions runs, newest first"
)
async def versions_runs_route(request: Request, limit: Annotated[int, Query(ge=1, le=500)] = 50) -> Response:
    return json_response(await run_query(list_runs, state_of(request).engine, limit))


@router.get(
    "/api/versions/runs/{run_id}",
    response_model=VersionMatrix,
    summary="The version matrix of a run, rebuilt from its recorded sessions",
    responses={404: {"description": "no such run"}},
)
async def versions_matrix_route(request: Request, run_id: str) -> Response:
    return json_response(await run_query(matrix_of_run, state_of(request).engine, run_id))
