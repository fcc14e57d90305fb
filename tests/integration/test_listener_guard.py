"""The shared listener guard on the paths the issue tests do not walk: the stdio `serve`'s control
port, `--allow-host`, the proxy's learned legacy endpoint, websockets on the MCP listeners, and
the UI's `--allow-host`. Real processes and sockets throughout."""

from __future__ import annotations

import json
import subprocess
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.cli_in_process import run
from tests.http_peers import scripted_http_server
from tests.listeners import INITIALIZE, JSON_HEADERS, inspector_proxy, serve_http, wait_until
from tests.warm_peers import inspector_argv


def test_the_stdio_serves_control_port_checks_host(tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    argv = inspector_argv("serve", "--stdio", "--db", str(tmp_path / "r.db"))  # forked warm
    env = {"MCP_INSPECTOR_RUNTIME": str(runtime), "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)  # fmt: skip
    try:
        found = wait_until(lambda: list(runtime.glob("serve-*.json")), "the control file")
        reg = json.loads(found[0].read_text())
        port = reg["url"].rsplit(":", 1)[1]
        good = {"authorization": f"Bearer {reg['token']}"}
        assert httpx.get(reg["url"] + "/sessions", headers=good).status_code == 200
        for host in ("evil.example", f"evil.example:{port}", f"localhost:{int(port) + 1}"):
            refused = httpx.get(reg["url"] + "/sessions", headers={**good, "host": host})
            assert refused.status_code == 403 and "Host" in refused.json()["detail"], host
    finally:
        assert proc.stdin is not None
        proc.stdin.close()  # EOF ends the stdio server
        proc.wait(30)


def test_allow_host_and_allow_origin_on_serve(db_path: Path) -> None:
    extra = ("--allow-host", "inspector.test", "--allow-origin", "http://app.test:5173")
    with serve_http(db_path, *extra, warm=True) as url:
        port = url.split("/")[2].rsplit(":", 1)[1]
        body = json.dumps(INITIALIZE)
        named = httpx.post(url, content=body, headers={**JSON_HEADERS, "host": f"inspector.test:{port}"})
        assert named.status_code == 200
        other = httpx.post(url, content=body, headers={**JSON_HEADERS, "host": f"other.test:{port}"})
        assert other.status_code == 403
        origin = {**JSON_HEADERS, "origin": "http://app.test:5173"}
        assert httpx.post(url, content=body, headers=origin).status_code == 200
        own_name = {**JSON_HEADERS, "origin": f"http://inspector.test:{port}"}
        assert httpx.post(url, content=body, headers=own_name).status_code == 200


def test_a_bad_allow_origin_is_a_clear_error(db_path: Path) -> None:
    cli = run("serve", "--http", "127.0.0.1:0", "--db", str(db_path), "--allow-origin", "localhost:5173")
    assert (
        cli.returncode == 2
        and "--allow-origin wants an origin" in cli.stderr
        and "Traceback" not in cli.stderr
    )


@pytest.mark.parametrize("listener", ["serve", "proxy"])
def test_websockets_from_another_origin_or_host_are_refused(listener: str, db_path: Path) -> None:
    with ExitStack() as stack:
        if listener == "serve":  # (the upstream only for the proxy)
            context: Any = serve_http(db_path, warm=True)
        else:
            context = inspector_proxy(
                f"{stack.enter_context(scripted_http_server())}/mcp", db_path, warm=True
            )
        with context as found:
            url = found if isinstance(found, str) else found[0]
            ws = url.replace("http://", "ws://")
            for headers in ({"origin": "http://evil.example"}, {"host": "evil.example"}):
                with pytest.raises(InvalidStatus) as refused:
                    connect(ws, additional_headers=headers, open_timeout=10)
                assert refused.value.response.status_code == 403, headers


def test_the_proxy_checks_the_json_type_on_a_learned_legacy_endpoint(db_path: Path) -> None:
    with (
        scripted_http_server() as base,
        inspector_proxy(f"{base}/abs-sse", db_path, warm=True) as (url, _proxy),
    ):
        with httpx.stream("GET", url) as events:
            for line in events.iter_lines():
                if line.startswith("data:") and "session_id" in line:
                    break
        endpoint = url.replace("/abs-sse", "/messages?session_id=abc123")
        plain = httpx.post(endpoint, content=json.dumps(INITIALIZE), headers={"content-type": "text/plain"})
        assert plain.status_code == 415


def test_the_uis_allow_host(tmp_path: Path) -> None:
    server = UiServer(open_engine(tmp_path / "r.db"), port=0, allow_hosts=("inspector.test",)).start()
    try:
        auth = {"authorization": f"Bearer {server.token}"}
        url = f"{server.base_url}/api/sessions"
        assert httpx.get(url, headers={**auth, "host": f"inspector.test:{server.port}"}).status_code == 200
        assert httpx.get(url, headers={**auth, "host": f"other.test:{server.port}"}).status_code == 403
    finally:
        server.stop()
