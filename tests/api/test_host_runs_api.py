"""The host runs API (in-process, httpx.ASGITransport): runs with their sessions, one run by any of
its session ids, and its timeline merged by time across servers (stderr rows included), paged by
cursor and filtered per server; behind the same token as every route."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.host_runs_data import CONFIG_FILE, MS, T0, record_runs
from tests.two_sessions import api_client

pytestmark = pytest.mark.anyio


async def test_runs_run_and_timeline(db_path: Path) -> None:
    ids = record_runs(db_path)
    async for api in api_client(db_path):
        listed = (await api.get("/api/host-runs")).json()
        assert listed["total"] == 3 and listed["limit"] == 100
        run = next(r for r in listed["items"] if r["id"] == ids["a1"])
        assert run["name"] == "claude-ai" and run["live"] is True and run["ended_ns"] is None
        assert run["config_files"] == [CONFIG_FILE]
        assert [(s["id"], s["name"], s["state"]) for s in run["sessions"]] == [
            (ids["a1"], "weather", "ended"),
            (ids["a2"], "files", "recording"),
        ]
        assert (await api.get("/api/host-runs", params={"name": "other"})).json()["total"] == 1

        one = (await api.get(f"/api/host-runs/{ids['a2']}")).json()
        assert one["id"] == ids["a1"]

        page = (await api.get(f"/api/host-runs/{ids['a1']}/timeline")).json()
        got = [(r["session_id"], r["channel"], (r["ts_ns"] - T0) // MS) for r in page["items"]]
        assert got == [
            (ids["a1"], "stdin", 10),
            (ids["a2"], "stdin", 20),
            (ids["a1"], "stderr", 30),
            (ids["a2"], "stderr", 40),
            (ids["a1"], "stdout", 50),
        ]
        assert page["next_cursor"] is None and page["last_cursor"]

        first = (await api.get(f"/api/host-runs/{ids['a1']}/timeline", params={"limit": 2})).json()
        assert len(first["items"]) == 2 and first["next_cursor"]
        rest = (
            await api.get(f"/api/host-runs/{ids['a1']}/timeline", params={"cursor": first["next_cursor"]})
        ).json()
        assert [r["id"] for r in first["items"] + rest["items"]] == [r["id"] for r in page["items"]]
        # Nothing new after the last row (a live run's view asks again from here).
        after = (
            await api.get(f"/api/host-runs/{ids['a1']}/timeline", params={"cursor": page["last_cursor"]})
        ).json()
        assert after == {"items": [], "next_cursor": None, "last_cursor": None}

        only = (
            await api.get(
                f"/api/host-runs/{ids['a1']}/timeline", params={"session": ids["a2"], "channel": "stderr"}
            )
        ).json()
        assert [(r["session_id"], r["preview"].strip()) for r in only["items"]] == [
            (ids["a2"], "files: ready")
        ]


async def test_errors_are_clear_answers(db_path: Path) -> None:
    ids = record_runs(db_path)
    async for api in api_client(db_path):
        missing = await api.get("/api/host-runs/999")
        assert missing.status_code == 404 and "no host run with id 999" in missing.json()["detail"]
        lone = await api.get(f"/api/host-runs/{ids['lone']}/timeline")
        assert lone.status_code == 404 and "no host process" in lone.json()["detail"]
        bad = await api.get(f"/api/host-runs/{ids['a1']}/timeline", params={"cursor": "nonsense"})
        assert bad.status_code == 400 and "bad cursor" in bad.json()["detail"]
        huge = await api.get(f"/api/host-runs/{2**70}")
        assert huge.status_code == 422


async def test_host_runs_need_the_token(db_path: Path) -> None:
    record_runs(db_path)
    async for api in api_client(db_path):
        transport = api._transport
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as anonymous:
            for path in ("/api/host-runs", "/api/host-runs/1", "/api/host-runs/1/timeline"):
                assert (await anonymous.get(path)).status_code == 401
