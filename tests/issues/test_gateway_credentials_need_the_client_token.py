"""Regression (issue 33, finding 5): a gateway route with `headers = {X-Api-Key = "${KEY}"}` added
the key to any local process's request (and the LAN's with allow_remote): every local user could
use the configured credentials. Now a route that adds headers answers only requests carrying the
gateway's own client token (`X-MCP-Inspector-Token: TOKEN`, or `?inspector_token=TOKEN`, taken off
before forwarding and recording), kept 0600 in `FILE.token` beside the config; a token file that is
not the user's alone stops the start. `allow_shared_credentials = true` says that every local user
(and with allow_remote, the network) may use them, and the start-up lines say so.

A real gateway process, a real upstream that notes the headers it gets, and the official SDK
client sending the token as a host's configured header would.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import httpx
import mcp
import pytest
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from tests.cli_in_process import run
from tests.gateway_helpers import gateway, route_table, started_lines
from tests.http_peers import demo_http_server
from tests.secrets_scan import secret_leaks

KEY = "route-api-k3y-never-shared"
ENV = {"GW_CRED_KEY": KEY}
HEADER = "X-MCP-Inspector-Token"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


@contextmanager
def noting_upstream() -> Iterator[tuple[str, list[tuple[str, dict[str, str]]]]]:
    """A plain HTTP upstream answering every POST with a JSON-RPC result; yields its /mcp URL and
    the (path, headers) of each request it got."""
    seen: list[tuple[str, dict[str, str]]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
            self.rfile.read(int(self.headers.get("content-length") or 0))
            body = b'{"jsonrpc":"2.0","id":1,"result":{}}'
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # shutdown() waits for serve_forever's next poll: every 0.05 s, not the default 0.5 s
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp", seen
    finally:
        server.shutdown()
        server.server_close()


def _post(url: str, **headers: str) -> httpx.Response:
    return httpx.post(url, json=INIT, headers={"accept": "application/json, text/event-stream", **headers})


def test_a_route_that_adds_credentials_answers_only_with_the_client_token(
    db_path: Path, tmp_path: Path
) -> None:
    with noting_upstream() as (target, seen), noting_upstream() as (plain_target, plain_seen):
        config = (
            'listen = "127.0.0.1:0"\n'
            + route_table("keyed", "/keyed", target, 'headers = { "X-Api-Key" = "${GW_CRED_KEY}" }')
            + route_table("plain", "/plain", plain_target)
        )
        with gateway(config, db_path, tmp_path, env=ENV, warm=True) as (base, proc):
            token_file = tmp_path / "gateway.toml.token"
            token = token_file.read_text().strip()
            assert len(token) >= 32 and (token_file.stat().st_mode & 0o777) == 0o600
            lines = "\n".join(started_lines(proc))
            assert token in lines and HEADER in lines, lines  # a new token is printed once

            refused = _post(f"{base}/keyed/mcp")
            assert refused.status_code == 403, refused.text
            assert HEADER in refused.json()["detail"], refused.text
            wrong = _post(f"{base}/keyed/mcp", **{HEADER: "not-" + token})
            assert wrong.status_code == 403
            assert seen == []  # the upstream never saw those requests, nor the key

            by_header = _post(f"{base}/keyed/mcp", **{HEADER: token})
            by_query = _post(f"{base}/keyed/mcp?inspector_token={token}&x=1")
            assert (by_header.status_code, by_query.status_code) == (200, 200), (
                by_header.text,
                by_query.text,
            )
            assert [path for path, _h in seen] == ["/mcp", "/mcp?x=1"]
            assert all(h.get("x-api-key") == KEY and HEADER.lower() not in h for _p, h in seen), seen

            # A route that adds nothing needs no token.
            assert _post(f"{base}/plain/mcp").status_code == 200
            assert plain_seen and "x-api-key" not in plain_seen[0][1]
    assert secret_leaks(db_path, [token, KEY]) == []


def test_a_kept_token_is_not_printed_again_and_the_sdk_client_sends_it_as_a_header(
    db_path: Path, tmp_path: Path
) -> None:
    with demo_http_server("streamable-http", warm=True) as target:
        config = 'listen = "127.0.0.1:0"\n' + route_table(
            "demo", "/demo", target, 'headers = { "X-Api-Key" = "${GW_CRED_KEY}" }'
        )
        with gateway(config, db_path, tmp_path, env=ENV, warm=True):
            pass
        token = (tmp_path / "gateway.toml.token").read_text().strip()
        with gateway(config, db_path, tmp_path, env=ENV, warm=True) as (base, proc):
            lines = "\n".join(started_lines(proc))
            assert token not in lines and "gateway.toml.token" in lines, lines

            async def call() -> str:
                http = create_mcp_http_client(headers={HEADER: token})
                async with (
                    http,
                    mcp.Client(
                        streamable_http_client(f"{base}/demo/mcp", http_client=http), mode="legacy"
                    ) as c,
                ):
                    result = await c.call_tool("echo", {"text": "with the token"})
                return result.content[0].text  # type: ignore[union-attr]

            async def bounded() -> str:
                with anyio.fail_after(60):
                    return await call()

            assert anyio.run(bounded) == "with the token"
    assert secret_leaks(db_path, [token, KEY]) == []


@pytest.mark.parametrize("mode", [0o644, 0o640])
def test_a_token_file_others_can_read_stops_the_start(tmp_path: Path, mode: int) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text(
        'listen = "127.0.0.1:0"\n'
        + route_table(
            "keyed", "/keyed", "http://127.0.0.1:9/mcp", 'headers = { "X-Api-Key" = "${GW_CRED_KEY}" }'
        )
    )
    token_file = tmp_path / "gateway.toml.token"
    token_file.write_text("a-token-others-can-read-0123456789abcdef\n")
    token_file.chmod(mode)
    done = run("proxy", "--config", str(config), "--db", str(tmp_path / "r.db"), env=ENV)  # in-process
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(token_file) in lines[0] and f"{mode:04o}" in lines[0], lines
    assert not (tmp_path / "r.db").exists()  # refused before anything was opened


def test_allow_shared_credentials_serves_without_a_token_and_says_so(db_path: Path, tmp_path: Path) -> None:
    with noting_upstream() as (target, seen):
        config = 'listen = "127.0.0.1:0"\nallow_shared_credentials = true\n' + route_table(
            "keyed", "/keyed", target, 'headers = { "X-Api-Key" = "${GW_CRED_KEY}" }'
        )
        with gateway(config, db_path, tmp_path, env=ENV, warm=True) as (base, proc):
            lines = "\n".join(started_lines(proc))
            assert "every local user" in lines, lines
            assert _post(f"{base}/keyed/mcp").status_code == 200
            assert seen[0][1].get("x-api-key") == KEY
    assert not (tmp_path / "gateway.toml.token").exists()
    assert json.dumps(seen)  # the upstream's notes are plain data
