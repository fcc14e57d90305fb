"""The guard, with real HTTP and websocket requests: token (header, query, websocket subprotocol),
Host and Origin, remote binding."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from inspector.api import UiServer
from inspector.errors import InspectorError
from inspector.store import open_engine
from tests.api.conftest import Api, serve
from tests.cli_in_process import run


@pytest.fixture(scope="module")
def demo_api(demo_db: Path) -> Iterator[Api]:
    """The demo database behind a real `UiServer`: the guard on the UI's own listener (a socket)."""
    yield from serve(demo_db)


def _bare(api: Api) -> httpx.Client:
    return httpx.Client(base_url=api.server.base_url, timeout=30)


def test_api_calls_without_the_token_are_refused(demo_api: Api) -> None:
    with _bare(demo_api) as http:
        for path in ("/api/sessions", "/api/sessions/1/messages", "/api/openapi.json", "/api/docs"):
            response = http.get(path)
            assert response.status_code == 401, path
            assert "access token" in response.json()["detail"]
        assert http.get("/api/sessions", headers={"authorization": "Bearer wrong"}).status_code == 401
        assert http.get("/api/sessions", params={"token": "wrong"}).status_code == 401
        assert http.get("/api/sessions", params={"token": demo_api.token}).status_code == 200
        assert http.delete("/api/sessions/1").status_code == 401


def test_an_old_query_token_url_moves_the_token_into_the_fragment_without_a_cookie(demo_api: Api) -> None:
    with _bare(demo_api) as http:
        response = http.get("/sessions/1", params={"token": demo_api.token, "dir": "c2s"})
        assert response.status_code == 303
        assert response.headers["location"] == f"/sessions/1?dir=c2s#token={demo_api.token}"
        assert "set-cookie" not in response.headers and not http.cookies
        assert http.get("/api/sessions").status_code == 401  # nothing was kept: the page sends a header
        assert http.get("/?token=wrong").status_code == 401


def test_foreign_origin_is_refused_even_with_the_token(demo_api: Api) -> None:
    for origin in ("http://evil.example", "http://127.0.0.1:1", "null"):
        response = demo_api.http.get("/api/sessions", headers={"origin": origin})
        assert response.status_code == 403, origin
        assert "Origin" in response.json()["detail"]
    same = demo_api.http.get("/api/sessions", headers={"origin": demo_api.server.base_url})
    assert same.status_code == 200


def test_foreign_host_is_refused_dns_rebinding(demo_api: Api) -> None:
    port = demo_api.server.port
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}"):
        response = demo_api.http.get("/api/sessions", headers={"host": host})
        assert response.status_code == 403, host
    with _bare(demo_api) as http:
        assert http.get("/", headers={"host": f"attacker.example:{port}"}).status_code == 403
    for host in (f"localhost:{port}", f"127.0.0.1:{port}"):
        assert demo_api.http.get("/api/sessions", headers={"host": host}).status_code == 200


def test_the_page_shell_loads_without_token_but_shows_no_data(demo_api: Api) -> None:
    with _bare(demo_api) as http:
        page = http.get("/sessions/1")
        assert page.status_code in (200, 503)  # 503: the UI is not built; either way, no recorded data
        assert "inspector-demo" not in page.text and "set-cookie" not in page.headers


def test_websocket_needs_the_token_and_our_origin(demo_api: Api) -> None:
    url = demo_api.server.base_url.replace("http://", "ws://") + "/api/live"
    with pytest.raises(InvalidStatus) as no_token:
        connect(url, open_timeout=10)
    assert no_token.value.response.status_code == 403
    with pytest.raises(InvalidStatus) as foreign:
        connect(f"{url}?token={demo_api.token}", origin="http://evil.example", open_timeout=10)  # type: ignore[arg-type]
    assert foreign.value.response.status_code == 403
    with connect(f"{url}?token={demo_api.token}", origin=demo_api.server.base_url, open_timeout=10) as ws:  # type: ignore[arg-type]
        ws.send('{"type": "subscribe", "session_id": 1}')
    # What browsers do: the token as a second subprotocol; the server names only the first.
    offered = ["mcp-inspector", f"bearer.{demo_api.token}"]
    with connect(url, subprotocols=offered, open_timeout=10) as ws:  # type: ignore[arg-type]
        assert ws.subprotocol == "mcp-inspector"
        ws.send('{"type": "subscribe", "session_id": 1}')
    with pytest.raises(InvalidStatus) as wrong:
        connect(url, subprotocols=["mcp-inspector", "bearer.wrong"], open_timeout=10)  # type: ignore[list-item]
    assert wrong.value.response.status_code == 403
    cookie = f"mcp_inspector_token_{demo_api.server.port}={demo_api.token}"
    with pytest.raises(InvalidStatus) as by_cookie:  # cookies are not a way in any more
        connect(url, additional_headers={"cookie": cookie}, open_timeout=10)
    assert by_cookie.value.response.status_code == 403


def test_other_interfaces_need_an_explicit_flag_and_still_the_token(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "r.db")
    with pytest.raises(InspectorError, match="--allow-remote"):
        UiServer(engine, host="0.0.0.0", port=0)
    server = UiServer(engine, host="0.0.0.0", port=0, allow_remote=True).start()
    try:
        url = f"http://127.0.0.1:{server.port}"
        assert httpx.get(f"{url}/api/sessions").status_code == 401
        assert httpx.get(f"{url}/api/sessions", params={"token": server.token}).status_code == 200
    finally:
        server.stop()
    # The command refuses it too (in-process: its exit status and stderr, not its process, are the point).
    cli = run("ui", "--db", str(tmp_path / "r.db"), "--host", "0.0.0.0", "--no-open")
    assert cli.returncode == 2 and "--allow-remote" in cli.stderr


def test_default_binding_is_loopback_only(tmp_path: Path) -> None:
    for api in serve(tmp_path / "r.db"):
        assert api.server.socket.getsockname()[0] == "127.0.0.1"
