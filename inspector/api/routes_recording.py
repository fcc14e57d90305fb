"""Pause and resume the recording of a live session from the UI (`inspector/recording_control.py`).

`POST /api/sessions/{id}/recording` with `{"paused": true|false}` signals the
process that records the session (it must run on this host and be
announced in the runtime directory); the answer is the session as it is
then. Behind the same guard as every route (token, loopback Host, Origin,
JSON body). A session that cannot be switched (ended, recorded elsewhere,
its process gone) is a 409 with the reason.
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict

from inspector.api.deps import json_response, run_query, state_of
from inspector.api.params import SqlInt
from inspector.api.schemas import SessionOut, SessionUpdated
from inspector.api.views import session_out
from inspector.errors import InspectorError, NotFoundError
from inspector.store import get_session

__all__ = ["router"]

router = APIRouter(prefix="/api/sessions", tags=["sessions"])


class RecordingSwitch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    paused: bool


def _switch(engine: object, session_id: int, paused: bool) -> object:
    from inspector.recording_control import switch_session

    try:
        switch_session(engine, session_id, paused)
    except NotFoundError:
        raise
    except InspectorError as exc:
        raise HTTPException(409, str(exc)) from None
    return get_session(engine, session_id)  # type: ignore[arg-type]


@router.post(
    "/{session_id}/recording",
    response_model=SessionOut,
    summary="Pause or resume recording a live session (bytes keep flowing)",
    responses={
        409: {"description": "the session has ended, is recorded on another host, or its process is gone"}
    },
)
async def recording_route(request: Request, session_id: SqlInt, switch: RecordingSwitch) -> Response:
    app = state_of(request)
    found = await run_query(_switch, app.engine, session_id, switch.paused)
    doc = session_out(found)
    app.feed.publish(SessionUpdated.model_validate({"session": doc}))
    return json_response(doc)
