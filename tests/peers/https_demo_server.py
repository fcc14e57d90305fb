"""The SDK demo MCP server (Streamable HTTP) over HTTPS on uvicorn, for the TLS tests.

    python tests/peers/https_demo_server.py --cert CERT --key KEY [--client-ca CA]

Serves `https://127.0.0.1:PORT/mcp` (any free port) with the given server
certificate; with `--client-ca` a client certificate signed by that CA is
required (mutual TLS). Prints "https demo server listening on URL" on stderr
once it accepts connections.
"""

from __future__ import annotations

import argparse
import socket
import ssl
import sys

import uvicorn

from inspector.demo.server import build_server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--client-ca")
    args = parser.parse_args()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        build_server().streamable_http_app(),
        log_level="warning",
        ssl_certfile=args.cert,
        ssl_keyfile=args.key,
        ssl_ca_certs=args.client_ca,
        ssl_cert_reqs=ssl.CERT_REQUIRED if args.client_ca else ssl.CERT_NONE,
    )
    server = uvicorn.Server(config)
    original = server.startup

    async def startup(sockets: list[socket.socket] | None = None) -> None:
        await original(sockets=sockets)
        print(f"https demo server listening on https://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)

    server.startup = startup  # type: ignore[method-assign]
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
