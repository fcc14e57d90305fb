"""The versions routes (the API in-process): a run against the demo server as a job, its matrix (also from
the store, for a past run), the list of runs, and the spawn-security rules of the replay route."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Api, in_process
from tests.api.recordings import generate_session
from tests.warm_peers import demo_argv

DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)
WRITE_MARKER = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('spawned')"


@pytest.fixture(scope="module")
def versions_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    db = tmp_path_factory.mktemp("versions-api") / "v.db"
    generate_session(db, 6, name="small")
    yield from in_process(db)


def finish(api: Api, job: dict[str, Any], limit: float = 180) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while job["state"] == "running":
        assert time.monotonic() < deadline, job
        job = api.json(f"/api/versions/jobs/{job['id']}", wait=10)  # type: ignore[assignment]
    return job


def test_a_run_as_a_job_and_its_matrix(versions_api: Api) -> None:
    started = versions_api.http.post(
        "/api/versions", json={"target": {"command": DEMO}, "revisions": ["2025-11-25", "2026-07-28"]}
    )
    assert started.status_code == 202, started.text
    job = finish(versions_api, started.json())
    assert job["state"] == "finished", job
    assert list(job["sessions"]) == ["2025-11-25", "2026-07-28"]
    matrix = versions_api.json(f"/api/versions/runs/{job['run']}")
    assert [c["session_id"] for c in matrix["columns"]] == list(job["sessions"].values())  # type: ignore[index]
    outcomes = {c["revision"]: (c["handshake"], c["outcome"]) for c in matrix["columns"]}  # type: ignore[index]
    assert outcomes == {
        "2025-11-25": ("initialize", "accepted"),
        "2026-07-28": ("server/discover", "accepted"),
    }
    cache = next(r for r in matrix["rows"] if r["key"] == "tools/list cacheScope")  # type: ignore[index]
    assert cache["differs"] and cache["values"] == {"2025-11-25": None, "2026-07-28": 1}
    runs = versions_api.json("/api/versions/runs")
    assert {"run": job["run"], "sessions": job["sessions"]}.items() <= runs[0].items()  # type: ignore[index]
    # The sessions are ordinary recordings: the two-session diff works on them.
    a, b = job["sessions"].values()
    diff = versions_api.json("/api/diff", a=a, b=b)
    assert diff["changed"]  # type: ignore[index]


def test_bad_requests_get_clear_errors(versions_api: Api) -> None:
    post = versions_api.http.post
    missing = post("/api/versions", json={"target": {"command": ["/no/such/server"]}})
    assert missing.status_code == 400 and "not an executable file" in missing.json()["detail"]
    bad_rev = post("/api/versions", json={"target": {"command": DEMO}, "revisions": ["latest"]})
    assert bad_rev.status_code == 422 and "not a protocol revision" in bad_rev.text
    both = post("/api/versions", json={"target": {"command": DEMO, "url": "http://127.0.0.1:1/mcp"}})
    assert both.status_code == 422
    no_session = post("/api/versions", json={"target": {"command": DEMO}, "replay_session_id": 999})
    assert no_session.status_code == 404
    assert versions_api.get("/api/versions/runs/nope").status_code == 404
    assert versions_api.get("/api/versions/jobs/nope").status_code == 404
    form = versions_api.http.post("/api/versions", data={"target": "x"})
    assert form.status_code == 422


def _body(marker: Path) -> dict[str, Any]:
    return {
        "target": {"command": [sys.executable, "-c", WRITE_MARKER, str(marker)]},
        "revisions": ["2025-06-18"],
    }


def test_starting_a_run_needs_token_host_and_origin(versions_api: Api, tmp_path: Path) -> None:
    port = versions_api.port
    refused_marker, allowed_marker = tmp_path / "refused-ran", tmp_path / "allowed-ran"
    bearer = {"authorization": f"Bearer {versions_api.token}"}
    with versions_api.bare() as bare:
        for headers in (
            {},
            bearer | {"origin": "http://evil.example"},
            bearer | {"host": f"rebound.example:{port}"},
        ):
            response = bare.post("/api/versions", json=_body(refused_marker), headers=headers)
            assert response.status_code in (400, 401, 403), (headers, response.status_code)
    # The same request made properly does spawn the command (so the marker would have shown a leak).
    allowed = versions_api.http.post("/api/versions", json=_body(allowed_marker))
    assert allowed.status_code == 202
    job = finish(versions_api, allowed.json())
    assert allowed_marker.read_text() == "spawned"
    assert not refused_marker.exists()
    matrix = versions_api.json(f"/api/versions/runs/{job['run']}")
    assert matrix["columns"][0]["outcome"] == "failed"  # type: ignore[index]


def test_a_versions_run_into_a_postgresql_store(pg_url: str) -> None:
    """A versions run on a PostgreSQL store: its sessions and matrix are there (the module's other
    tests use SQLite)."""
    generate_session(pg_url, 6, name="small")
    with contextmanager(in_process)(pg_url) as api:
        started = api.http.post(
            "/api/versions", json={"target": {"command": DEMO}, "revisions": ["2025-11-25", "2026-07-28"]}
        )
        assert started.status_code == 202, started.text
        job = finish(api, started.json())
        assert job["state"] == "finished", job
        matrix = api.json(f"/api/versions/runs/{job['run']}")
        assert [c["session_id"] for c in matrix["columns"]] == list(job["sessions"].values())  # type: ignore[index]
        assert api.json("/api/versions/runs")[0]["run"] == job["run"]  # type: ignore[index]
