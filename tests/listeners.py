"""Test helpers for the listener guard: each listener started for real, and what an attacker would send.

- `RecordingUpstream`: a tiny HTTP server that keeps every request it gets (the proxy's
  upstream: "it saw no request" is then a plain list check).
- `forward_marker`: a `--forward-cmd` that creates a marker file when a mock server spawns it.
- `mock_server_http`, `serve_http`, `inspector_proxy`: `mcp-inspect` listeners as subprocesses.
- `BATCH`: the JSON-RPC batch (initialize, initialized, tools/call) a cross-site page posts.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from inspector.capture.sessions import create_session
from inspector.store import open_engine
from tests.http_peers import LineProcess, inspector_proxy
from tests.integration.serve_helpers import serve_http
from tests.warm_peers import demo_argv, inspector_argv

__all__ = [
    "BATCH",
    "INITIALIZE",
    "JSON_HEADERS",
    "RecordingUpstream",
    "empty_recording",
    "forward_marker",
    "inspector_proxy",
    "mock_server_http",
    "serve_http",
    "wait_until",
]

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "attacker", "version": "1"},
    },
}
BATCH = [
    INITIALIZE,
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "run", "arguments": {}}},
]
JSON_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def wait_until(check: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """Poll `check` until it returns something truthy (no fixed sleeps: a deadline)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        threading.Event().wait(0.05)


class RecordingUpstream:
    """An HTTP server on 127.0.0.1 that records each request and answers a JSON-RPC result."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                seen.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": body,
                    }
                )
                data = b'{"jsonrpc":"2.0","id":1,"result":{}}'
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = do_OPTIONS = _answer  # noqa: N815

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # shutdown() waits for serve_forever's next poll: every 0.05 s, not the default 0.5 s
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> RecordingUpstream:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def forward_marker(directory: Path) -> tuple[str, Path]:
    """A `--forward-cmd` that creates `marker` when started (proof that a server was spawned), then
    becomes the demo server (a real MCP server to forward to), forked warm (tests/warm_peers.py: a
    cold `-m inspector.demo` was ~2.4 s of CPU a spawn)."""
    marker = directory / "spawned.marker"
    script = directory / "forward_server.py"
    demo = demo_argv()
    script.write_text(
        f"import os, pathlib\npathlib.Path({str(marker)!r}).touch()\nos.execv({demo[0]!r}, {demo!r})\n"
    )
    return f"{sys.executable} {script}", marker


def empty_recording(db: Path, name: str = "empty") -> str:
    """A recording with no messages: a mock server playing it forwards every request.

    The engine is disposed before returning: a pooled connection closed later (when the garbage
    collector gets to it) checkpoints the WAL and touches the file under a test that watches it."""
    engine = open_engine(db)
    try:
        create_session(engine, kind="http-proxy", target="http://127.0.0.1:9/mcp", name=name)
    finally:
        engine.dispose()
    return name


@contextmanager
def mock_server_http(
    db: Path, ref: str, *extra: str, listen: str = "127.0.0.1:0", warm: bool = False
) -> Iterator[str]:
    """`mcp-inspect mock-server REF --http`; yields its MCP URL. `warm`: forked from the warm server
    (tests/warm_peers.py), without the start-up of a Python of its own."""
    server = LineProcess(
        inspector_argv("mock-server", ref, "--db", str(db), "--http", listen, *extra, warm=warm)
    )
    try:
        yield server.wait_for(r"mock server at (\S+);").group(1)
    finally:
        server.stop()


def batch_as_form_fields() -> tuple[str, str]:
    """The batch split into one text/plain form field: `name=value` gives back the JSON."""
    text = json.dumps(BATCH)
    # A trailing string field swallows the '=' a text/plain form puts between name and value.
    head = text[:-2] + ',"pad":"'
    return head, '"}]'
