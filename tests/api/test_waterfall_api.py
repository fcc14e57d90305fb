"""`GET /api/sessions/{id}/waterfall` and `GET /api/host-runs/{id}/waterfall` (issue #39 item 3): the
spans `store.waterfall` computes, for a window and a budget; a host run's servers as lanes; the brush's
time range as a filter of the timeline's messages (`from_ns`, `to_ns`); in process
(httpx.ASGITransport)."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.store import open_engine
from inspector.store.waterfall import Window, session_waterfall
from tests.host_runs_data import MS, T0, record_runs
from tests.sessions import load
from tests.two_sessions import api_client

pytestmark = pytest.mark.anyio


async def test_the_api_serves_the_spans_of_a_window(db_path: Path) -> None:
    sid = load(db_path, "demo")
    engine = open_engine(db_path)
    try:
        whole = session_waterfall(engine, sid)
        spans = {s["seq"]: s for s in whole["lanes"][0]["spans"]}
        lo, hi = spans[27]["start_ns"], spans[27]["end_ns"]
        window = session_waterfall(engine, sid, Window(lo, hi))
    finally:
        engine.dispose()
    async for api in api_client(db_path):
        served = (await api.get(f"/api/sessions/{sid}/waterfall")).json()
        assert served == whole
        part = (await api.get(f"/api/sessions/{sid}/waterfall", params={"from_ns": lo, "to_ns": hi})).json()
        assert part == window and part["lo"] == lo and part["hi"] == hi
        sampling = next(s for s in part["lanes"][0]["spans"] if s["method"] == "sampling/createMessage")
        assert sampling["parent_seq"] == 27
        agg = (await api.get(f"/api/sessions/{sid}/waterfall", params={"limit": 0, "buckets": 50})).json()
        assert agg["lanes"][0]["spans"] is None and sum(agg["lanes"][0]["buckets"]["count"]) == len(spans)

        # The brush: the timeline's messages recorded in the window, and only those.
        page = (
            await api.get(f"/api/sessions/{sid}/messages", params={"from_ns": lo, "to_ns": hi, "count": True})
        ).json()
        assert [r["seq"] for r in page["items"]] == [27, 28, 29, 30] and page["total"] == 4

        # Hostile or wrong values: a clear 4xx, a window past the rows clamped to them.
        for path, status in (
            ("/api/sessions/999/waterfall", 404),
            (f"/api/sessions/{sid}/waterfall?limit=-1", 422),
            (f"/api/sessions/{sid}/waterfall?buckets=0", 422),
            (f"/api/sessions/{sid}/waterfall?from_ns=99999999999999999999", 422),
        ):
            assert (await api.get(path)).status_code == status, path
        far = (await api.get(f"/api/sessions/{sid}/waterfall", params={"from_ns": 2**63 - 1})).json()
        assert far["lo"] == far["hi"] == whole["end_ns"]


async def test_a_host_run_has_a_lane_per_server(db_path: Path) -> None:
    ids = record_runs(db_path)
    async for api in api_client(db_path):
        run = (await api.get(f"/api/host-runs/{ids['a2']}/waterfall")).json()
        assert [lane["session_id"] for lane in run["lanes"]] == [ids["a1"], ids["a2"]]
        (a1,), (a2,) = (lane["spans"] for lane in run["lanes"])
        assert (a1["method"], a1["start_ns"], a1["end_ns"]) == ("initialize", T0 + 10 * MS, T0 + 50 * MS)
        assert (a2["start_ns"], a2["end_ns"], a2["answer_seq"]) == (T0 + 20 * MS, None, None)  # unanswered
        assert (run["start_ns"], run["end_ns"]) == (T0 + 10 * MS, T0 + 50 * MS)
        assert (await api.get(f"/api/host-runs/{ids['lone']}/waterfall")).status_code == 404
