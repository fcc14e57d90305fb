"""The browser side: the built single-page UI (any non-API path gets index.html) and offline API docs."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI, HTTPException
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

__all__ = ["STATIC_DIR", "mount_pages"]

STATIC_DIR = Path(__file__).resolve().parent / "static"

_NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>mcp-inspector</title>
<body style="font-family: sans-serif; margin: 3em">
<h1>The web UI is not built</h1>
<p>Run <code>make web</code> (or <code>make</code>) in the mcp-inspector checkout, then reload.
The JSON API works without it: see <a href="/api/docs">/api/docs</a>.</p>"""


def mount_pages(app: FastAPI, static_dir: Path = STATIC_DIR) -> None:
    """Serve the UI from `static_dir` (as `make web` builds it) and the API docs at /api/docs."""
    router = APIRouter(include_in_schema=False)
    index = static_dir / "index.html"
    if (static_dir / "assets").is_dir():
        app.mount("/assets", StaticFiles(directory=static_dir / "assets"), name="assets")
    if (static_dir / "swagger").is_dir():
        app.mount("/swagger", StaticFiles(directory=static_dir / "swagger"), name="swagger")

    @router.get("/api/docs")
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/api/openapi.json",
            title="mcp-inspector API",
            swagger_js_url="/swagger/swagger-ui-bundle.js",
            swagger_css_url="/swagger/swagger-ui.css",
            swagger_favicon_url="/favicon.svg",
        )

    @router.get("/{path:path}")
    async def page(path: str) -> Response:
        if path.startswith("api/"):
            raise HTTPException(404, f"no API route /{path}")
        asset = (static_dir / path).resolve()
        if path and asset.is_file() and asset.is_relative_to(static_dir.resolve()):
            return FileResponse(asset)
        if not index.is_file():
            return HTMLResponse(_NOT_BUILT, status_code=503)
        return FileResponse(index, headers={"cache-control": "no-store"})

    app.include_router(router)
