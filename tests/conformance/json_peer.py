"""A scripted Streamable HTTP peer for client tests: a stdlib HTTP server on a thread whose answer to
each POST is what `answer(request, headers)` returns, `(status, JSON body)`; it keeps every request it
got (`peer.requests`: (JSON-RPC message, lower-cased headers)). For what one conformance scenario asks
of a client, without Node: the scenario's server in a few lines.

    with json_peer(answer) as peer:
        ...  # connect to peer.url
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Peer", "json_peer"]

Answer = Callable[[dict[str, Any], dict[str, str]], "tuple[int, Any] | None"]


@dataclass
class Peer:
    url: str
    requests: list[tuple[dict[str, Any], dict[str, str]]] = field(default_factory=list)

    def methods(self) -> list[str]:
        return [str(m.get("method")) for m, _ in self.requests]


@contextlib.contextmanager
def json_peer(answer: Answer) -> Iterator[Peer]:
    """Serve `answer` on 127.0.0.1 (a free port) for the block; None from `answer`: 202, no body."""
    peer = Peer("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            message = json.loads(body)
            headers = {k.lower(): v for k, v in self.headers.items()}
            peer.requests.append((message, headers))
            found = answer(message, headers)
            if found is None:
                self.send_response(202)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            status, reply = found
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            self.send_response(405)
            self.send_header("content-length", "0")
            self.end_headers()

        do_DELETE = do_GET  # noqa: N815

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    peer.url = f"http://127.0.0.1:{server.server_address[1]}/mcp"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield peer
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
