"""Regression (issue 14, HTTPS upstreams: forward proxies): `proxy`, `call`, `replay` and `versions`
ignored HTTPS_PROXY / HTTP_PROXY / NO_PROXY (the built-in upstream client and our httpx clients
connected directly), so a server reachable only through a corporate proxy could not be recorded.

Now the environment's proxy is used as curl and urllib read it (NO_PROXY bypasses it); the
recording proxy then goes through httpx and says so on stderr, as `call` and the others do.
The forward proxy here is proxy.py (a real one): its access log shows the tunnel.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx
import mcp
import pytest

from tests.cli_in_process import run
from tests.http_peers import forward_proxy, free_port, keepalive_server, proxy_in_process
from tests.tls import Pki, https_demo_server, make_pki


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


async def _echo(url: str, text: str) -> str:
    with anyio.fail_after(60):
        async with mcp.Client(url, mode="legacy") as client:
            result = await client.call_tool("echo", {"text": text})
    return result.content[0].text  # type: ignore[union-attr]


def _authority(url: str) -> str:
    return url.split("/")[2]


@pytest.mark.anyio
async def test_recording_proxy_tunnels_through_https_proxy(pki: Pki, db_path: Path, tmp_path: Path) -> None:
    tls = ("--ca-bundle", str(pki.ca), "--client-cert", str(pki.client_combined))
    with forward_proxy(tmp_path) as (proxy_url, forward), https_demo_server(pki) as target:
        env = {"HTTPS_PROXY": proxy_url, "NO_PROXY": ""}
        with proxy_in_process(target, db_path, *tls, env=env) as (url, recording):
            assert await _echo(url, "through a tunnel") == "through a tunnel"
            said = "".join(recording.output)
        forward.wait_for(rf"CONNECT {_authority(target)}")
    assert f"httpx through the forward proxy {proxy_url}" in said


def test_plain_http_upstream_through_http_proxy(db_path: Path, tmp_path: Path) -> None:
    # A GET: proxy.py 2.4 adds a second Content-Length to a request whose header is spelled in
    # lower case (as MCP clients send it), which uvicorn then refuses; a body-less request is
    # enough to show the absolute-form request going through it.
    with forward_proxy(tmp_path) as (proxy_url, forward), keepalive_server() as base:
        with proxy_in_process(f"{base}/mcp", db_path, env={"HTTP_PROXY": proxy_url}) as (url, _rec):
            # This process's environment has HTTP_PROXY while the proxy runs in it: this client goes direct.
            response = httpx.get(url.replace("/mcp", "/sse?n=2&ms=10"), timeout=30, trust_env=False)
            lines = [line for line in response.text.splitlines() if line]
        forward.wait_for(rf"GET {_authority(base)}/sse")
    assert lines == ["data: event 0", "data: event 1"]


@pytest.mark.anyio
async def test_no_proxy_bypasses_it(pki: Pki, db_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"  # were it used, every request would fail
    tls = ("--ca-bundle", str(pki.ca), "--client-cert", str(pki.client_combined))
    with https_demo_server(pki) as target:
        env = {"HTTPS_PROXY": dead, "NO_PROXY": "localhost,127.0.0.1"}
        with proxy_in_process(target, db_path, *tls, env=env) as (url, recording):
            assert await _echo(url, "direct") == "direct"
            assert any("upstream client: built-in" in line for line in recording.output)


def test_call_goes_through_the_environments_proxy(pki: Pki, db_path: Path, tmp_path: Path) -> None:
    params = json.dumps({"name": "echo", "arguments": {"text": "called"}})
    with forward_proxy(tmp_path) as (proxy_url, forward), https_demo_server(pki) as target:
        done = run(  # in-process (tests/cli_in_process.py): the environment is set for the run only
            "call", "tools/call", "--url", target, "--params", params,
            "--ca-bundle", str(pki.ca), "--client-cert", str(pki.client_combined), "--db", str(db_path),
            env={"HTTPS_PROXY": proxy_url, "NO_PROXY": ""}, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["content"][0]["text"] == "called"
        assert f"through the forward proxy {proxy_url}" in done.stderr
        forward.wait_for(rf"CONNECT {_authority(target)}")
