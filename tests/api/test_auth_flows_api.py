"""The guided authorization API (/api/auth/flows) and the UI's /oauth/callback, over HTTP, against the
Python SDK's authorization-protected server (tests/peers/oauth_server.py, which approves at once):
each revision's variant, the callback's single-use state, bad input as clear 4xx."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.api.conftest import Api, in_process
from tests.http_peers import LineProcess
from tests.warm_peers import peer_argv

LEGS = ["unauthorized", "resource-metadata", "as-metadata", "registration", "pkce"]
AFTER = ["authorization-request", "token-request", "authenticated-request"]


@pytest.fixture(scope="module")
def peer() -> Iterator[str]:
    server = LineProcess(peer_argv("tests.peers.oauth_server"))  # forked warm: the SDK's imports once
    try:
        yield server.wait_for(r"listening on (\S+)").group(1)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    root = tmp_path_factory.mktemp("auth-api")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MCP_INSPECTOR_AUTH_FILE", str(root / "auth.json"))
        yield from in_process(root / "auth.db")


def _run(api: Api, url: str, revision: str) -> dict[str, Any]:
    """Run a flow; the browser's part is an httpx GET of the authorization URL and of its redirect."""
    flow = api.http.post("/api/auth/flows", json={"url": url, "revision": revision}).json()
    assert flow["state"] == "paused" and flow["steps"] == [], flow
    flow = api.http.post(f"/api/auth/flows/{flow['id']}/run").json()
    if flow["state"] == "waiting-browser":
        redirect = httpx.get(flow["authorization_url"]).headers["location"]
        assert redirect.startswith(flow["redirect_uri"] + "?")
        with api.bare() as browser:  # the redirect comes back to the UI (in-process)
            assert browser.get(redirect).status_code == 200
            assert browser.get(redirect).status_code == 400  # single use
        deadline = time.monotonic() + 20
        while flow["state"] not in ("done", "failed") and time.monotonic() < deadline:
            time.sleep(0.1)
            flow = api.http.get(f"/api/auth/flows/{flow['id']}").json()
    return flow


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_each_revision_authorizes(api: Api, peer: str, revision: str) -> None:
    flow = _run(api, peer, revision)
    assert flow["state"] == "done", flow.get("failure")
    assert [s["name"] for s in flow["steps"]] == LEGS + AFTER
    assert all(
        s["status"] == "ok" and s["spec"].count(f"/{revision}/") == 1 for s in flow["steps"] if s["spec"]
    )
    token = flow["steps"][-2]
    assert token["request"]["body"].count("[secret:body.code_verifier]") == 1
    assert "resource=" in token["request"]["body"]
    assert flow["steps"][-1]["response"]["status"] == 200


def test_2025_03_26_tokens_without_resource_are_refused_by_a_binding_server(api: Api, peer: str) -> None:
    # This server binds tokens to itself (RFC 8707): a 2025-03-26 client sends no `resource`.
    flow = _run(api, peer, "2025-03-26")
    assert flow["state"] == "failed"
    assert flow["failure"]["expectation"] == "token-not-accepted"
    assert "resource" not in flow["steps"][-2]["request"]["body"]
    assert flow["steps"][-1]["status"] == "failed" and "RFC 8707" in flow["failure"]["message"]


def test_next_runs_one_step(api: Api, peer: str) -> None:
    flow = api.http.post("/api/auth/flows", json={"url": peer}).json()
    for n in range(1, len(LEGS) + 1):
        flow = api.http.post(f"/api/auth/flows/{flow['id']}/next").json()
        assert [s["name"] for s in flow["steps"]] == LEGS[:n] and flow["state"] == "paused"
    assert flow["steps"][0]["response"]["status"] == 401
    assert api.http.delete(f"/api/auth/flows/{flow['id']}").status_code == 204
    assert api.http.get(f"/api/auth/flows/{flow['id']}").status_code == 404


def test_unreachable_server_is_a_failed_step_not_an_error(api: Api) -> None:
    flow = api.http.post("/api/auth/flows", json={"url": "http://127.0.0.1:9/mcp"}).json()
    flow = api.http.post(f"/api/auth/flows/{flow['id']}/run").json()
    assert flow["state"] == "failed" and flow["failure"]["expectation"] == "unreachable", flow


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/api/auth/flows", {"url": "ftp://x/mcp"}, 422),
        ("/api/auth/flows", {"url": "http://127.0.0.1:9/mcp", "revision": "2024-11-05"}, 422),
        ("/api/auth/flows", {"url": "http://127.0.0.1:9/mcp", "auth": {"client_secret": "s3cr3t-x"}}, 422),
        ("/api/auth/flows/nope/next", None, 404),
        ("/api/clients", {"target": {"command": ["x"]}, "auth": {}}, 422),
    ],
)
def test_bad_input_is_a_clear_4xx(api: Api, path: str, body: Any, status: int) -> None:
    response = api.http.post(path, json=body)
    assert response.status_code == status, response.text
    assert response.json()["detail"]


def test_callback_without_a_pending_state_changes_nothing(api: Api) -> None:
    with api.bare() as browser:
        for query in ("", "?code=x", "?state=guess&code=x", "?state=&error=access_denied"):
            response = browser.get(f"/oauth/callback{query}")
            assert response.status_code == 400 and "No authorization is waiting" in response.text
            assert response.headers["cache-control"] == "no-store"
        assert api.http.get("/api/auth/pending").json() == {"items": []}
        assert browser.get("/api/auth/pending").status_code == 401  # no token


def test_many_flows_share_the_database_connection(api: Api) -> None:
    # A recorder per flow held a pooled connection each: the 16th flow waited 30 s for one, then 500.
    ids = []
    for _ in range(25):
        response = api.http.post("/api/auth/flows", json={"url": "http://127.0.0.1:9/mcp"}, timeout=10)
        assert response.status_code == 201, response.text
        ids.append(response.json()["id"])
    assert api.http.get(f"/api/auth/flows/{ids[0]}").status_code == 404  # beyond the 20 kept
    last = api.http.post(f"/api/auth/flows/{ids[-1]}/run").json()
    assert last["failure"]["expectation"] == "unreachable"
