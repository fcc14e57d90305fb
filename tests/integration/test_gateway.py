"""`mcp-inspect proxy --config FILE`: several real upstreams behind one recording listener.

The Python SDK demo server and the SDK's OAuth-protected server (tests/peers/oauth_server.py)
sit behind one gateway under /alpha and /beta; the official Python SDK clients talk to each
path (the OAuth client discovers, registers and gets a token through the gateway's /beta
route). Each route's traffic is recorded as sessions named after the route; a path no route
serves gets a 404 JSON error; a route whose upstream is down does not disturb another; bad config
files are one clear line and exit status 2."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import httpx
import mcp
import pytest
from mcp.client.sse import sse_client

from inspector.api import UiServer
from inspector.errors import InspectorError
from inspector.gateway_config import load_gateway_config
from inspector.store import list_sessions, open_engine
from tests.cli_in_process import run
from tests.gateway_helpers import gateway_in_process, route_table, started_lines
from tests.http_peers import LineProcess, demo_http_server, free_port
from tests.otlp_receiver import otlp_receiver
from tests.secrets_scan import secret_leaks
from tests.shim_process import messages
from tests.warm_peers import inspector_argv, peer_argv


async def _echo(url: str, text: str) -> str:
    async with mcp.Client(url, mode="legacy") as client:
        result = await client.call_tool("echo", {"text": text})
    return result.content[0].text  # type: ignore[union-attr]


def _sessions(db: Path) -> dict[str, list]:
    engine = open_engine(db)
    out: dict[str, list] = {}
    for s in list_sessions(engine):
        out.setdefault(s.name or "", []).append((s, messages(engine, s.id)))
    engine.dispose()
    return out


@pytest.mark.anyio
async def test_two_upstreams_behind_one_gateway_each_recorded_under_its_name(
    db_path: Path, tmp_path: Path
) -> None:
    port = free_port()
    beta_url = f"http://127.0.0.1:{port}/beta/mcp"
    protected = LineProcess(peer_argv("tests.peers.oauth_server", "--audience", beta_url))
    try:
        beta_target = protected.wait_for(r"listening on (\S+)").group(1)
        with demo_http_server("streamable-http", warm=True) as alpha_target:
            config = (
                f'listen = "127.0.0.1:{port}"\nallow_shared_credentials = true\n'
                + route_table("alpha", "/alpha", alpha_target, 'headers = { "X-Route-Key" = "${GW_KEY}" }')
                + route_table("beta", "/beta", beta_target, "rewrite_auth_metadata = true")
            )
            env = {"GW_KEY": "gateway-secret-k3y"}
            with gateway_in_process(config, db_path, tmp_path, env=env) as (base, proc):
                lines = started_lines(proc)
                assert any(f"alpha  /alpha/mcp -> {alpha_target}" in line for line in lines), lines
                assert any(f"beta  /beta/mcp -> {beta_target}" in line for line in lines), lines
                assert all(len(line) <= 80 for line in lines), lines
                with anyio.fail_after(60):
                    assert await _echo(f"{base}/alpha/mcp", "through alpha") == "through alpha"
                oauth = await anyio.to_thread.run_sync(
                    lambda: subprocess.run(
                        peer_argv("tests.peers.oauth_sdk_client", f"{base}/beta/mcp"),
                        capture_output=True,
                        text=True,
                        timeout=60,
                    )
                )
                assert oauth.returncode == 0, oauth.stderr
                granted = json.loads(oauth.stdout.strip().splitlines()[-1])
                missing = httpx.post(f"{base}/gamma/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
                assert missing.status_code == 404
                detail = missing.json()["detail"]
                assert "/alpha" in detail and "/beta" in detail
                assert alpha_target.split("/mcp")[0] not in missing.text
                assert "127.0.0.1:" not in detail
                listed = run("sessions", "--db", str(db_path), "--name", "beta", "--json")
    finally:
        protected.stop()
    found = _sessions(db_path)
    assert set(found) == {"alpha", "beta"}, list(found)
    # alpha: the SDK client's session, its echo call and answer, recorded as the upstream saw them.
    (alpha, alpha_rows), *_ = [(s, rows) for s, rows in found["alpha"] if rows]
    assert alpha.target == alpha_target and alpha.server_info["name"] == "inspector-demo"
    calls = [m for m in alpha_rows if m.method == "tools/call" and m.direction == "c2s"]
    assert calls and b"through alpha" in calls[0].raw
    assert any(m.answers_seq == calls[0].seq and b"through alpha" in m.raw for m in alpha_rows)
    assert {m.http_path for m in alpha_rows if m.channel == "http-request" and m.http_method} == {"/mcp"}
    assert alpha.facts["gateway"] == {"route": "alpha", "prefix": "/alpha", "added_headers": ["x-route-key"]}
    # beta: the OAuth legs through the gateway, the metadata pointed at the gateway's route.
    beta_rows = [m for _s, rows in found["beta"] for m in rows]
    steps = {(m.meta or {}).get("auth_step") for m in beta_rows}
    assert {"unauthorized", "resource-metadata", "as-metadata", "registration", "token-request"} <= steps
    prm = [
        m
        for m in beta_rows
        if (m.meta or {}).get("auth_step") == "resource-metadata" and m.direction == "s2c"
    ]
    assert json.loads(prm[0].meta["rewritten_to"]["body"])["resource"] == beta_url
    assert any(m.method == "tools/call" and b"whoami" in m.raw for m in beta_rows)
    assert all(s.target == beta_target for s, _rows in found["beta"])
    # Nothing secret is stored: the tokens, codes, the client secret, the added header's value.
    assert secret_leaks(db_path, [s for s in granted["secrets"] if s] + ["gateway-secret-k3y"]) == []
    # `sessions --name` lists the route's sessions only.
    assert listed.returncode == 0, listed.stderr
    assert {doc["name"] for doc in json.loads(listed.stdout)} == {"beta"}
    # The UI's API filters by the route's name too.
    ui = UiServer(open_engine(db_path), port=0).start()
    try:
        auth = {"authorization": f"Bearer {ui.token}"}
        page = httpx.get(f"{ui.base_url}/api/sessions", params={"name": "alpha"}, headers=auth).json()
    finally:
        ui.stop()
    assert page["items"] and {item["name"] for item in page["items"]} == {"alpha"}


@pytest.mark.anyio
async def test_an_upstream_that_is_down_does_not_affect_the_other_routes(
    db_path: Path, tmp_path: Path
) -> None:
    """Routes: one to a port nothing listens on, one to the demo server over Streamable HTTP,
    one to the demo server over legacy HTTP+SSE (its relative `endpoint` event is pointed under
    the route's prefix, so the client's POSTs come back to this route)."""
    down = f"http://127.0.0.1:{free_port()}/mcp"
    with (
        demo_http_server("streamable-http", warm=True) as alive,
        demo_http_server("sse", warm=True) as legacy,
    ):
        config = (
            'listen = "127.0.0.1:0"\n'
            + route_table("down", "/down", down)
            + route_table("up", "/up", alive)
            + route_table("legacy", "/old/sse", legacy)
            + route_table("faulty", "/faulty", alive, "faults = 'faults.yaml'")
        )
        (tmp_path / "faults.yaml").write_text(
            "seed: 3\nrules:\n  - name: busy\n    match: {method: tools/call}\n"
            "    action: http_error\n    status: 503\n"
        )
        with (
            otlp_receiver() as receiver,
            gateway_in_process(config, db_path, tmp_path, "--otlp", receiver.url) as (base, _p),
        ):
            init = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
            headers = {"accept": "application/json, text/event-stream"}
            refused = httpx.post(f"{base}/down/mcp", json=init, headers=headers, timeout=30)
            assert refused.status_code == 502 and "upstream" in refused.text
            with anyio.fail_after(60):
                assert await _echo(f"{base}/up/mcp", "still here") == "still here"
                async with mcp.Client(sse_client(f"{base}/old/sse/sse"), mode="legacy") as client:
                    result = await client.call_tool("echo", {"text": "old transport"})
            assert result.content[0].text == "old transport"  # type: ignore[union-attr]
            again = httpx.post(f"{base}/down/mcp", json=init, headers=headers, timeout=30)
            assert again.status_code == 502
            # The faults file is this route's only: the same server through /faulty answers 503.
            with anyio.fail_after(60), pytest.raises(ExceptionGroup):  # the SDK client wraps the 503
                await _echo(f"{base}/faulty/mcp", "refused")
            with anyio.fail_after(60):
                assert await _echo(f"{base}/up/mcp", "after the fault") == "after the fault"
            # --otlp: every route's requests become spans (one recorder, one exporter).
            echoes = lambda: [s for s in receiver.spans() if s.name == "tools/call echo"]  # noqa: E731
            receiver.wait_for(lambda: len(echoes()) >= 4)
            outcomes = sorted(str(s.attributes.get("error.type")) for s in echoes())
            assert outcomes == ["None", "None", "None", "no_response"], outcomes  # /faulty's got a 503
    found = _sessions(db_path)
    assert any(b"still here" in m.raw for _s, rows in found["up"] for m in rows)
    down_rows = [m for _s, rows in found["down"] for m in rows]
    assert [m.http_status for m in down_rows if m.direction == "s2c"] == [502, 502]
    legacy_rows = [m for _s, rows in found["legacy"] for m in rows if rows]
    endpoint = next(m for m in legacy_rows if (m.meta or {}).get("event") == "endpoint")
    assert endpoint.meta["rewritten_to"].startswith("/old/sse/messages/")
    assert any(m.method == "tools/call" and b"old transport" in m.raw for m in legacy_rows)
    assert len({s.id for s, rows in found["legacy"] if rows}) == 1, (
        "the GET stream and the POSTs are one session"
    )


BAD = [
    ("listen = [", "not valid TOML"),
    ("listen = 5\n[[route]]\n", "listen: Input should be a valid string"),
    (
        'listen = "127.0.0.1:http"\n' + route_table("a", "/a", "http://127.0.0.1:9/mcp"),
        "listen: wants HOST:PORT",
    ),
    (
        'allow_origins = ["evil"]\n' + route_table("a", "/a", "http://127.0.0.1:9/mcp"),
        "allow_origins: wants an origin",
    ),
    ('listen = "127.0.0.1:0"\n', "no [[route]] table"),
    (route_table("a", "/a", "ftp://127.0.0.1/mcp"), "route 'a': target: must be an http(s) URL"),
    (route_table("a", "a", "http://127.0.0.1:9/mcp"), "route 'a': prefix: must be a path like /github"),
    (route_table("a", "/a/", "http://127.0.0.1:9/mcp"), "route 'a': prefix: must be a path"),
    (
        route_table("a", "/.well-known/x", "http://127.0.0.1:9/mcp"),
        "route 'a': prefix: must not be under /.well-known",
    ),
    (
        route_table("a", "/a", "http://127.0.0.1:9/mcp", "colour = 'red'"),
        "route 'a': colour: is not a setting",
    ),
    ("[[route]]\nprefix = '/a'\ntarget = 'http://127.0.0.1:9/mcp'\n", "route 1: name: is missing"),
    (
        route_table("a", "/a", "http://127.0.0.1:9/mcp") + route_table("a", "/b", "http://127.0.0.1:9/mcp"),
        "route 'a': name is used by another route",
    ),
    (
        route_table("a", "/a", "http://127.0.0.1:9/mcp") + route_table("b", "/a/b", "http://127.0.0.1:9/mcp"),
        "route 'b': prefix /a/b is inside route 'a'",
    ),
    (
        route_table("a", "/a", "http://127.0.0.1:9/mcp", "headers = { Host = 'x' }"),
        "route 'a': headers: Host is set by the proxy",
    ),
    (
        route_table("a", "/a", "http://127.0.0.1:9/mcp", "headers = { X = '${GW_UNSET_VAR}' }"),
        "route 'a': headers: ${GW_UNSET_VAR} is not set",
    ),
    (
        route_table("a", "/a", "http://127.0.0.1:9/mcp", "rewrite_auth_metadata = 'yes please'"),
        "route 'a': rewrite_auth_metadata:",
    ),
]


@pytest.mark.parametrize(("text", "expected"), BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_bad_config_files_name_the_file_route_and_field(
    text: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GW_UNSET_VAR", raising=False)
    path = tmp_path / "gw.toml"
    path.write_text(text)
    with pytest.raises(InspectorError) as caught:
        load_gateway_config(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: ") and expected in message, message


def test_a_bad_config_is_exit_2_and_one_line_without_traceback(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    faults = (
        route_table("a", "/a", "http://127.0.0.1:9/mcp", "faults = 'missing-rules.yaml'"),
        "route 'a': faults:",
    )
    remote = 'listen = "0.0.0.0:0"\n' + route_table("a", "/a", "http://127.0.0.1:9/mcp")
    picked = [
        (t, e)
        for t, e in BAD
        if e.startswith(("route 'a': target", "route 'b': prefix", "route 'a': headers: $"))
    ]
    assert len(picked) == 3
    for text, expected in (*picked, faults, (remote, "listen 0.0.0.0 would let other machines reach")):
        path = tmp_path / f"bad{len(expected)}.toml"
        path.write_text(text)
        done = run("proxy", "--config", str(path), "--db", str(db))
        assert done.returncode == 2, (text, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and expected in lines[0], (expected, done.stderr)
    assert not db.exists(), "a refused config opened the database"
    # Through the console script: its exit status and one line for a refused command line.
    both = subprocess.run(
        inspector_argv("proxy", "--config", str(path), "--target", "http://127.0.0.1:9/"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert both.returncode == 2 and "--target does not go with --config" in both.stderr
