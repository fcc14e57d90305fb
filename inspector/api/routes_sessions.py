"""Session routes: list with filters, detail, rename and labels, delete, methods seen."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Request, Response

from inspector.api.deps import json_response, run_query, state_of
from inspector.api.params import SqlInt, epoch_ns
from inspector.api.schemas import SessionDeleted, SessionList, SessionOut, SessionPatch, SessionUpdated
from inspector.api.views import session_out
from inspector.store import get_session, session_state
from inspector.store.notify import announce
from inspector.store.pages import method_counts
from inspector.store.queries import SessionFilter, delete_session, find_sessions, update_session

__all__ = ["router"]

router = APIRouter(prefix="/api/sessions", tags=["sessions"])

SessionRef = Annotated[str, "a session id, or `last`"]


@router.get("", response_model=SessionList, summary="List sessions, newest first")
async def list_sessions_route(
    request: Request,
    name: Annotated[str | None, Query(description="the name contains this (any case)")] = None,
    kind: Annotated[str | None, Query(description="stdio-wrap, http-proxy, ...")] = None,
    state: Literal["recording", "ended", "interrupted"] | None = None,
    started_after: Annotated[datetime | None, Query(description="ISO 8601; started at or after")] = None,
    started_before: Annotated[datetime | None, Query(description="ISO 8601; started before")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[SqlInt, Query()] = 0,
) -> Response:
    flt = SessionFilter(name, kind, state, epoch_ns(started_after), epoch_ns(started_before))
    found, total = await run_query(find_sessions, state_of(request).engine, flt, limit=limit, offset=offset)
    return json_response(
        {"items": [session_out(s) for s in found], "total": total, "offset": offset, "limit": limit}
    )


@router.get("/{session_id}", response_model=SessionOut, summary="One session (`last` for the newest)")
async def get_session_route(request: Request, session_id: SessionRef) -> Response:
    found = await run_query(get_session, state_of(request).engine, session_id)
    return json_response(session_out(found))


@router.patch("/{session_id}", response_model=SessionOut, summary="Rename a session, set its labels, pin it")
async def patch_session_route(request: Request, session_id: SqlInt, patch: SessionPatch) -> Response:
    app = state_of(request)
    labels = None if patch.labels is None else [label.strip() for label in patch.labels if label.strip()]
    found = await run_query(
        update_session, app.engine, session_id, name=patch.name, labels=labels, pinned=patch.pinned
    )
    doc = session_out(found)
    app.feed.publish(SessionUpdated.model_validate({"session": doc}))
    await run_query(announce, app.engine, "changed", [session_id])  # other `ui`s (PostgreSQL)
    return json_response(doc)


@router.delete(
    "/{session_id}",
    status_code=204,
    summary="Delete a session and its messages",
    responses={409: {"description": "the session is still recording"}},
)
async def delete_session_route(request: Request, session_id: SqlInt) -> Response:
    app = state_of(request)
    found = await run_query(get_session, app.engine, session_id)
    if session_state(found) == "recording":
        raise HTTPException(409, f"session {session_id} is still recording; stop it first")
    await run_query(delete_session, app.engine, session_id)
    app.feed.publish(SessionDeleted(session_id=session_id))
    await run_query(announce, app.engine, "deleted", [session_id])  # other `ui`s (PostgreSQL)
    return Response(status_code=204)


@router.get("/{session_id}/methods", response_model=dict[str, int], summary="Methods seen, with counts")
async def methods_route(request: Request, session_id: SqlInt) -> Response:
    engine = state_of(request).engine
    await run_query(get_session, engine, session_id)
    return json_response(await run_query(method_counts, engine, session_id))
