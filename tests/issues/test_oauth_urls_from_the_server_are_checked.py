"""Issue #33 (findings 2 and 8): what an authorization server names is checked before anything
opens or fetches it, and the loopback callback listener takes only the redirect with its state.

A hostile MCP server controls its 401 and all of its OAuth metadata. Before #33, `call --auth`
handed an `authorization_endpoint` of `file:///etc/passwd?x=1` or `javascript:` to the system
browser, fetched a `resource_metadata` on another loopback port, followed an `/authorize` redirect
to another loopback port with `--auth-non-interactive` (and stored the answers), and its callback
listener took the first GET whatever its state (another local user could end the flow).

The peer is a real HTTP server on 127.0.0.1 (`HostileServer`); "another local service" is a
second one that records every request (`RecordingUpstream`). `webbrowser.open`, the OS
boundary, is replaced by a function that keeps the URLs (and for the callback test plays the
browser).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import webbrowser
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from typer.testing import CliRunner

from inspector.cli import app
from tests.api.conftest import Api, serve
from tests.listeners import RecordingUpstream

TOKEN = "tok-issue-33"


class HostileServer:
    """An MCP server with an authorization server on one origin, whose answers a test rewrites.

    `metadata` is the AS metadata (endpoints overridable), `prm` the resource metadata,
    `challenge` the 401's WWW-Authenticate, `authorize_to` where /authorize redirects (None: back
    to the redirect URI with a code and the request's state, as a good AS does). With the token,
    /mcp answers initialize and tools/list, so a good flow completes."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.mcp = self.url + "/mcp"
        self.prm: dict[str, Any] = {"resource": self.mcp, "authorization_servers": [self.url]}
        self.metadata: dict[str, Any] = {
            "issuer": self.url,
            "authorization_endpoint": self.url + "/authorize",
            "token_endpoint": self.url + "/token",
            "registration_endpoint": self.url + "/register",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        }
        self.challenge = f'Bearer resource_metadata="{self.url}/.well-known/oauth-protected-resource/mcp"'
        self.authorize_to: str | None = None
        self.answer = {"code": "c0de"}  # the authorization response's parameters besides state
        # shutdown() waits for serve_forever's next poll: every 0.05 s, not the default 0.5 s
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        peer = self

        class Handler(BaseHTTPRequestHandler):
            def _send(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                if body is not None:
                    self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                peer.requests.append(f"GET {self.path}")
                path, _, query = self.path.partition("?")
                if path == "/.well-known/oauth-protected-resource/mcp":
                    self._send(200, peer.prm)
                elif path == "/.well-known/oauth-authorization-server":
                    self._send(200, peer.metadata)
                elif path == "/authorize":
                    asked = {k: v[0] for k, v in parse_qs(query).items()}
                    back = asked["redirect_uri"] + "?" + urlencode({**peer.answer, "state": asked["state"]})
                    self._send(302, headers={"location": peer.authorize_to or back})
                else:
                    self._send(404 if path != "/mcp" else 405)

            def do_POST(self) -> None:  # noqa: N802
                peer.requests.append(f"POST {self.path}")
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                if self.path == "/register":
                    self._send(201, {"client_id": "hostile-client", **json.loads(body)})
                elif self.path == "/token":
                    self._send(200, {"access_token": TOKEN, "token_type": "Bearer", "expires_in": 3600})
                elif self.headers.get("authorization") != f"Bearer {TOKEN}":
                    self._send(401, {"error": "invalid_token"}, {"www-authenticate": peer.challenge})
                else:
                    message = json.loads(body)
                    if "id" not in message:
                        self._send(202)
                    elif message["method"] == "initialize":
                        result = {
                            "protocolVersion": message["params"]["protocolVersion"],
                            "capabilities": {"tools": {}},
                            "serverInfo": {"name": "hostile", "version": "1"},
                        }
                        self._send(200, {"jsonrpc": "2.0", "id": message["id"], "result": result})
                    else:
                        self._send(200, {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}})

            def do_DELETE(self) -> None:  # noqa: N802
                self._send(405)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


@pytest.fixture
def hostile() -> Iterator[HostileServer]:
    with HostileServer() as server:
        yield server


@pytest.fixture
def other() -> Iterator[RecordingUpstream]:
    """Another local service: no request may reach it."""
    with RecordingUpstream() as upstream:
        yield upstream


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What would have been handed to the system browser."""
    urls: list[str] = []

    def keep(url: str, *args: object, **kwargs: object) -> bool:
        urls.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", keep)
    return urls


def _call(tmp_path: Path, url: str, *extra: str) -> Any:
    env = {"MCP_INSPECTOR_AUTH_FILE": str(tmp_path / "auth.json"), "COLUMNS": "400", "NO_COLOR": "1"}
    argv = ["call", "--db", str(tmp_path / "rec.db"), "--url", url, "--auth", "--auth-wait", "20",
            "--timeout", "20", *extra, "tools/list"]  # fmt: skip
    return CliRunner().invoke(app, argv, env=env)


def _said(result: Any) -> str:
    return " ".join(result.output.split())


BAD_URLS = ["file:///etc/passwd?x=1", "javascript:alert(document.domain)//", "http://example.com/x"]


@pytest.mark.parametrize("bad", BAD_URLS)
@pytest.mark.parametrize("field", ["authorization_endpoint", "token_endpoint", "registration_endpoint"])
def test_an_endpoint_that_is_not_https_or_loopback_is_refused_before_anything_opens(
    tmp_path: Path, hostile: HostileServer, opened: list[str], field: str, bad: str
) -> None:
    hostile.metadata[field] = bad
    result = _call(tmp_path, hostile.mcp)
    said = _said(result)
    assert result.exit_code == 2, said
    assert field in said and bad in said and "Traceback" not in said
    assert opened == []
    # Nothing was registered, asked or exchanged: the check comes before any of it.
    assert not [
        r for r in hostile.requests if r.startswith(("POST /register", "GET /authorize", "POST /token"))
    ]


@pytest.mark.parametrize("bad", [*BAD_URLS, "http://127.0.0.1:1/\x1b]52;c;aGk=\x07"])
def test_an_authorization_server_that_is_not_https_or_loopback_is_refused(
    tmp_path: Path, hostile: HostileServer, opened: list[str], bad: str
) -> None:
    hostile.prm["authorization_servers"] = [bad]
    result = _call(tmp_path, hostile.mcp)
    said = _said(result)
    assert result.exit_code == 2 and "authorization_servers" in said, said
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert opened == [] and "GET /.well-known/oauth-authorization-server" not in hostile.requests


def test_resource_metadata_on_another_loopback_port_is_not_fetched(
    tmp_path: Path, hostile: HostileServer, other: RecordingUpstream, opened: list[str]
) -> None:
    target = f"{other.url}/admin/delete-everything?confirm=1"
    hostile.challenge = f'Bearer resource_metadata="{target}"'
    result = _call(tmp_path, hostile.mcp, "--auth-non-interactive")
    said = _said(result)
    assert result.exit_code == 2 and "resource_metadata" in said and target in said, said
    assert other.requests == [] and opened == []


def test_resource_metadata_with_a_bad_scheme_is_not_fetched(
    tmp_path: Path, hostile: HostileServer, opened: list[str]
) -> None:
    hostile.challenge = 'Bearer resource_metadata="file:///etc/passwd"'
    result = _call(tmp_path, hostile.mcp)
    said = _said(result)
    assert result.exit_code == 2 and "resource_metadata" in said and "file:///etc/passwd" in said, said
    assert opened == []


def test_non_interactive_follows_no_redirect_off_the_authorization_servers_origin(
    tmp_path: Path, hostile: HostileServer, other: RecordingUpstream
) -> None:
    target = f"{other.url}/admin/delete-everything?confirm=1"
    hostile.authorize_to = target
    result = _call(tmp_path, hostile.mcp, "--auth-non-interactive")
    said = _said(result)
    assert result.exit_code == 2 and target in said, said
    assert other.requests == []
    conn = sqlite3.connect(tmp_path / "rec.db")
    stored = conn.execute("SELECT count(*) FROM message WHERE http_path LIKE '/admin/%'").fetchone()[0]
    conn.close()
    assert stored == 0


def test_non_interactive_stops_at_the_redirect_uri_without_fetching_it(
    tmp_path: Path, hostile: HostileServer
) -> None:
    # The good flow: the redirect to the callback ends the authorization (and the call succeeds).
    result = _call(tmp_path, hostile.mcp, "--auth-non-interactive")
    assert result.exit_code == 0, _said(result)
    assert '"tools": []' in result.output


def test_metadata_on_another_origin_is_said(tmp_path: Path, hostile: HostileServer) -> None:
    # The same server under another name (localhost vs 127.0.0.1) is another origin: legitimate,
    # but the person is told where the authorization server is.
    port = urlsplit(hostile.url).port
    hostile.metadata["issuer"] = f"http://localhost:{port}"
    hostile.prm["authorization_servers"] = [f"http://localhost:{port}"]
    result = _call(tmp_path, hostile.mcp, "--auth-non-interactive")
    said = _said(result)
    assert result.exit_code == 0, said
    assert f"http://localhost:{port}" in said and "not on the MCP server's origin" in said


def _browser_with_a_rival(seen: list[int]) -> Callable[..., bool]:
    """A browser that, before the person approves, lets another local user hit the callback with
    a wrong state; then it follows the authorization request as a browser would."""

    def open_url(url: str, *args: object, **kwargs: object) -> bool:
        redirect_uri = parse_qs(urlsplit(url).query)["redirect_uri"][0]
        seen.append(httpx.get(redirect_uri, params={"code": "evil", "state": "guessed"}).status_code)
        seen.append(httpx.get(redirect_uri, params={"error": "access_denied"}).status_code)
        location = httpx.get(url).headers["location"]
        seen.append(httpx.get(location).status_code)
        return True

    return open_url


def test_the_callback_listener_ignores_a_wrong_state_and_keeps_waiting(
    tmp_path: Path, hostile: HostileServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[int] = []
    monkeypatch.setattr(webbrowser, "open", _browser_with_a_rival(seen))
    result = _call(tmp_path, hostile.mcp)
    assert result.exit_code == 0, _said(result)
    assert seen == [400, 400, 200]


@pytest.fixture
def api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Api]:
    monkeypatch.setenv("MCP_INSPECTOR_AUTH_FILE", str(tmp_path / "auth.json"))
    yield from serve(tmp_path / "ui.db")


@pytest.mark.parametrize("bad", ["javascript:alert(document.domain)//", "file:///etc/passwd?x=1"])
def test_the_guided_flow_fails_the_step_instead_of_showing_the_link(
    api: Api, hostile: HostileServer, bad: str
) -> None:
    hostile.metadata["authorization_endpoint"] = bad
    flow = api.http.post("/api/auth/flows", json={"url": hostile.mcp}).json()
    response = api.http.post(f"/api/auth/flows/{flow['id']}/run")
    assert response.status_code == 200, response.text
    flow = response.json()
    assert flow["state"] == "failed" and flow["authorization_url"] is None, flow
    assert flow["failure"]["expectation"] == "unsafe-url"
    assert "authorization_endpoint" in flow["failure"]["message"] and bad in flow["failure"]["message"]
    assert api.http.get("/api/auth/pending").json() == {"items": []}
    assert not [r for r in hostile.requests if r.startswith(("POST /register", "GET /authorize"))]


def test_the_guided_flow_notes_an_authorization_server_on_another_origin(
    api: Api, hostile: HostileServer
) -> None:
    port = urlsplit(hostile.url).port
    hostile.metadata["issuer"] = f"http://localhost:{port}"
    hostile.prm["authorization_servers"] = [f"http://localhost:{port}"]
    flow = api.http.post("/api/auth/flows", json={"url": hostile.mcp}).json()
    flow = api.http.post(f"/api/auth/flows/{flow['id']}/run").json()
    assert flow["state"] == "waiting-browser", flow
    notes = {s["name"]: s["note"] or "" for s in flow["steps"]}
    assert f"http://localhost:{port}" in notes["as-metadata"]
    assert "not on the MCP server's origin" in notes["as-metadata"]


def test_an_error_description_from_the_authorization_server_is_printed_escaped(
    tmp_path: Path, hostile: HostileServer
) -> None:
    hostile.answer = {"error": "access_denied", "error_description": "\x1b]52;c;aGk=\x07\x1b[2Jdenied"}
    result = _call(tmp_path, hostile.mcp, "--auth-non-interactive")
    assert result.exit_code == 2
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\\x1b]52;c;aGk=\\x07\\x1b[2Jdenied" in result.output
