"""Regression: a non-ASCII access token gave a 500 before authentication.

`secrets.compare_digest` raises TypeError on a str that is not ASCII, so `?token=%C3%A9` or an
`Authorization: Bearer` header carrying a raw latin-1 byte crashed the guard (HTTP 500; the websocket
handshake failed the same way). Tokens are now compared as bytes: a wrong token is a 401 (403 on the
websocket handshake, like a missing one), whatever its characters.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from inspector.api import UiServer
from inspector.store import open_engine


@pytest.fixture
def ui(tmp_path: Path) -> Iterator[UiServer]:
    server = UiServer(open_engine(tmp_path / "r.db"), port=0).start()
    yield server
    server.stop()


def _raw_get(ui: UiServer, path: str, extra: bytes = b"") -> bytes:
    """One request with bytes no HTTP client library would send: the status line of the answer."""
    with socket.create_connection(("127.0.0.1", ui.port), timeout=10) as sock:
        host = f"127.0.0.1:{ui.port}".encode()
        sock.sendall(
            b"GET "
            + path.encode()
            + b" HTTP/1.1\r\nHost: "
            + host
            + b"\r\n"
            + extra
            + b"Connection: close\r\n\r\n"
        )
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer.split(b"\r\n", 1)[0]


def test_non_ascii_tokens_are_refused_with_401(ui: UiServer) -> None:
    with httpx.Client(base_url=ui.base_url, timeout=10) as http:
        for params in ({"token": "é"}, {"token": "ü" + ui.token}, {"token": "\u2603"}):
            answer = http.get("/api/sessions", params=params)
            assert answer.status_code == 401, (params, answer.text)
            assert "access token" in answer.json()["detail"]
        assert http.get("/sessions/1", params={"token": "é"}).status_code == 401  # a page visit
        assert http.get("/api/sessions", params={"token": ui.token}).status_code == 200
    assert _raw_get(ui, "/api/sessions?token=%C3%A9") == b"HTTP/1.1 401 Unauthorized"
    assert _raw_get(ui, "/api/sessions", b"Authorization: Bearer \xe9\r\n") == b"HTTP/1.1 401 Unauthorized"
    assert (
        _raw_get(ui, "/api/sessions", b"Authorization: Bearer \xc3\xa9\r\n") == b"HTTP/1.1 401 Unauthorized"
    )


def test_non_ascii_tokens_on_the_websocket_are_refused_not_crashed(ui: UiServer) -> None:
    url = ui.base_url.replace("http://", "ws://") + "/api/live"
    attempts = [
        {"uri": f"{url}?token=%C3%A9"},
        {"uri": url, "additional_headers": {"authorization": "Bearer é"}},
    ]
    for attempt in attempts:
        with pytest.raises(InvalidStatus) as refused:
            connect(open_timeout=10, **attempt)  # type: ignore[arg-type]
        assert refused.value.response.status_code == 403, attempt
    with connect(f"{url}?token={ui.token}", open_timeout=10) as ws:
        ws.send('{"type": "subscribe", "session_id": 1}')
