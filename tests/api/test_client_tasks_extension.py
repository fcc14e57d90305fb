"""Tasks as the `io.modelcontextprotocol/tasks` extension (2026-07-28) through the mock client API,
against an SDK 2.x server offering it (tests/peers/tasks_extension_server.py): a tool call answered
with a task handle, `tasks/get` polls, `tasks/update` answers its input request, the task completes;
the recorded session lints without "unknown method" findings for the extension's methods."""

from __future__ import annotations

import orjson

from inspector.lint import lint_session
from inspector.store import iter_messages, open_engine
from tests.api.conftest import Api
from tests.api.test_client_api import _connect, _ok, _request
from tests.api.test_client_features_api import _activity, _methods
from tests.cli_in_process import run
from tests.warm_peers import peer_argv

# The SDK server, forked from the warm server of tests/warm_peers.py (~2 s of imports less a start).
PEER = peer_argv("tests.peers.tasks_extension_server")


def test_tasks_extension_get_and_update(fresh_api: Api) -> None:
    api = fresh_api
    created = _connect(api, {"command": PEER}, "2026-07-28")
    cid, sid = created["id"], created["session_id"]
    features = _activity(api, cid)["features"]
    assert features["tasks"] and features["task_update"] and features["task_cancel"]
    assert not features["task_tools"] and not features["task_list"]

    handle = _request(api, cid, "tools/call", {"name": "research", "arguments": {"topic": "tides"}})["result"]
    assert handle["resultType"] == "task"
    tid = handle["taskId"]
    polled = _ok(api.http.get(f"/api/clients/{cid}/tasks/{tid}"))["result"]
    assert polled["status"] == "input_required" and "confirm-topic" in polled["inputRequests"]
    answer = {"inputResponses": {"confirm-topic": {"action": "accept", "content": {"ok": True}}}}
    _ok(api.http.post(f"/api/clients/{cid}/tasks/{tid}/update", json=answer))
    done = _ok(api.http.get(f"/api/clients/{cid}/tasks/{tid}"))["result"]
    assert done["status"] == "completed" and "Research report: tides" in done["result"]["content"][0]["text"]
    tasks = {t["taskId"]: t for t in _activity(api, cid)["tasks"]}
    assert tasks[tid]["status"] == "completed"

    refused = api.http.get(f"/api/clients/{cid}/tasks")  # tasks/list is gone from the extension
    assert refused.status_code == 409

    sent = _methods(api, sid, "c2s", ("tasks/get", "tasks/update"))
    assert sent.count("tasks/get") == 2 and sent.count("tasks/update") == 1
    findings = [f.rule for f in lint_session(open_engine(api.db), sid)]
    assert "unknown-method" not in findings


def test_version_matrix_replays_a_task_conversation(fresh_api: Api) -> None:
    """The recorded tools/call -> tasks/get -> tasks/update -> tasks/get, replayed per revision: the
    task id the server mints is substituted, so each step reaches the new task."""
    api = fresh_api
    created = _connect(api, {"command": PEER}, "2026-07-28")
    cid, sid = created["id"], created["session_id"]
    tid = _request(api, cid, "tools/call", {"name": "research", "arguments": {"topic": "tides"}})["result"][
        "taskId"
    ]
    _ok(api.http.get(f"/api/clients/{cid}/tasks/{tid}"))
    answer = {"inputResponses": {"confirm-topic": {"action": "accept", "content": {"ok": True}}}}
    _ok(api.http.post(f"/api/clients/{cid}/tasks/{tid}/update", json=answer))
    _ok(api.http.get(f"/api/clients/{cid}/tasks/{tid}"))
    _methods(api, sid, "s2c", ())  # (recording is off the client's path)
    _methods(api, sid, "c2s", ("tasks/get", "tasks/update"))
    done = run(
        "versions", "--db", str(api.db), "--json", "--revisions", "2026-07-28", "--replay", str(sid), "--", *PEER,
        timeout=120,
    )  # fmt: skip  # in-process (tests/cli_in_process.py): the command's output and exit status are the point
    assert done.returncode == 0, done.stderr
    matrix = orjson.loads(done.stdout)
    replay = {r["key"]: r["values"]["2026-07-28"] for r in matrix["rows"] if r["section"] == "replay"}
    assert replay == {
        "1. tools/call": "ok",
        "2. tasks/get": "ok",
        "3. tasks/update": "ok",
        "4. tasks/get": "ok",
    }, replay
    probe = matrix["columns"][0]["session_id"]
    rows = [
        orjson.loads(m.body) for m in iter_messages(open_engine(api.db), probe) if m.method == "tasks/get"
    ]
    statuses = [r["result"]["status"] for r in rows if "result" in r]
    assert statuses == ["input_required", "completed"]
