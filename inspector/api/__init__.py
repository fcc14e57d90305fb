"""The HTTP + websocket API and the web UI server (FastAPI, uvicorn).

`create_app` builds the ASGI app; `UiServer` binds, guards and serves it;
`serve` is `mcp-inspect ui`.
"""

from inspector.api.app import create_app
from inspector.api.server import UiServer, serve

__all__ = ["UiServer", "create_app", "serve"]
