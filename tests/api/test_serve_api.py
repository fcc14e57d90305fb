"""The mock server workspace API: a real Python SDK client connected to `mcp-inspect serve`, driven
through the UI server's /api/serve routes (relayed to the serve process's control channel).

`serve --http` runs in this process (`serve_helpers.serving`: the command's composition root, `run_serve`, in a
task of the test's event loop): the same listener, control channel and registration in the runtime
directory, over real sockets, without a Python process of its own. `serve --stdio` stays a process:
the SDK client spawns it (forked from the warm server of tests/warm_peers.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp
import pytest
from mcp import types

from tests.api.conftest import Api
from tests.api.conftest import call_api as _api
from tests.integration.serve_helpers import mock_rows, serving
from tests.warm_peers import inspector_argv

FORM = {
    "message": "Who are you?",
    "requestedSchema": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
        "required": ["name"],
    },
}


@pytest.mark.anyio
async def test_push_requests_to_a_connected_client(fresh_api: Api, runtime: Path) -> None:
    async def elicit(ctx: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Ada", "age": "old"})

    async def roots(ctx: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri="file:///ok")])  # type: ignore[arg-type]

    with anyio.fail_after(90):
        async with (
            serving(fresh_api.db) as url,
            mcp.Client(url, mode="legacy", elicitation_callback=elicit, list_roots_callback=roots) as client,
        ):
            listed = (await _api(fresh_api, "GET", "/api/serve")).json()
            assert listed["processes"] == 1 and len(listed["clients"]) == 1
            served = listed["clients"][0]
            assert served["client"]["clientInfo"]["name"] == "mcp" and served["canPush"]
            assert "elicitation" in served["client"]["capabilities"]
            sid = served["sessionId"]

            pushed = await _api(
                fresh_api,
                "POST",
                f"/api/serve/{sid}/request",
                {"method": "elicitation/create", "params": FORM},
            )
            assert pushed.status_code == 200, pushed.text
            out = pushed.json()
            assert out["answer"]["result"] == {"action": "accept", "content": {"name": "Ada", "age": "old"}}
            assert out["latencyMs"] > 0
            assert [f["rule"] for f in out["findings"]] == ["elicitation.schema"]

            pushed = await _api(fresh_api, "POST", f"/api/serve/{sid}/request", {"method": "roots/list"})
            assert pushed.json()["answer"]["result"]["roots"] == [{"uri": "file:///ok"}]
            assert pushed.json()["findings"] == []

            tool = {
                "tool": {"name": "added_live", "result": {"content": [{"type": "text", "text": "live!"}]}}
            }
            assert (await _api(fresh_api, "PUT", f"/api/serve/{sid}/tools", tool)).status_code == 200
            assert "added_live" in [t.name for t in (await client.list_tools()).tools]
            assert (await client.call_tool("added_live", {})).content[0].text == "live!"  # type: ignore[union-attr]
            removed = await _api(fresh_api, "DELETE", f"/api/serve/{sid}/tools/echo")
            assert "echo" not in [t["name"] for t in removed.json()["tools"]]

            missing = await _api(fresh_api, "POST", "/api/serve/999/request", {"method": "ping"})
            assert missing.status_code == 404
            bad = await _api(
                fresh_api, "PUT", f"/api/serve/{sid}/tools", {"tool": {"description": "no name"}}
            )
            assert bad.status_code == 422 and "name" in bad.json()["detail"]
    rows = mock_rows(fresh_api.db)
    changed = [r for r in rows if r.method == "notifications/tools/list_changed" and r.direction == "s2c"]
    assert len(changed) == 2  # one for the added tool, one for the removed one
    answered = [r for r in rows if r.method == "elicitation/create" and r.direction == "c2s"]
    assert json.loads(answered[0].body)["result"]["content"]["name"] == "Ada"


@pytest.mark.anyio
async def test_control_channel_is_guarded(fresh_api: Api, runtime: Path) -> None:
    async with serving(fresh_api.db):
        reg = json.loads(next(runtime.glob("serve-*.json")).read_text())
        assert (runtime / next(runtime.glob("serve-*.json")).name).stat().st_mode & 0o077 == 0
        async with httpx.AsyncClient(trust_env=False) as http:
            assert (await http.get(reg["url"] + "/sessions")).status_code == 401
            wrong = {"authorization": "Bearer nope"}
            assert (await http.get(reg["url"] + "/sessions", headers=wrong)).status_code == 401
            good = {"authorization": f"Bearer {reg['token']}"}
            assert (await http.get(reg["url"] + "/sessions", headers=good)).status_code == 200
            browser = {**good, "origin": "http://evil.example"}
            assert (await http.get(reg["url"] + "/sessions", headers=browser)).status_code == 403
        no_token = await anyio.to_thread.run_sync(lambda: fresh_api.bare().get("/api/serve"))
        assert no_token.status_code == 401
    assert not list(runtime.glob("serve-*.json"))  # removed when the process stopped


@pytest.mark.anyio
async def test_push_to_a_stdio_client_through_the_control_port(fresh_api: Api, runtime: Path) -> None:
    """A stdio client spawns `mcp-inspect serve --stdio`: the UI still reaches it, via its control port."""
    import os

    async def roots(ctx: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri="file:///stdio/project")])  # type: ignore[arg-type]

    argv = inspector_argv("serve", "--stdio", "--db", str(fresh_api.db))  # forked from the warm server
    env = {"MCP_INSPECTOR_RUNTIME": str(runtime), "PATH": os.environ.get("PATH", "")}
    params = mcp.StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    with anyio.fail_after(90):
        async with mcp.Client(params, mode="legacy", list_roots_callback=roots) as client:
            await client.call_tool("echo", {"text": "x"})
            sid = (await _api(fresh_api, "GET", "/api/serve")).json()["clients"][0]["sessionId"]
            pushed = (
                await _api(fresh_api, "POST", f"/api/serve/{sid}/request", {"method": "roots/list"})
            ).json()
            assert pushed["answer"]["result"]["roots"] == [{"uri": "file:///stdio/project"}]
            log = {"method": "notifications/message", "params": {"level": "info", "data": "from the UI"}}
            assert (await _api(fresh_api, "POST", f"/api/serve/{sid}/notify", log)).status_code == 200
    rows = mock_rows(fresh_api.db)
    assert any(
        r.direction == "s2c" and r.method == "notifications/message" and b"from the UI" in r.raw for r in rows
    )
    assert not list(runtime.glob("serve-*.json"))


@pytest.mark.anyio
async def test_notifications_reach_a_2026_client_on_its_listen_stream(fresh_api: Api, runtime: Path) -> None:
    """2026-07-28 has no channel outside a request, except the client's `subscriptions/listen`
    streams: a notification pushed from the UI goes there (only the kinds the client asked for),
    and without an open stream the API says why it cannot be delivered."""
    from mcp.client.subscriptions import ToolsListChanged

    with anyio.fail_after(90):
        async with serving(fresh_api.db) as url, mcp.Client(url, mode="auto") as client:
            (served,) = (await _api(fresh_api, "GET", "/api/serve")).json()["clients"]
            sid = served["sessionId"]
            assert served["protocolVersion"] == "2026-07-28" and not served["canPush"]
            note = {"method": "notifications/tools/list_changed"}
            refused = await _api(fresh_api, "POST", f"/api/serve/{sid}/notify", note)
            assert refused.status_code == 409 and "subscriptions/listen" in refused.json()["detail"]
            async with client.listen(tools_list_changed=True) as sub:
                pushed = await _api(fresh_api, "POST", f"/api/serve/{sid}/notify", note)
                assert pushed.status_code in (200, 204), pushed.text
                async for event in sub:
                    assert event == ToolsListChanged()
                    break
    rows = mock_rows(fresh_api.db)
    sent = [r for r in rows if r.method == "notifications/tools/list_changed" and r.direction == "s2c"]
    assert len(sent) == 1 and b"io.modelcontextprotocol/subscriptionId" in sent[0].raw
