"""A scripted Streamable HTTP peer for client tests: a stdlib HTTP server on a thread whose answer to
each POST is what `answer(request, headers)` returns, `(status, body)` or `(status, body, headers)`:
a JSON value, or bytes sent as an event stream (`text/event-stream`, closed after them); a GET is answered by `on_get(headers)` the
same way (default, or None: 405). It keeps every POST it got (`peer.requests`: (JSON-RPC message,
lower-cased headers)) and every GET's headers (`peer.gets`). For what one conformance scenario asks
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

Answer = Callable[[dict[str, Any], dict[str, str]], "tuple[Any, ...] | None"]
OnGet = Callable[[dict[str, str]], "tuple[Any, ...] | None"]


@dataclass
class Peer:
    url: str
    requests: list[tuple[dict[str, Any], dict[str, str]]] = field(default_factory=list)
    gets: list[dict[str, str]] = field(default_factory=list)

    def methods(self) -> list[str]:
        return [str(m.get("method")) for m, _ in self.requests]


@contextlib.contextmanager
def json_peer(answer: Answer, on_get: OnGet | None = None) -> Iterator[Peer]:
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
            self._reply(*found)

        def _reply(self, status: int, reply: Any, headers: dict[str, str] | None = None) -> None:
            stream = isinstance(reply, bytes)
            data = reply if stream else json.dumps(reply).encode()
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("content-type", "text/event-stream" if stream else "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            headers = {k.lower(): v for k, v in self.headers.items()}
            peer.gets.append(headers)
            found = on_get(headers) if on_get is not None else None
            if found is not None:
                self._reply(*found)
                return
            self.send_response(405)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_DELETE(self) -> None:  # noqa: N802
            self.send_response(405)
            self.send_header("content-length", "0")
            self.end_headers()

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
