"""The FastAPI application: routes, the security guard, the live feed's lifespan, the static UI."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, WebSocket
from fastapi.openapi.utils import get_openapi
from sqlalchemy import Engine

from inspector.api import (
    routes_apps,
    routes_auth,
    routes_client,
    routes_client_work,
    routes_client_workspace,
    routes_conversations,
    routes_host_runs,
    routes_intercept,
    routes_lint,
    routes_live,
    routes_messages,
    routes_recording,
    routes_replay,
    routes_search,
    routes_serve,
    routes_serve_processes,
    routes_sessions,
    routes_share,
    routes_skills,
    routes_stats,
    routes_storage,
    routes_versions,
    routes_waterfall,
)
from inspector.api.clients import ClientManager
from inspector.api.deps import AppState
from inspector.api.headers import SecurityHeaders
from inspector.api.live import LiveFeed, serve_listener
from inspector.api.replay_jobs import ReplayJobs
from inspector.api.routes_pages import STATIC_DIR, mount_pages
from inspector.api.schemas import LiveEvent
from inspector.api.security import Guard
from inspector.api.serve_processes import ServeProcesses
from inspector.api.versions_jobs import VersionsJobs
from inspector.guard import ListenerGuard

__all__ = ["create_app"]

DESCRIPTION = """Browse recorded MCP sessions.

Every `/api` call needs the access token printed at start (the URL's
`#token=` part): an `Authorization: Bearer` header, or `?token=` in scripts.
The websocket `/api/live` takes the same, or the subprotocols `mcp-inspector`
and `bearer.<token>` (what browsers use); it sends the `LiveEvent` events (see
the schemas); send `{"type": "subscribe", "session_id": N}` to get that
session's new messages."""


def create_app(
    engine: Engine,
    *,
    token: str,
    hosts: Iterable[str],
    static_dir: Path = STATIC_DIR,
    live_interval: float = 0.15,
) -> Any:
    """The ASGI app: the FastAPI app behind the listener guard (Host, Origin) and the token `Guard`,
    every answer (refusals included) with the browser hardening headers."""
    feed = LiveFeed(engine, interval=live_interval)
    clients = ClientManager(engine, feed)
    serve_processes = ServeProcesses(engine)
    auth_flows = routes_auth.AuthFlows()

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        task = asyncio.create_task(feed.run())
        try:
            yield
        finally:
            await clients.aclose()
            await auth_flows.aclose()
            await serve_processes.aclose()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    app = FastAPI(
        title="mcp-inspector",
        description=DESCRIPTION,
        version="0.1.0",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
    )
    app.state.inspector = AppState(engine=engine, feed=feed, token=token)
    app.include_router(routes_sessions.router)
    app.include_router(routes_host_runs.router)
    app.include_router(routes_storage.router)
    app.include_router(routes_recording.router)
    app.include_router(routes_messages.router)
    app.include_router(routes_search.router)
    app.include_router(routes_conversations.router)
    app.include_router(routes_lint.router)
    app.include_router(routes_stats.router)
    app.include_router(routes_waterfall.router)
    app.include_router(routes_live.router)
    app.state.replay_jobs = ReplayJobs(engine)
    app.include_router(routes_replay.router)
    app.state.clients = clients
    app.include_router(routes_client.router)
    app.state.serve_processes = serve_processes
    app.include_router(routes_serve_processes.router)
    app.include_router(routes_serve.router)
    app.state.versions_jobs = VersionsJobs(engine)
    app.include_router(routes_versions.router)
    app.include_router(routes_client_work.router)
    app.include_router(routes_client_workspace.router)
    app.state.auth_flows = auth_flows
    app.include_router(routes_auth.router)
    app.include_router(routes_share.router)
    app.include_router(routes_intercept.router)
    app.include_router(routes_apps.router)
    app.include_router(routes_skills.router)

    @app.websocket("/api/live")
    async def live(websocket: WebSocket) -> None:
        await serve_listener(feed, websocket)

    mount_pages(app, static_dir)
    app.openapi = lambda: openapi_schema(app)  # type: ignore[method-assign]
    hosts = list(hosts)
    return SecurityHeaders(ListenerGuard(Guard(app, token=token), hosts=hosts), hosts=hosts)


def openapi_schema(app: FastAPI) -> dict[str, Any]:
    """FastAPI's schema plus the websocket's event types (they appear in no HTTP route)."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    live = LiveEvent.model_json_schema(ref_template="#/components/schemas/{model}")
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components.update(live.pop("$defs", {}))
    components["LiveEvent"] = live
    app.openapi_schema = schema
    return schema
