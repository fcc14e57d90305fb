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


def test_a_host_runs_tools_list_cost_adds_up_its_servers(tmp_path: Path) -> None:
    # Two servers of one host run list tools (one in two pages), a third lists none: the run's cost is
    # the sum of each server's last complete listing, each server's as its own session's stats give it.
    from inspector.capture import Recorder
    from inspector.capture.redact import Redaction
    from inspector.capture.sessions import create_session
    from inspector.store import StoreWriter, open_engine
    from tests.host_runs_data import HOST_A, MS, T0

    def tool(name: str, description: str) -> dict[str, Any]:
        return {"name": name, "description": description, "inputSchema": {"type": "object"}}

    def listing(rpc_id: int, tools: list[dict[str, Any]], cursor: str | None = None) -> list[bytes]:
        params = {"cursor": cursor} if cursor else {}
        asked = {"jsonrpc": "2.0", "id": rpc_id, "method": "tools/list", "params": params}
        answer = {"jsonrpc": "2.0", "id": rpc_id, "result": {"tools": tools}}
        return [json.dumps(asked).encode() + b"\n", json.dumps(answer).encode() + b"\n"]

    servers = {
        "weather": [listing(1, [tool("forecast", "The weather")])],
        "files": [
            listing(1, [tool("read", "Read a file " * 20)]),
            listing(2, [tool("write", "Write")], "p2"),
        ],
        "quiet": [],
    }
    db = tmp_path / "rec.db"
    engine = open_engine(db)
    recorder = Recorder([StoreWriter(engine)], redaction=Redaction()).start()
    ids = {}
    for n, (name, pages) in enumerate(servers.items()):
        sid = ids[name] = create_session(engine, kind="stdio-wrap", target=["server", name], name=name)
        tap = recorder.open(sid)
        tap.add_facts({"parent": HOST_A})
        for i, (asked, answer) in enumerate(pages):
            tap.submit("c2s", "stdin", asked, T0 + (n * 10 + 2 * i) * MS)
            tap.submit("s2c", "stdout", answer, T0 + (n * 10 + 2 * i + 1) * MS)
        tap.end(0, "server exited")
    recorder.stop()
    engine.dispose()

    async def get_all() -> tuple[Any, dict[int, Any]]:
        with anyio.fail_after(30):
            async with contextlib.aclosing(two_sessions.api_client(db)) as clients:
                async for client in clients:
                    run = await client.get(f"/api/host-runs/{ids['files']}/tools")
                    each = {
                        sid: (await client.get(f"/api/sessions/{sid}/stats")).json() for sid in ids.values()
                    }
                    return run, each
        raise AssertionError("no client")

    answer, each = anyio.run(get_all)
    assert answer.status_code == 200, answer.text[:300]
    run = answer.json()
    assert run["run_id"] == ids["weather"]
    assert [s["session_id"] for s in run["servers"]] == [ids["weather"], ids["files"]]
    for server in run["servers"]:
        assert server["tools_list"] == each[server["session_id"]]["tools_list"]
    listed = [tool("forecast", "The weather"), tool("read", "Read a file " * 20), tool("write", "Write")]
    total = sum(len(json.dumps(t, separators=(",", ":")).encode()) for t in listed)
    assert (run["tools"], run["bytes"], run["tokens"]) == (3, total, -(-total // 4))
    assert each[ids["quiet"]]["tools_list"] is None
