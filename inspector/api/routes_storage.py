"""The storage route: what the recordings cost (database size, free space, each session's size), the
retention policy in force with the source of each value, and what it removes next (its dry run)."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from sqlalchemy import Engine

from inspector.api.deps import json_response, run_query, state_of
from inspector.api.schemas_storage import StorageView
from inspector.errors import InspectorError

__all__ = ["router"]

router = APIRouter(tags=["storage"])


def storage_view(engine: Engine, limit: int) -> dict[str, Any]:
    """The `StorageView` document (reads the settings, the sessions and their sizes; changes nothing)."""
    from inspector import settings
    from inspector.prune import policy_values
    from inspector.store.engine import store_name
    from inspector.store.retention import choose, session_infos
    from inspector.store.usage import store_usage

    error = None
    try:
        effective = settings.load()
    except InspectorError as exc:  # a broken config file: shown, and no policy applied here
        error, effective = str(exc), settings.Effective(settings.Settings())
    retention = effective.settings.retention
    usage = store_usage(engine)
    infos = session_infos(engine)
    planned = choose(infos, retention, time.time_ns(), usage.used_bytes)
    goes = {c.id: c.reason for c in planned.remove}
    sessions = []
    for s in sorted(infos, key=lambda s: (-s.bytes, s.id))[:limit]:
        kept = None
        if s.pinned:
            kept = "pinned"
        elif s.labelled and retention.keep_labelled:
            kept = "labelled"
        elif s.live:
            kept = "recording"
        sessions.append(
            {
                "id": s.id,
                "name": s.name,
                "started_ns": s.started_ns,
                "bytes": s.bytes,
                "pinned": s.pinned,
                "labelled": s.labelled,
                "state": s.state,
                "kept": kept,
                "goes": goes.get(s.id),
            }
        )
    return {
        "store": store_name(engine),
        "backend": usage.backend,
        "file_bytes": usage.file_bytes,
        "used_bytes": usage.used_bytes,
        "free_bytes": usage.free_bytes,
        "auto_vacuum": usage.auto_vacuum,
        "policy_active": retention.active,
        "policy": policy_values(effective),
        "policy_error": error,
        "sessions": sessions,
        "sessions_total": len(infos),
        "next": [
            {"id": c.id, "name": c.name, "started_ns": c.started_ns, "bytes": c.bytes, "reason": c.reason}
            for c in planned.remove
        ],
        "next_bytes": planned.remove_bytes,
        "after_bytes": planned.after_bytes,
    }


@router.get(
    "/api/storage",
    response_model=StorageView,
    summary="Database size, per-session sizes, the retention policy in force and what it removes next",
)
async def storage_route(
    request: Request,
    limit: Annotated[int, Query(ge=1, le=5000, description="sessions listed, biggest first")] = 500,
) -> Response:
    return json_response(await run_query(storage_view, state_of(request).engine, limit))
