"""Live feed route: its status (the feed itself is the `/api/live` websocket, in app.py)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from inspector.api.deps import state_of
from inspector.api.schemas_live import LiveStatus

__all__ = ["router"]

router = APIRouter(prefix="/api/live", tags=["live"])


@router.get("/status", response_model=LiveStatus, summary="How the live feed learns of changes")
async def live_status_route(request: Request) -> LiveStatus:
    return state_of(request).feed.status()
