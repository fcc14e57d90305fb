"""The browser side: the built single-page UI (any non-API path gets index.html) and offline API docs.

The docs page lives at /docs, outside /api: a page cannot send the token with its
own request, so it loads without one and Swagger UI (`docs.js`, from web/public)
sends the tab's token as a header on each request it makes, the spec's included.
"""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import APIRouter, FastAPI, HTTPException
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.types import Scope

__all__ = ["STATIC_DIR", "mount_pages"]

STATIC_DIR = Path(__file__).resolve().parent / "static"

_NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>mcp-inspector</title>
<body>
<h1>The web UI is not built</h1>
<p>Run <code>make web</code> (or <code>make</code>) in the mcp-inspector checkout, then reload.
The JSON API works without it: see <code>/api/openapi.json</code> (with the token).</p>"""

# No inline script or style (the Content-Security-Policy allows none): docs.js starts Swagger UI.
_DOCS = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mcp-inspector API</title>
<link rel="icon" type="image/svg+xml" href="/favicon.svg">
<link rel="stylesheet" href="/swagger/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/swagger/swagger-ui-bundle.js"></script><script src="/docs.js"></script></body></html>"""


# What the built page loads before it can render: its head script (a classic script: web/src/first/
# prime.ts), its module scripts (the entry and the chunks it preloads) and its stylesheets, as Vite
# writes them into index.html.
_LOADS = re.compile(
    r'<script src="(?P<classic>/assets/[^"]+)"'
    r'|<script type="module"[^>]*\ssrc="(?P<module>/assets/[^"]+)"'
    r'|<link rel="modulepreload"[^>]*\shref="(?P<preload>/assets/[^"]+)"'
    r'|<link rel="stylesheet"[^>]*\shref="(?P<style>/assets/[^"]+)"'
)


def preload_links(html: str) -> str:
    """The `Link` header naming what `html` loads at start, so the browser asks for it with the
    response's headers rather than once it has the page and has parsed up to it."""
    links = []
    for m in _LOADS.finditer(html):
        if m["classic"]:  # fetched without CORS, as the <script> tag will ask for it
            links.append(f"<{m['classic']}>; rel=preload; as=script")
        elif m["style"]:
            links.append(f"<{m['style']}>; rel=preload; as=style; crossorigin")
        else:
            links.append(f"<{m['module'] or m['preload']}>; rel=modulepreload; crossorigin")
    return ", ".join(links)


def _index_response(index: Path) -> Response:
    """The page itself: read whole and sent in one piece (a `FileResponse` sent its headers, then
    its body from a worker thread: the body, which names the scripts, came ~17 ms after them on a
    new tab), never kept by the browser (a new build must be seen at once), with `preload_links`."""
    body = index.read_bytes()
    headers = {"cache-control": "no-store"}
    links = preload_links(body.decode("utf-8", "replace"))
    if links:
        headers["link"] = links
    return HTMLResponse(body, headers=headers)


class _HashedAssets(StaticFiles):
    """The build's assets: their names carry a hash of their content, so a browser keeps them
    without asking again (a page load then waits for no revalidation of its scripts)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code == 200:
            response.headers["cache-control"] = "public, max-age=31536000, immutable"
        return response


def mount_pages(app: FastAPI, static_dir: Path = STATIC_DIR) -> None:
    """Serve the UI from `static_dir` (as `make web` builds it) and the API docs at /docs."""
    router = APIRouter(include_in_schema=False)
    index = static_dir / "index.html"
    if (static_dir / "assets").is_dir():
        app.mount("/assets", _HashedAssets(directory=static_dir / "assets"), name="assets")
    if (static_dir / "swagger").is_dir():
        app.mount("/swagger", StaticFiles(directory=static_dir / "swagger"), name="swagger")

    @router.get("/api/docs")
    async def old_docs() -> RedirectResponse:
        return RedirectResponse("/docs", status_code=308)

    @router.get("/docs")
    async def docs() -> HTMLResponse:
        if not (static_dir / "docs.js").is_file():
            return HTMLResponse(_NOT_BUILT, status_code=503)
        return HTMLResponse(_DOCS, headers={"cache-control": "no-store"})

    @router.get("/{path:path}")
    async def page(path: str) -> Response:
        if path.startswith("api/"):
            raise HTTPException(404, f"no API route /{path}")
        asset = (static_dir / path).resolve()
        if path and asset.is_file() and asset.is_relative_to(static_dir.resolve()):
            return FileResponse(asset)
        try:
            return _index_response(index)
        except OSError:  # not built (or being built again)
            return HTMLResponse(_NOT_BUILT, status_code=503)

    app.include_router(router)
