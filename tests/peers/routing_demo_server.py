"""The SDK demo server plus one tool whose `region` argument is mirrored into `Mcp-Param-Region`
(`x-mcp-header`, 2026-07-28), over Streamable HTTP, for the routing-header tests.

    python tests/peers/routing_demo_server.py

Prints "demo server listening on URL" on stderr once it accepts connections.
"""

from __future__ import annotations

import sys
from typing import Annotated

from pydantic import Field

from inspector.demo.server import build_server
from inspector.transports.serve import bind, serve


def main() -> None:
    server = build_server()

    @server.tool(structured_output=False, description="A forecast; the region is routed on (x-mcp-header).")
    def forecast(
        region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], days: int = 1
    ) -> str:
        return f"{days} day(s) of sun in {region}"

    sock = bind("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    app = server.streamable_http_app()
    serve(app, sock, on_ready=lambda: print(f"demo server listening on {url}", file=sys.stderr, flush=True))


if __name__ == "__main__":
    main()
