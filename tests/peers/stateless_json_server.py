"""The SDK demo server in stateless mode with JSON answers (`stateless_http=True, json_response=True`),
over Streamable HTTP: no `Mcp-Session-Id`, every request answered with one JSON body.

    python tests/peers/stateless_json_server.py

Prints "demo server listening on URL" on stderr once it accepts connections.
"""

from __future__ import annotations

import sys

from inspector.demo.server import build_server
from inspector.transports.serve import bind, serve


def main() -> None:
    server = build_server()
    sock = bind("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    app = server.streamable_http_app(stateless_http=True, json_response=True)
    serve(app, sock, on_ready=lambda: print(f"demo server listening on {url}", file=sys.stderr, flush=True))


if __name__ == "__main__":
    main()
