"""Run the demo MCP server: ``python -m inspector.demo [--transport T] [--port N]``.

``stdio`` (the default) speaks newline-delimited JSON-RPC on stdin/stdout;
``streamable-http`` serves ``http://127.0.0.1:PORT/mcp`` and ``sse`` serves
``http://127.0.0.1:PORT/sse`` (both via uvicorn, bound to 127.0.0.1 only) and
print ``demo server listening on URL`` on stderr once they accept connections.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import Literal, get_args

from mcp.shared.exceptions import MCPDeprecationWarning

from inspector.demo.server import build_server

Transport = Literal["stdio", "streamable-http", "sse"]
HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(prog="python -m inspector.demo", description=__doc__)
    parser.add_argument("--transport", choices=get_args(Transport), default="stdio")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="HTTP port (HTTP transports only; 0 picks a free one)"
    )
    parser.add_argument(
        "--variant",
        action="store_true",
        help="Serve 'the next version': a changed weather result, no fail tool",
    )
    parser.add_argument(
        "--resumable",
        action="store_true",
        help="Give SSE events ids and keep them, so dropped streams resume with Last-Event-ID (streamable-http)",
    )
    parser.add_argument(
        "--stateless",
        action="store_true",
        help="No MCP sessions: every request stands alone (streamable-http)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    """Build the demo server and run it on the chosen transport until it is stopped."""
    args = parse_args(argv)
    # The demo deliberately uses deprecated-at-2026 features (logging); don't spam stderr.
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    server = build_server(variant=args.variant)
    transport: Transport = args.transport
    if transport == "stdio":
        server.run("stdio")
        return
    from inspector.transports.serve import bind, serve

    sock = bind(HOST, args.port)
    port = sock.getsockname()[1]
    if transport == "streamable-http":
        from inspector.demo.events import MemoryEventStore

        store = MemoryEventStore() if args.resumable else None
        app, url = (
            server.streamable_http_app(event_store=store, stateless_http=args.stateless),
            f"http://{HOST}:{port}/mcp",
        )
    else:
        app, url = server.sse_app(), f"http://{HOST}:{port}/sse"
    serve(app, sock, on_ready=lambda: print(f"demo server listening on {url}", file=sys.stderr, flush=True))


if __name__ == "__main__":
    main()
