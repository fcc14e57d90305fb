"""Starting a replay spawns a process the caller chooses (the hole behind CVE-2025-49596 in the
official Inspector): it needs the token AND this server's Host and Origin. Real HTTP requests.

The target command writes a marker file when it runs, so a refused request that still spawned
it would be seen; the same command sent properly does run, so the check can fail.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Api, in_process
from tests.api.recordings import generate_session

WRITE_MARKER = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('spawned')"


@pytest.fixture
def small_api(tmp_path: Path) -> Iterator[Api]:
    generate_session(tmp_path / "small.db", 6, name="small")
    yield from in_process(tmp_path / "small.db")


def _body(marker: Path) -> dict[str, Any]:
    return {"target": {"command": [sys.executable, "-c", WRITE_MARKER, str(marker)]}, "timeout": 5}


def _replays(api: Api) -> int:
    return int(api.json("/api/sessions", kind="replay")["total"])  # type: ignore[index]


def test_replay_needs_the_token_and_our_host_and_origin(small_api: Api, tmp_path: Path) -> None:
    port = small_api.port
    refused_marker = tmp_path / "refused-ran"
    body = _body(refused_marker)
    bearer = {"authorization": f"Bearer {small_api.token}"}
    cookie = {"cookie": f"mcp_inspector_token_{port}={small_api.token}"}
    attempts: list[tuple[dict[str, str], dict[str, str], tuple[int, ...], str]] = [
        ({}, {}, (401, 403), "access token"),  # no token at all
        ({"authorization": "Bearer wrong"}, {}, (401, 403), "access token"),
        (
            cookie | {"origin": "http://evil.example"},
            {},
            (403,),
            "Origin",
        ),  # a cross-site page, with the cookie
        (bearer | {"origin": "http://evil.example"}, {}, (403,), "Origin"),
        (bearer | {"origin": f"http://127.0.0.1:{port + 1}"}, {}, (403,), "Origin"),  # another local port
        (bearer | {"origin": "null"}, {}, (403,), "Origin"),  # sandboxed iframe / file:// page
        (bearer | {"host": f"rebound.example:{port}"}, {}, (400, 403), "Host"),  # DNS rebinding
        (
            bearer | {"host": f"rebound.example:{port}", "origin": f"http://rebound.example:{port}"},
            {},
            (400, 403),
            "Host",
        ),
        ({}, {"token": "wrong"}, (401, 403), "access token"),
    ]
    before = _replays(small_api)
    with small_api.bare() as bare:
        for headers, params, statuses, word in attempts:
            response = bare.post("/api/sessions/1/replay", json=body, headers=headers, params=params)
            assert response.status_code in statuses, (headers, params, response.status_code, response.text)
            assert word in response.json()["detail"], response.text
            for path in ("/api/diff?a=1&b=1", "/api/sessions/1/mock-server", "/api/replays/x"):
                assert bare.get(path, headers=headers, params=params).status_code in statuses, (path, headers)

    # The same request made properly does spawn the command (so the marker would have shown a leak).
    allowed_marker = tmp_path / "allowed-ran"
    same_origin = bearer | {"origin": small_api.base_url}
    started = small_api.http.post("/api/sessions/1/replay", json=_body(allowed_marker), headers=same_origin)
    assert started.status_code == 202, started.text
    job = started.json()
    deadline = time.monotonic() + 60
    while job["state"] == "running":
        assert time.monotonic() < deadline, job
        job = small_api.json(f"/api/replays/{job['id']}", wait=10)  # type: ignore[assignment]
    assert job["state"] == "failed" and "could not run" in job["error"]  # the marker script is no MCP server
    assert allowed_marker.read_text() == "spawned"
    assert not refused_marker.exists()
    assert _replays(small_api) == before + 1  # only the allowed request got as far as recording


def test_token_in_the_query_works_but_never_appears_in_answers(small_api: Api) -> None:
    with small_api.bare() as bare:
        shown = bare.get("/api/sessions/1/mock-server", params={"token": small_api.token})
        assert shown.status_code == 200
        assert small_api.token not in shown.text
