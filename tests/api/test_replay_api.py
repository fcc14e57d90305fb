"""Replay jobs, the diff route and the mock-server commands (the API in-process), against real demo servers.

The original session is the demo recorded through the real `wrap` shim (tests/data/sessions/demo.jsonl,
imported); the
replays spawn `python -m inspector.demo` (or its `--variant`) as real
subprocesses from the UI server, and record into the same database.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest

from inspector.api.replay_jobs import KEPT, ReplayJob, ReplayJobs
from inspector.store import get_session, open_engine
from tests.api.conftest import Api, in_process
from tests.http_peers import LineProcess
from tests.sessions import load
from tests.warm_peers import demo_argv

DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)
VARIANT_CHANGES = {"tools/list", "tools/call name=weather", "tools/call name=fail"}


@pytest.fixture(scope="module")
def replay_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """The API (in-process) on a database of this module's own (replays write into it); session 1 is the demo."""
    db = tmp_path_factory.mktemp("replay") / "replay.db"
    load(db, "demo", name="demo")
    yield from in_process(db)


def start(api: Api, session: int | str = 1, **body: Any) -> dict[str, Any]:
    response = api.http.post(f"/api/sessions/{session}/replay", json=body)
    assert response.status_code == 202, response.text
    return response.json()  # type: ignore[no-any-return]


def finish(api: Api, job: dict[str, Any], limit: float = 90) -> dict[str, Any]:
    """Long-poll the job until it is no longer running (bounded)."""
    deadline = time.monotonic() + limit
    while job["state"] == "running":
        assert time.monotonic() < deadline, f"replay job still running after {limit}s: {job}"
        job = api.json(f"/api/replays/{job['id']}", wait=10)  # type: ignore[assignment]
    return job


def changed(report: dict[str, Any]) -> dict[str, list[str]]:
    return {
        x["summary"]: [c["path"] for c in x["changes"]] for x in report["exchanges"] if x["status"] != "equal"
    }


def test_replay_against_the_variant_shows_the_three_changed_exchanges(replay_api: Api) -> None:
    with replay_api.live() as ws:
        job = start(replay_api, target={"command": [*DEMO, "--variant"]}, ignore=["**.nothingLikeThis"])
        assert job["state"] == "running" and job["session_id"] == 1 and job["report"] is None
        created = json.loads(ws.recv(timeout=60))  # the replay session appears through the live feed
        while created["type"] != "session_created":
            created = json.loads(ws.recv(timeout=60))
        assert created["session"]["kind"] == "replay" and created["session"]["parent_id"] == 1
        done = finish(replay_api, job)
    assert done["state"] == "finished", done["error"]
    report = done["report"]
    assert report["original"] == report["a"] == 1
    assert report["replay"] == report["b"] == done["replay_session_id"] == created["session"]["id"]
    assert set(changed(report)) == VARIANT_CHANGES, changed(report)
    assert report["counts"]["changed"] == 3 and report["changed"] is True
    assert any(p.endswith("temperature_c") for p in changed(report)["tools/call name=weather"])
    assert any("tools[name=fail]" in p for p in changed(report)["tools/list"])
    assert "**.nothingLikeThis" in report["ignored"] and report["extra_ignore"] == ["**.nothingLikeThis"]
    replay = get_session(open_engine(replay_api.db), report["replay"])
    assert replay.kind == "replay" and replay.parent_id == 1 and replay.message_count > 40
    listed = replay_api.json("/api/sessions", kind="replay")
    assert report["replay"] in [s["id"] for s in listed["items"]]  # type: ignore[index]


def test_calibrated_replay_against_the_same_server_is_unchanged(replay_api: Api) -> None:
    done = finish(replay_api, start(replay_api, target={"command": DEMO}, calibrate=True))
    assert done["state"] == "finished", done["error"]
    assert len(done["replay_session_ids"]) == 2 and done["replay_session_id"] == done["replay_session_ids"][1]
    assert done["report"]["changed"] is False, changed(done["report"])
    assert done["report"]["counts"]["equal"] == len(done["report"]["exchanges"]) > 20


def test_a_replay_that_cannot_run_fails_with_the_reason(replay_api: Api) -> None:
    done = finish(replay_api, start(replay_api, target={"url": "http://127.0.0.1:9/mcp"}, timeout=5))
    assert done["state"] == "failed" and done["report"] is None
    assert "could not run" in done["error"] and "127.0.0.1:9" in done["error"]
    assert done["replay_session_id"] is not None  # the attempt is recorded, to look at
    assert done["ended_ns"] >= done["started_ns"]


def test_bad_replay_requests_get_clear_errors(replay_api: Api, tmp_path: Path) -> None:
    post = replay_api.http.post
    unknown = post("/api/sessions/999/replay", json={"target": {"command": DEMO}})
    assert unknown.status_code == 404 and "999" in unknown.json()["detail"]
    cases = [
        ({"target": {"command": DEMO, "url": "http://x/mcp"}}, "either `command`"),
        ({"target": {}}, "either `command`"),
        ({"target": {"url": "ftp://example/mcp"}}, "http:// or https://"),
        ({"target": {"command": []}}, "at least 1"),
        ({"target": {"command": DEMO}, "timeout": 0}, "greater than 0"),
        ({"target": {"command": DEMO}, "surprise": 1}, "Extra inputs"),
    ]
    for body, message in cases:
        response = post("/api/sessions/1/replay", json=body)
        assert response.status_code == 422, body
        assert message in json.dumps(response.json()["detail"]), (body, response.text)
    missing = post("/api/sessions/1/replay", json={"target": {"command": ["no-such-server-xyz"]}})
    assert missing.status_code == 400 and "no-such-server-xyz" in missing.json()["detail"]
    text_file = tmp_path / "server.txt"
    text_file.write_text("not a program")
    not_exec = post("/api/sessions/1/replay", json={"target": {"command": [str(text_file)]}})
    assert not_exec.status_code == 400 and "not an executable" in not_exec.json()["detail"]
    pattern = post("/api/sessions/1/replay", json={"target": {"command": DEMO}, "ignore": ["result.[oops"]})
    assert pattern.status_code == 400 and "bad ignore pattern 'result.[oops'" in pattern.json()["detail"]
    # A cross-site form can only send text/plain: such a body is not taken as JSON.
    plain = post(
        "/api/sessions/1/replay",
        content=json.dumps({"target": {"command": DEMO}}),
        headers={"content-type": "text/plain"},
    )
    assert plain.status_code == 422
    job = replay_api.get("/api/replays/nope")
    assert job.status_code == 404 and "no replay job" in job.json()["detail"]


def test_diff_of_two_sessions_by_id_and_name_with_ignore(replay_api: Api) -> None:
    done = finish(replay_api, start(replay_api, target={"command": [*DEMO, "--variant"]}))
    b = done["replay_session_id"]
    report: Any = replay_api.json("/api/diff", a="demo", b=b, equal="true")  # equal ones listed too
    assert report["a"] == 1 and report["b"] == b
    assert set(changed(report)) == VARIANT_CHANGES
    ignored: Any = replay_api.json(
        "/api/diff", a=1, b=b, ignore=["tools/call[name=weather]:", "tools/call[name=fail]:result"]
    )
    assert set(changed(ignored)) == {"tools/list"}
    assert "tools/call[name=weather]:" in ignored["ignored"]
    same: Any = replay_api.json("/api/diff", a=1, b=1)
    assert same["changed"] is False and same["counts"]["changed"] == 0
    missing = replay_api.get("/api/diff", a=1, b=12345)
    assert missing.status_code == 404 and "12345" in missing.json()["detail"]
    bad = replay_api.get("/api/diff", a=1, b=1, ignore="x[")
    assert bad.status_code == 400 and "bad ignore pattern" in bad.json()["detail"]
    assert replay_api.get("/api/diff", a=1).status_code == 422

    # Each side of a changed exchange is the JSON its change paths point into.
    weather = next(x for x in report["exchanges"] if x["summary"] == "tools/call name=weather")
    sides = [
        replay_api.json("/api/diff/side", session=sid, seq=seq)
        for sid, seq in ((1, weather["original_seq"]), (b, weather["replay_seq"]))
    ]
    temps = [side["view"]["result"]["structuredContent"]["temperature_c"] for side in sides]  # type: ignore[index]
    before, after = next(
        (c["before"], c["after"]) for c in weather["changes"] if c["path"].endswith("temperature_c")
    )
    assert temps == [before, after] and before != after
    assert (
        sides[0]["view"]["params"]["name"] == "weather" and sides[0]["answer_seq"] > weather["original_seq"]
    )  # type: ignore[index]
    slow = next(x for x in report["exchanges"] if x["summary"] == "tools/call name=count_slowly")
    progress: Any = replay_api.json("/api/diff/side", session=1, seq=slow["original_seq"])
    assert len(progress["view"]["notifications"]["notifications/progress"]) == 3  # linked by the recorder
    gone = replay_api.get("/api/diff/side", session=1, seq=9999)
    assert gone.status_code == 404 and "9999" in gone.json()["detail"]


def test_mock_server_commands_work_as_shown(replay_api: Api) -> None:
    doc: Any = replay_api.json("/api/sessions/1/mock-server")
    db = str(replay_api.db.resolve())
    assert doc["db"] == db and Path(doc["stdio"]["argv"][0]).name == "mcp-inspect"
    assert doc["stdio"]["argv"][1:] == ["mock-server", "1", "--db", db]
    assert doc["stdio"]["shell"].endswith(f"mock-server 1 --db {db}")
    (entry,) = doc["stdio"]["client_config"]["mcpServers"].values()
    assert [entry["command"], *entry["args"]] == doc["stdio"]["argv"]
    port = doc["http"]["port"]
    assert doc["http"]["argv"][-2:] == ["--http", f"127.0.0.1:{port}"]
    assert doc["http"]["url"] == f"http://127.0.0.1:{port}/mcp"
    chosen: Any = replay_api.json("/api/sessions/1/mock-server", port=7777)
    assert chosen["http"]["url"] == "http://127.0.0.1:7777/mcp"
    assert replay_api.get("/api/sessions/424242/mock-server").status_code == 404

    # The shown commands really serve the recording: the SDK client gets the recorded answer.
    async def echo(server: mcp.StdioServerParameters | str) -> str:
        with anyio.fail_after(60):
            async with mcp.Client(server, mode="legacy") as client:
                result = await client.call_tool("echo", {"text": "hello inspector"})
        return result.content[0].text  # type: ignore[union-attr]

    argv = doc["stdio"]["argv"]
    assert anyio.run(echo, mcp.StdioServerParameters(command=argv[0], args=argv[1:])) == "hello inspector"
    server = LineProcess(doc["http"]["argv"])
    try:
        assert server.wait_for(r"mock server at (\S+);").group(1) == doc["http"]["url"]
        assert anyio.run(echo, doc["http"]["url"]) == "hello inspector"
    finally:
        server.stop()


def test_only_the_last_finished_jobs_are_kept(tmp_path: Path) -> None:
    jobs = ReplayJobs(open_engine(tmp_path / "jobs.db"))
    for i in range(KEPT):
        args = {"session_id": 1, "target": ["x"], "calibrate": False, "ignore": [], "timeout": 1.0}
        jobs.jobs[f"old{i}"] = ReplayJob(id=f"old{i}", state="finished", **args)  # type: ignore[arg-type]
    job = jobs.start({"session_id": 7, "target": DEMO, "calibrate": False, "ignore": [], "timeout": 1.0})
    assert "old0" not in jobs.jobs and "old1" in jobs.jobs and jobs.get(job.id) is job
    assert len(jobs.jobs) == KEPT
    assert job.done.wait(30)
    assert job.state == "failed" and job.error == "no session with id 7"


def test_a_replay_job_records_into_a_postgresql_store(pg_url: str) -> None:
    """The same job on a PostgreSQL store: the UI's replay spawns the demo, records the replay there
    (the spawned recorder gets the store's URL) and diffs it. The module's other tests use SQLite."""
    load(pg_url, "demo", name="demo")
    with contextmanager(in_process)(pg_url) as api:
        done = finish(api, start(api, target={"command": [*DEMO, "--variant"]}))
        assert done["state"] == "finished", done["error"]
        assert set(changed(done["report"])) == VARIANT_CHANGES, changed(done["report"])
        replay = get_session(open_engine(pg_url), done["replay_session_id"])
        assert replay.kind == "replay" and replay.parent_id == 1 and replay.message_count > 40
