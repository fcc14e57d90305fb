"""`GET /api/sessions/{id}/stats` (issue #39): the API serves the numbers `mcp-inspect stats --json`
prints (one computation, `store.stats`), with what the Overview tab draws: the latency histogram,
calls and errors over time and the slowest calls, consistent with the per-method numbers; in
process (httpx.ASGITransport)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import anyio

from tests import two_sessions
from tests.cli_in_process import run
from tests.sessions import load


async def _get(db: Path, path: str) -> Any:
    with anyio.fail_after(30):
        async with contextlib.aclosing(two_sessions.api_client(db)) as clients:
            async for client in clients:
                return await client.get(path)
    raise AssertionError("no client")


def test_the_api_serves_the_numbers_the_cli_prints(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    sid = load(db, "demo")
    http = load(db, "conversations_http")
    for session in (sid, http):
        answer = anyio.run(_get, db, f"/api/sessions/{session}/stats")
        assert answer.status_code == 200, answer.text[:300]
        served = answer.json()
        printed = run("stats", str(session), "--json", env={"MCP_INSPECTOR_DB": str(db)})
        assert printed.returncode == 0, printed.stderr
        cli = json.loads(printed.stdout)
        assert served["methods"] == cli["methods"] and served["tools_list"] == cli["tools_list"]
        per_method = {r["method"]: r for r in served["methods"] if r["name"] is None}
        # the histogram counts each method's answered calls, the timeline every call and failure
        for method, buckets in served["histogram"]["methods"].items():
            assert len(buckets) == len(served["histogram"]["edges_ms"]) + 1
            assert sum(buckets) > 0 and per_method[method]["p50_ms"] is not None
        assert sum(served["timeline"]["calls"]) == sum(r["count"] for r in per_method.values())
        assert sum(served["timeline"]["errors"]) == sum(r["errors"] for r in per_method.values())
        slowest = served["slowest"]
        assert slowest and [c["latency_ms"] for c in slowest] == sorted(
            (c["latency_ms"] for c in slowest), reverse=True
        )
        assert slowest[0]["latency_ms"] == max(r["max_ms"] or 0 for r in per_method.values())


def test_stats_of_a_session_that_does_not_exist_is_a_404(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    load(db, "demo")
    for path, status in (("/api/sessions/99/stats", 404), ("/api/sessions/x/stats", 422)):
        answer = anyio.run(_get, db, path)
        assert answer.status_code == status, answer.text[:300]
