"""Connecting a mock client spawns a process the caller chooses (CVE-2025-49596 in the official
Inspector): it needs the token AND this server's Host and Origin. The API in-process (the guard's real-socket test is test_security.py).

The command writes a marker file when it runs, so a refused request that still spawned it
would be seen; the same command sent properly does run, so the check can fail.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from inspector.store import list_sessions, open_engine
from tests.api.conftest import Api

WRITE_MARKER = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('spawned')"


def _body(marker: Path) -> dict[str, Any]:
    return {"target": {"command": [sys.executable, "-c", WRITE_MARKER, str(marker)]}, "timeout": 5}


def _mock_sessions(api: Api) -> int:
    return sum(1 for s in list_sessions(open_engine(api.db)) if s.kind == "mock-client")


def test_connect_needs_the_token_and_our_host_and_origin(fresh_api: Api, tmp_path: Path) -> None:
    port = fresh_api.port
    refused_marker = tmp_path / "refused-ran"
    bearer = {"authorization": f"Bearer {fresh_api.token}"}
    cookie = {"cookie": f"mcp_inspector_token_{port}={fresh_api.token}"}
    attempts: list[tuple[dict[str, str], dict[str, str], tuple[int, ...], str]] = [
        ({}, {}, (401,), "access token"),  # no token
        ({"authorization": "Bearer wrong"}, {}, (401,), "access token"),
        ({}, {"token": "wrong"}, (401,), "access token"),
        (cookie | {"origin": "http://evil.example"}, {}, (403,), "Origin"),  # cross-site page with the cookie
        (bearer | {"origin": "http://evil.example"}, {}, (403,), "Origin"),
        (bearer | {"origin": f"http://127.0.0.1:{port + 1}"}, {}, (403,), "Origin"),  # another local port
        (bearer | {"origin": "null"}, {}, (403,), "Origin"),
        (bearer | {"host": f"rebound.example:{port}"}, {}, (403,), "Host"),  # DNS rebinding
    ]
    with fresh_api.bare() as bare:
        for headers, params, statuses, word in attempts:
            response = bare.post("/api/clients", json=_body(refused_marker), headers=headers, params=params)
            assert response.status_code in statuses, (headers, response.status_code, response.text)
            assert word in response.json()["detail"], response.text
            for method, path in (("GET", "/api/clients"), ("DELETE", "/api/clients/c1")):
                assert bare.request(method, path, headers=headers, params=params).status_code in statuses
    assert _mock_sessions(fresh_api) == 0

    # Properly sent, the same command does run (it is no MCP server, so the handshake fails: 502).
    allowed_marker = tmp_path / "allowed-ran"
    same_origin = bearer | {"origin": fresh_api.base_url}
    started = fresh_api.http.post("/api/clients", json=_body(allowed_marker), headers=same_origin)
    assert started.status_code == 502, started.text
    assert allowed_marker.read_text() == "spawned"
    assert not refused_marker.exists()
    assert _mock_sessions(fresh_api) == 1
