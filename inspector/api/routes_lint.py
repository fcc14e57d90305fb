"""Lint route: a session's conformance findings (linting it first when they are stale)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, Response

from inspector.api.deps import json_response, run_query, state_of
from inspector.api.params import SqlInt
from inspector.api.schemas_lint import SessionFindings
from inspector.lint import SEVERITIES, at_least, findings_of, lint_is_stale
from inspector.store import get_session

__all__ = ["router"]

router = APIRouter(prefix="/api/sessions/{session_id}", tags=["lint"])


@router.get(
    "/findings",
    response_model=SessionFindings,
    summary="Conformance findings of a session (or of one message)",
)
async def findings_route(
    request: Request,
    session_id: SqlInt,
    min_severity: Annotated[
        Literal["error", "warning", "info"], Query(description="only findings at least this severe")
    ] = "info",
    seq: Annotated[SqlInt | None, Query(ge=1, description="only the findings of this message")] = None,
) -> Response:
    engine = state_of(request).engine
    await run_query(get_session, engine, session_id)
    stale = await run_query(lint_is_stale, engine, session_id)
    found = await run_query(findings_of, engine, session_id, seq=seq)
    summary = {s: sum(1 for f in found if f.severity == s) for s in SEVERITIES}
    items = [f.to_json() for f in found if at_least(f.severity, min_severity)]
    return json_response({"session_id": session_id, "items": items, "summary": summary, "relinted": stale})
