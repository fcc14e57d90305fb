"""`serve --http` answers the 2026-07-28 (stateless, SEP-2575) wire as the revision asks. Issue #38:
the conformance suite's `server-stateless` scenario passed 9 of 28 checks: a request without
_meta (or without its protocol version or client capabilities) was served (must be -32602 with
HTTP 400); a _meta version unlike the MCP-Protocol-Version header got -32022 with 200 (must be
HeaderMismatch -32020 with 400); an unsupported version got 200 and listed handshake revisions;
the methods 2026-07-28 removed (initialize, ping, ...) were served (must be -32601 with 404, as an
unknown method, and a 2026-07-28 `initialize` opened a session: Mcp-Session-Id, which lint flags);
a missing resource got -32002 (2026-07-28 renumbered it to -32602, lint's error-code-renumbered);
a capability the client did not declare was asked for anyway (must be -32021
with 400); and log messages went out on a request that set no log level."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest

from inspector.scenario.runner import ServeOptions
from tests.integration.serve_helpers import serving

pytestmark = pytest.mark.anyio

V = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


async def _post(
    client: httpx.AsyncClient, url: str, method: str, params: dict[str, Any], **headers: str
) -> tuple[int, list[Any]]:
    sent = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": V, **headers}
    answer = await client.post(
        url, json={"jsonrpc": "2.0", "id": 7, "method": method, "params": params}, headers=sent
    )
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        frames = [orjson.loads(line[5:]) for line in answer.text.splitlines() if line.startswith("data:")]
    else:
        frames = [answer.json()]
    return answer.status_code, frames


async def test_stateless_requests_get_the_revisions_errors_and_statuses(tmp_path: Path) -> None:
    async with serving(tmp_path / "s.db", ServeOptions(scenario="conformance")) as url:
        with anyio.fail_after(60):
            async with httpx.AsyncClient() as client:
                no_caps = {k: v for k, v in META.items() if not k.endswith("clientCapabilities")}
                for params in ({}, {"_meta": no_caps}):
                    status, frames = await _post(client, url, "server/discover", params)
                    assert (status, frames[-1]["error"]["code"], frames[-1]["id"]) == (400, -32602, 7)
                status, frames = await _post(
                    client,
                    url,
                    "server/discover",
                    {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "v9"}},
                )
                assert (status, frames[-1]["error"]["code"]) == (400, -32020)
                status, frames = await _post(
                    client,
                    url,
                    "server/discover",
                    {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "v9"}},
                    **{"MCP-Protocol-Version": "v9"},
                )
                error = frames[-1]["error"]
                assert (status, error["code"], error["data"]["supported"], error["data"]["requested"]) == (
                    400,
                    -32022,
                    [V],
                    "v9",
                )
                for method in (
                    "initialize",
                    "ping",
                    "logging/setLevel",
                    "resources/subscribe",
                    "unknown/method",
                ):
                    status, frames = await _post(client, url, method, {"_meta": META})
                    assert (status, frames[-1]["error"]["code"]) == (404, -32601), method
                opened = await client.post(
                    url,
                    json={"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {"_meta": META}},
                    headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": V},
                )
                assert opened.status_code == 404 and "mcp-session-id" not in opened.headers
                status, frames = await _post(
                    client, url, "resources/read", {"uri": "test://nothing", "_meta": META}
                )
                assert frames[-1]["error"]["code"] == -32602 and frames[-1]["error"]["data"] == {
                    "uri": "test://nothing"
                }
                call = {"name": "test_missing_capability", "arguments": {}, "_meta": META}
                status, frames = await _post(client, url, "tools/call", call)
                error = frames[-1]["error"]
                assert (status, error["code"], error["data"]) == (
                    400,
                    -32021,
                    {"requiredCapabilities": {"sampling": {}}},
                )
                status, frames = await _post(
                    client, url, "tools/call", {"name": "test_logging_tool", "arguments": {}, "_meta": META}
                )
                assert status == 200 and [f.get("method") for f in frames] == [
                    None
                ]  # the answer, no log message
                logged = {**META, "io.modelcontextprotocol/logLevel": "info"}
                status, frames = await _post(
                    client, url, "tools/call", {"name": "test_logging_tool", "arguments": {}, "_meta": logged}
                )
                assert [f.get("method") for f in frames] == ["notifications/message"] * 2 + [None]
