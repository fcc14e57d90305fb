"""Starting `mcp-inspect serve` from the UI's API: a real child process, a real Python SDK client
connecting to the URL the API gives, bad scenarios and taken ports reported with the error text, and
the spawn refused without the token or from another Origin."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp import types

from inspector.store import list_sessions, open_engine
from tests.api.conftest import Api, in_process
from tests.api.conftest import call_api as _api

# The API spawns `mcp-inspect serve` processes: the lane rule of tests/conftest.py reads the tests'
# text, where only the API's request asks for them.
pytestmark = pytest.mark.processes

SCENARIO = """
tools:
  - name: shout
    inputSchema: {type: object, properties: {text: {type: string}}}
    result: {content: [{type: text, text: "{{ arguments.text }}!"}]}
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped) counts as gone.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ", 1)[1].startswith("Z"))


@pytest.mark.anyio
async def test_start_a_scenario_connect_a_client_and_stop(
    fresh_api: Api, runtime: Path, tmp_path: Path
) -> None:
    scenario = tmp_path / "tiny.yaml"
    scenario.write_text(SCENARIO)
    body = {"scenario": str(scenario), "protocolVersions": ["2025-06-18"]}
    started = await _api(fresh_api, "POST", "/api/serve/processes", body)
    assert started.status_code == 201, started.text
    proc = started.json()
    assert proc["state"] == "running" and proc["url"] == f"http://127.0.0.1:{proc['port']}/mcp"
    assert proc["stdio"]["argv"][-6:] == [
        str(scenario),
        "--stdio",
        "--db",
        str(fresh_api.db),
        "--protocol-version",
        "2025-06-18",
    ]
    entry = proc["stdio"]["client_config"]["mcpServers"]["mcp-inspect-serve"]
    assert [entry["command"], *entry["args"]] == proc["stdio"]["argv"]

    async def sample(ctx: Any, params: Any) -> types.CreateMessageResult:
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="hi UI"), model="m"
        )

    with anyio.fail_after(120):
        async with mcp.Client(proc["url"], mode="legacy", sampling_callback=sample) as client:
            assert client.protocol_version == "2025-06-18"
            shouted = await client.call_tool("shout", {"text": "hey"})
            assert shouted.content[0].text == "hey!"  # type: ignore[union-attr]
            listed = (await _api(fresh_api, "GET", "/api/serve")).json()
            assert [c["client"]["clientInfo"]["name"] for c in listed["clients"]] == ["mcp"]
            sid = listed["clients"][0]["sessionId"]
            ask = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}
            pushed = (await _api(fresh_api, "POST", f"/api/serve/{sid}/request", ask)).json()
            assert pushed["answer"]["result"]["content"]["text"] == "hi UI"

    listing = (await _api(fresh_api, "GET", "/api/serve/processes")).json()
    assert [p["id"] for p in listing["processes"]] == [proc["id"]]
    assert listing["db"] == str(fresh_api.db)
    assert listing["builtinStdio"]["argv"][-4:] == ["serve", "--stdio", "--db", str(fresh_api.db)]

    stopped = await _api(fresh_api, "DELETE", f"/api/serve/processes/{proc['id']}")
    assert stopped.status_code == 204
    assert not _alive(proc["pid"])
    assert not list(runtime.glob("serve-*.json"))  # the child removed its control file: a clean stop
    assert (await _api(fresh_api, "GET", "/api/serve/processes")).json()["processes"] == []
    assert (await _api(fresh_api, "DELETE", f"/api/serve/processes/{proc['id']}")).status_code == 404
    sessions = [s for s in list_sessions(open_engine(fresh_api.db)) if s.kind == "mock-server"]
    assert [s.name for s in sessions] == ["serve tiny.yaml"]
    assert sessions[0].status != "recording"  # ended when the process stopped


@pytest.mark.anyio
async def test_bad_scenarios_and_a_taken_port_are_clear_errors(
    fresh_api: Api, runtime: Path, tmp_path: Path
) -> None:
    missing = await _api(fresh_api, "POST", "/api/serve/processes", {"scenario": str(tmp_path / "nope.yaml")})
    assert missing.status_code == 400 and "no scenario file at" in missing.json()["detail"]

    broken = tmp_path / "broken.yaml"
    broken.write_text("tools:\n  - description: no name\n")
    bad = await _api(fresh_api, "POST", "/api/serve/processes", {"scenario": str(broken)})
    assert bad.status_code == 400, bad.text
    assert "broken.yaml" in bad.json()["detail"] and "tools[0].name" in bad.json()["detail"]

    version = await _api(fresh_api, "POST", "/api/serve/processes", {"protocolVersions": ["1999-01-01"]})
    assert version.status_code == 400 and "1999-01-01" in version.json()["detail"]

    extra = await _api(fresh_api, "POST", "/api/serve/processes", {"command": ["sh"]})
    assert extra.status_code == 422  # only the scenario, versions and port are chosen by the caller

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        refused = await _api(fresh_api, "POST", "/api/serve/processes", {"port": port})
    assert refused.status_code == 502, refused.text
    assert f"cannot listen on 127.0.0.1:{port}" in refused.json()["detail"]  # the process's own words
    assert (await _api(fresh_api, "GET", "/api/serve/processes")).json()["processes"] == []


def test_spawn_needs_the_token_and_our_origin_and_the_child_stops_with_the_ui(
    tmp_path: Path, runtime: Path
) -> None:
    ui = in_process(tmp_path / "ui.db")
    api = next(ui)
    port = api.port
    bearer = {"authorization": f"Bearer {api.token}"}
    cookie = {"cookie": f"mcp_inspector_token_{port}={api.token}"}
    attempts = [
        ({}, 401),
        ({"authorization": "Bearer wrong"}, 401),
        (cookie | {"origin": "http://evil.example"}, 403),
        (bearer | {"origin": f"http://127.0.0.1:{port + 1}"}, 403),
        (bearer | {"host": f"rebound.example:{port}"}, 403),
    ]
    with api.bare() as bare:
        for headers, status in attempts:
            answer = bare.post("/api/serve/processes", json={}, headers=headers)
            assert answer.status_code == status, (headers, answer.text)
        assert not list(runtime.glob("serve-*.json"))  # nothing was started
        assert api.http.get("/api/serve/processes").json()["processes"] == []
        # The same request from the UI's own page does start it.
        same_origin = bearer | {"origin": api.base_url}
        started = bare.post("/api/serve/processes", json={}, headers=same_origin)
        assert started.status_code == 201, started.text
    assert len(list(runtime.glob("serve-*.json"))) == 1
    pid = started.json()["pid"]
    assert _alive(pid)
    # The children stop with the UI.
    next(ui, None)  # stops the UI server
    assert not _alive(pid)
    assert not list(runtime.glob("serve-*.json"))
