"""Regression: the recording proxy forwarded the UI's token cookie upstream.

Browsers that once opened an inspector UI hold `mcp_inspector_token_<port>` for 127.0.0.1 (cookies
ignore ports) and send it with every request to the proxy; `mcp-inspect proxy` passed it on to
whatever it fronts. The proxy now drops the inspector's own cookies from `Cookie` and keeps the
client's other cookies as they were.
"""

from __future__ import annotations

import http.server
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.http_peers import inspector_proxy

TOKEN = "leaky-ui-token-7f3a9c"
JSON_SSE = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


class _Upstream(http.server.BaseHTTPRequestHandler):
    """An upstream MCP-ish endpoint that remembers each request's Cookie headers."""

    cookies: list[list[str]]

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.cookies.append(self.headers.get_all("cookie") or [])
        body = b'{"jsonrpc":"2.0","id":1,"result":{}}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def upstream() -> Iterator[tuple[str, list[list[str]]]]:
    cookies: list[list[str]] = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), type("H", (_Upstream,), {"cookies": cookies}))
    # shutdown() waits for serve_forever's next poll: every 0.05 s, not the default 0.5 s
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/mcp", cookies
    server.shutdown()
    server.server_close()


def _everything_stored(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return repr([conn.execute(f'SELECT * FROM "{t}"').fetchall() for t in tables])


def test_the_proxy_never_forwards_the_inspector_cookie(
    upstream: tuple[str, list[list[str]]], db_path: Path
) -> None:
    target, seen = upstream
    sent = [
        f"mcp_inspector_token_6290={TOKEN}; other=y",
        f"a=1; mcp_inspector_token_7001={TOKEN}; b=2",
        f"mcp_inspector_token_6290={TOKEN}",
        "plain=1",
    ]
    with inspector_proxy(target, db_path, warm=True) as (url, _proxy):
        for i, cookie in enumerate(sent):
            body = f'{{"jsonrpc":"2.0","id":{i},"method":"ping"}}'.encode()
            reply = httpx.post(url, content=body, headers={**JSON_SSE, "cookie": cookie}, timeout=30)
            assert reply.status_code == 200, reply.text
        deadline = time.monotonic() + 20
        while _everything_stored(db_path).count("ping") < len(sent):  # recorded off the forwarding path
            assert time.monotonic() < deadline, "the pings were not recorded"
            time.sleep(0.05)
    assert seen == [["other=y"], ["a=1; b=2"], [], ["plain=1"]]
    assert TOKEN not in _everything_stored(db_path)
