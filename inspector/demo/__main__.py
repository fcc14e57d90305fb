"""Run the demo MCP server: ``python -m inspector.demo [--transport T] [--port N]``.

``stdio`` (the default) speaks newline-delimited JSON-RPC on stdin/stdout;
``streamable-http`` serves ``http://127.0.0.1:PORT/mcp`` and ``sse`` serves
``http://127.0.0.1:PORT/sse`` (both via uvicorn, bound to 127.0.0.1 only).
"""

from __future__ import annotations

import argparse
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
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="HTTP port (HTTP transports only)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    """Build the demo server and run it on the chosen transport until it is stopped."""
    args = parse_args(argv)
    # The demo deliberately uses deprecated-at-2026 features (logging); don't spam stderr.
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    server = build_server()
    transport: Transport = args.transport
    if transport == "stdio":
        server.run("stdio")
    elif transport == "streamable-http":
        server.run("streamable-http", host=HOST, port=args.port)
    else:
        server.run("sse", host=HOST, port=args.port)


if __name__ == "__main__":
    main()
