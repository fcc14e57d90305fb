"""Working with the server through the mock client API: subscriptions, completions, log level, ping,
progress, cancel and tasks, against server-everything (stdio) and the demo server (Streamable HTTP),
each step checked in the recorded `mock-client` session.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import httpx
import orjson
import pytest

from inspector.store import iter_messages, open_engine
from tests.api.conftest import Api
from tests.api.test_client_api import DEMO, _connect, _ok, _request
from tests.api.test_live import _next, _ws
from tests.http_peers import demo_http_server
from tests.recorded import rows_until

WAIT_S = 60


def _activity(api: Api, cid: str) -> dict[str, Any]:
    return _ok(api.http.get(f"/api/clients/{cid}/activity"))  # type: ignore[no-any-return]


def _until(api: Api, cid: str, check: Callable[[dict[str, Any]], Any], what: str) -> Any:
    """Poll the activity (bounded) until `check` returns something truthy."""
    deadline = time.monotonic() + WAIT_S
    while True:
        activity = _activity(api, cid)
        found = check(activity)
        if found:
            return found
        assert time.monotonic() < deadline, f"{what} never happened: {activity}"
        time.sleep(0.05)


def _rows(api: Api, session_id: int) -> list[Any]:
    return list(iter_messages(open_engine(api.db), session_id))


def _rows_until(api: Api, session_id: int, check: Callable[[list[Any]], bool], what: str) -> list[Any]:
    """Read the session's rows (bounded) until `check` holds: recording is off the client's path,
    so the last rows land a moment after the API call that caused them returned."""
    return rows_until(open_engine(api.db), session_id, check, what, WAIT_S)


def _closed_by_client(rows: list[Any]) -> list[Any]:
    return [m for m in rows if (m.meta or {}).get("problem") == "closed by the client to cancel the request"]


def _methods(api: Api, session_id: int, direction: str, expect: tuple[str, ...]) -> list[str]:
    """The methods recorded in one direction, once (bounded) every expected one is stored."""

    def methods(rows: list[Any]) -> list[str]:
        return [m.method or "" for m in rows if m.direction == direction and m.method]

    rows = _rows_until(api, session_id, lambda rows: set(expect) <= set(methods(rows)), f"{expect}")
    return methods(rows)


def _in_flight(method: str) -> Callable[[dict[str, Any]], Any]:
    return lambda a: next((r for r in a["inflight"] if r["method"] == method and r["progress"]), None)


def _call_in_background(api: Api, cid: str, tool: str, args: dict[str, Any]) -> Future[httpx.Response]:
    pool = ThreadPoolExecutor(1)
    body = {"method": "tools/call", "params": {"name": tool, "arguments": args}, "progress": True}
    future = pool.submit(api.http.post, f"/api/clients/{cid}/request", json=body)
    pool.shutdown(wait=False)
    return future


def _cancel_a_long_call(api: Api, cid: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    call = _call_in_background(api, cid, tool, args)
    running = _until(api, cid, _in_flight("tools/call"), "progress on the long call")
    assert running["state"] == "pending" and running["progress"]["progress"] >= 1
    key = running["key"]
    cancelled = _ok(api.http.post(f"/api/clients/{cid}/requests/{key}/cancel", json={"reason": "enough"}))
    assert cancelled["state"] == "cancelled" and cancelled["cancel_reason"] == "enough"
    # The waiting request ends as cancelled (409), and a second cancel is refused.
    answer = call.result(timeout=WAIT_S)
    assert answer.status_code == 409 and "cancelled" in answer.json()["detail"], answer.text
    again = api.http.post(f"/api/clients/{cid}/requests/{key}/cancel", json={})
    assert again.status_code == 409 and "not in flight" in again.json()["detail"]
    done = next(r for r in _activity(api, cid)["recent"] if r["key"] == key)
    assert done["state"] == "cancelled"
    return done  # type: ignore[no-any-return]


def test_everything_over_stdio(fresh_api: Api, everything_cmd: list[str]) -> None:
    api = fresh_api
    ws = _ws(api)
    created = _connect(api, {"command": everything_cmd}, "2025-11-25")
    cid, sid = created["id"], created["session_id"]
    features = _activity(api, cid)["features"]
    assert features["subscribe"] and features["completions"] and features["set_level"]
    assert features["task_tools"] and features["task_list"] and features["task_cancel"]

    pinged = _ok(api.http.post(f"/api/clients/{cid}/ping"))
    assert pinged["latency_ms"] > 0 and pinged["response"]["result"] == {}

    # Log level, then a subscription: server-everything logs each subscribe at info level.
    level = _ok(api.http.put(f"/api/clients/{cid}/log-level", json={"level": "info"}))
    assert level["via"] == "logging/setLevel" and "result" in level["response"]
    uri = "demo://resource/dynamic/text/1"
    assert "result" in _ok(api.http.post(f"/api/clients/{cid}/subscriptions", json={"uri": uri}))
    log = _until(api, cid, lambda a: [e for e in a["logs"] if "Subscribe" in str(e["data"])], "a log")
    assert log[0]["level"] == "info" and log[0]["time"] > 0
    _request(api, cid, "tools/call", {"name": "toggle-subscriber-updates", "arguments": {}})
    sub = _until(
        api, cid, lambda a: [s for s in a["subscriptions"] if s["uri"] == uri and s["updates"]], "update"
    )
    assert sub[0]["subscribed"] and sub[0]["last_update"] >= sub[0]["since"]
    update = _next(ws, "client_activity", time.monotonic() + WAIT_S, client_id=cid, kind="resource_updated")
    assert update["item"]["uri"] == uri
    _request(api, cid, "tools/call", {"name": "toggle-subscriber-updates", "arguments": {}})
    assert "result" in _ok(api.http.delete(f"/api/clients/{cid}/subscriptions", params={"uri": uri}))
    gone = api.http.delete(f"/api/clients/{cid}/subscriptions", params={"uri": uri})
    assert gone.status_code == 404 and "not subscribed" in gone.json()["detail"]

    # Completions, the second one with the first argument as context.
    ref = {"type": "ref/prompt", "name": "completable-prompt"}
    first = _ok(
        api.http.post(f"/api/clients/{cid}/complete", json={"ref": ref, "name": "department", "value": "E"})
    )
    assert first["result"]["completion"]["values"] == ["Engineering"]
    body = {"ref": ref, "name": "name", "value": "", "context": {"department": "Engineering"}}
    second = _ok(api.http.post(f"/api/clients/{cid}/complete", json=body))
    assert second["result"]["completion"]["values"] == ["Alice", "Bob", "Charlie"]

    # Progress on a long-running tool, published live and kept on the request.
    call = _call_in_background(api, cid, "trigger-long-running-operation", {"duration": 1, "steps": 4})
    assert call.result(timeout=WAIT_S).status_code == 200
    done = _until(
        api, cid, lambda a: [r for r in a["recent"] if r["method"] == "tools/call" and r["progress"]], ""
    )
    assert done[0]["progress_count"] == 4
    assert done[0]["progress"]["progress"] == 4 and done[0]["progress"]["total"] == 4
    progress = _next(ws, "client_activity", time.monotonic() + WAIT_S, client_id=cid, kind="progress")
    assert progress["item"]["request"]["method"] == "tools/call"

    cancelled = _cancel_a_long_call(api, cid, "trigger-long-running-operation", {"duration": 60, "steps": 60})
    assert cancelled["cancel_via"] == "notification"

    # Tasks: call as a task, list, poll, fetch the result; cancel another one.
    task_call = {"name": "simulate-research-query", "arguments": {"topic": "tides"}, "ttl_ms": 60_000}
    task = _ok(api.http.post(f"/api/clients/{cid}/tasks", json=task_call))["result"]["task"]
    tid = task["taskId"]
    assert task["status"] == "working"
    listed = _ok(api.http.get(f"/api/clients/{cid}/tasks"))["result"]["tasks"]
    assert tid in [t["taskId"] for t in listed]
    polled = _ok(api.http.get(f"/api/clients/{cid}/tasks/{tid}"))["result"]
    assert polled["taskId"] == tid and polled["status"] in ("working", "completed")
    result = _ok(api.http.post(f"/api/clients/{cid}/tasks/{tid}/result"))["result"]
    assert "Research Report: tides" in result["content"][0]["text"]
    other = _ok(api.http.post(f"/api/clients/{cid}/tasks", json=task_call))["result"]["task"]["taskId"]
    assert _ok(api.http.post(f"/api/clients/{cid}/tasks/{other}/cancel"))["result"]["status"] == "cancelled"
    tasks = {t["taskId"]: t for t in _activity(api, cid)["tasks"]}
    assert tasks[tid]["result"]["content"] and tasks[other]["status"] == "cancelled"
    ws.close()

    # Every step is in the recorded session.
    expect_sent = ("ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe",
                   "completion/complete", "notifications/cancelled", "tasks/list", "tasks/get",
                   "tasks/result", "tasks/cancel")  # fmt: skip
    sent = _methods(api, sid, "c2s", expect_sent)
    for method in expect_sent:
        assert method in sent, method
    expect_received = ("notifications/message", "notifications/resources/updated", "notifications/progress")
    received = _methods(api, sid, "s2c", expect_received)
    for method in expect_received:
        assert method in received, method
    notice = next(orjson.loads(m.body) for m in _rows(api, sid) if m.method == "notifications/cancelled")
    assert notice["params"] == {"requestId": int(cancelled["key"]), "reason": "enough"}
    call_as_task = [
        orjson.loads(m.body) for m in _rows(api, sid) if m.method == "tools/call" and m.kind == "request"
    ]
    assert any(c["params"].get("task") == {"ttl": 60_000} for c in call_as_task)


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    """One demo server over Streamable HTTP for this module's tests (each connects its own MCP session)."""
    with demo_http_server(warm=True) as url:
        yield url


def test_demo_over_streamable_http(fresh_api: Api, demo_url: str) -> None:
    api = fresh_api
    created = _connect(api, {"url": demo_url}, "2025-11-25")
    cid, sid = created["id"], created["session_id"]
    features = _activity(api, cid)["features"]
    assert features["subscribe"] and features["completions"] and not features["tasks"]
    refused = api.http.post(f"/api/clients/{cid}/tasks", json={"name": "echo"})
    assert refused.status_code == 409 and "tasks.requests.tools.call" in refused.json()["detail"]

    no_listen = api.http.put(f"/api/clients/{cid}/listen", json={"tools": True})
    assert no_listen.status_code == 409 and "come without asking" in no_listen.json()["detail"]
    uri = "demo://notes/shopping"
    _ok(api.http.post(f"/api/clients/{cid}/subscriptions", json={"uri": uri}))
    edited = _request(
        api, cid, "tools/call", {"name": "edit_note", "arguments": {"name": "shopping", "text": "tea"}}
    )
    assert "subscribers notified" in edited["result"]["content"][0]["text"]
    _until(
        api,
        cid,
        lambda a: [s for s in a["subscriptions"] if s["uri"] == uri and s["updates"] == 1],
        "update",
    )

    ref = {"type": "ref/resource", "uri": "demo://notes/{name}"}
    notes = _ok(
        api.http.post(f"/api/clients/{cid}/complete", json={"ref": ref, "name": "name", "value": "sh"})
    )
    assert notes["result"]["completion"]["values"] == ["shopping"]

    assert _ok(api.http.put(f"/api/clients/{cid}/log-level", json={"level": "debug"}))["level"] == "debug"
    _request(api, cid, "tools/call", {"name": "count_slowly", "arguments": {"n": 2}})
    logs = _until(api, cid, lambda a: [e for e in a["logs"] if e["data"] == "tick 2"], "a debug log")
    assert logs[0]["level"] == "debug" and logs[0]["logger"] == "demo"

    cancelled = _cancel_a_long_call(api, cid, "count_slowly", {"n": 1000, "delay_s": 0.05})
    assert cancelled["cancel_via"] == "notification"
    assert _ok(api.http.post(f"/api/clients/{cid}/ping"))["latency_ms"] > 0

    expect_sent = (
        "resources/subscribe",
        "completion/complete",
        "logging/setLevel",
        "notifications/cancelled",
        "ping",
    )
    sent = _methods(api, sid, "c2s", expect_sent)
    for method in expect_sent:
        assert method in sent, method
    received = _methods(api, sid, "s2c", ("notifications/resources/updated", "notifications/progress"))
    assert "notifications/resources/updated" in received and "notifications/progress" in received


def _listens(rows: list[Any]) -> list[dict[str, Any]]:
    return [
        orjson.loads(m.body)
        for m in rows
        if m.method == "subscriptions/listen" and m.kind == "request" and m.direction == "c2s"
    ]


def _listen_requests(api: Api, sid: int, count: int = 5) -> list[dict[str, Any]]:
    """The recorded listen requests, once (bounded) the `count` the test sent are stored."""
    return _listens(_rows_until(api, sid, lambda rows: len(_listens(rows)) >= count, f"{count} listens"))


def _subscribe_through_listen(api: Api, cid: str, sid: int) -> None:
    """At 2026-07-28 subscribing opens a subscriptions/listen stream; changing the set re-listens."""
    features = _activity(api, cid)["features"]
    assert features["subscribe"] and features["listen"]
    note, readme = "demo://notes/shopping", "demo://readme"
    first = _ok(api.http.post(f"/api/clients/{cid}/subscriptions", json={"uri": note}))
    assert first["method"] == "notifications/subscriptions/acknowledged"
    assert first["params"]["notifications"]["resourceSubscriptions"] == [note]
    assert first["listen"]["state"] == "open"
    edited = _request(
        api, cid, "tools/call", {"name": "edit_note", "arguments": {"name": "shopping", "text": "tea"}}
    )
    assert "changed" in edited["result"]["content"][0]["text"]
    sub = _until(
        api,
        cid,
        lambda a: [s for s in a["subscriptions"] if s["uri"] == note and s["updates"] == 1],
        "update",
    )
    assert sub[0]["subscribed"] and sub[0]["last_update"] >= sub[0]["since"]
    # A second URI and the list-changed opt-in: each is a new stream, the old one cancelled.
    _ok(api.http.post(f"/api/clients/{cid}/subscriptions", json={"uri": readme}))
    opted = _ok(api.http.put(f"/api/clients/{cid}/listen", json={"tools": True}))
    assert opted["params"]["notifications"] == {
        "toolsListChanged": True,
        "resourceSubscriptions": [note, readme],
    }
    listen = _activity(api, cid)["listen"]
    assert listen["current"]["state"] == "open" and listen["wanted"]["list_changed"]["tools"]
    assert [p["state"] for p in listen["past"]] == ["cancelled", "cancelled"]
    assert "replaced by listen" in listen["past"][0]["end_reason"]
    _request(api, cid, "tools/call", {"name": "edit_note", "arguments": {"name": "shopping", "text": "tea!"}})
    _until(
        api, cid, lambda a: [s for s in a["subscriptions"] if s["uri"] == note and s["updates"] == 2], "2nd"
    )
    # Unsubscribing every URI and the list changes: the stream is cancelled, nothing re-opened.
    _ok(api.http.delete(f"/api/clients/{cid}/subscriptions", params={"uri": readme}))
    _ok(api.http.delete(f"/api/clients/{cid}/subscriptions", params={"uri": note}))
    gone = api.http.delete(f"/api/clients/{cid}/subscriptions", params={"uri": note})
    assert gone.status_code == 404
    off = _ok(api.http.put(f"/api/clients/{cid}/listen", json={"tools": False}))
    assert off["listen"] is None
    _until(api, cid, lambda a: a["listen"]["current"]["state"] == "cancelled", "the last stream cancelled")
    activity = _activity(api, cid)
    assert not [s for s in activity["subscriptions"] if s["subscribed"]]
    assert not [r for r in activity["inflight"] if r["method"] == "subscriptions/listen"]
    # The recorded session: the listen requests with their filters, the acknowledgements and
    # the updates, each naming its stream.
    sent = _listen_requests(api, sid)
    assert [r["params"]["notifications"] for r in sent] == [
        {"resourceSubscriptions": [note]},
        {"resourceSubscriptions": [note, readme]},
        {"toolsListChanged": True, "resourceSubscriptions": [note, readme]},
        {"toolsListChanged": True, "resourceSubscriptions": [note]},
        {"toolsListChanged": True},
    ]
    assert all(r["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28" for r in sent)

    # Recording is off the client's path: wait (bounded) until the acknowledgements and updates are stored.
    def frames_of(rows: list[Any], method: str) -> list[Any]:
        return [
            body
            for m in rows
            if m.direction == "s2c"
            and m.kind == "notification"
            and (body := orjson.loads(m.body))["method"] == method
        ]

    ack, updated = "notifications/subscriptions/acknowledged", "notifications/resources/updated"
    rows = _rows_until(
        api,
        sid,
        lambda rows: len(frames_of(rows, ack)) >= len(sent) and len(frames_of(rows, updated)) >= 2,
        "every acknowledgement and update",
    )
    acks, updates = frames_of(rows, ack), frames_of(rows, updated)
    key = "io.modelcontextprotocol/subscriptionId"
    assert [a["params"]["_meta"][key] for a in acks] == [r["id"] for r in sent]
    assert [u["params"]["uri"] for u in updates] == [note, note]
    assert [u["params"]["_meta"][key] for u in updates] == [sent[0]["id"], sent[2]["id"]]


def test_2026_over_stdio_subscribes_through_listen(fresh_api: Api) -> None:
    api = fresh_api
    created = _connect(api, {"command": DEMO}, "2026-07-28")
    cid, sid = created["id"], created["session_id"]
    _subscribe_through_listen(api, cid, sid)

    # On stdio the old streams are cancelled with notifications/cancelled naming them.
    def _cancels(rows: list[Any]) -> list[dict[str, Any]]:
        return [orjson.loads(m.body) for m in rows if m.method == "notifications/cancelled"]

    cancels = _cancels(_rows_until(api, sid, lambda rows: len(_cancels(rows)) >= 5, "5 cancels"))
    assert [c["params"]["requestId"] for c in cancels] == [r["id"] for r in _listen_requests(api, sid)]


def test_2026_over_http_cancels_by_closing_the_stream(fresh_api: Api, demo_url: str) -> None:
    api = fresh_api
    created = _connect(api, {"url": demo_url}, "2026-07-28")
    cid, sid = created["id"], created["session_id"]
    _subscribe_through_listen(api, cid, sid)
    rows = _rows_until(api, sid, lambda rows: len(_closed_by_client(rows)) >= 5, "5 closed streams")
    assert len(_closed_by_client(rows)) == 5
    # No logging/setLevel at 2026-07-28: the level goes in each request's _meta.
    assert _ok(api.http.put(f"/api/clients/{cid}/log-level", json={"level": "info"}))["via"] == "_meta"
    cancelled = _cancel_a_long_call(api, cid, "count_slowly", {"n": 1000, "delay_s": 0.05})
    assert cancelled["cancel_via"] == "stream-closed"
    rows = _rows_until(api, sid, lambda rows: len(_closed_by_client(rows)) >= 6, "the 6th closed stream")
    assert "notifications/cancelled" not in [m.method for m in rows]
    closes = _closed_by_client(rows)
    assert len(closes) == 6 and closes[-1].meta["cancel_reason"] == "enough"
    calls = [orjson.loads(m.body) for m in rows if m.method == "tools/call" and m.kind == "request"]
    assert calls[-1]["params"]["_meta"]["io.modelcontextprotocol/logLevel"] == "info"


HANDSHAKE_THEN_EXIT = (
    "import sys, json; m = json.loads(sys.stdin.readline()); "
    "print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {'protocolVersion': '2025-11-25', "
    "'capabilities': {}, 'serverInfo': {'name': 'brief', 'version': '1'}}}), flush=True); "
    "next(line for line in iter(sys.stdin.readline, '') if 'exit-now' in line)"
)


def test_clear_errors(fresh_api: Api) -> None:
    api = fresh_api
    assert api.http.post("/api/clients/nope/ping").status_code == 404
    created = _connect(api, {"command": [sys.executable, "-c", HANDSHAKE_THEN_EXIT]}, "2025-11-25")
    cid = created["id"]
    # The server declared nothing: each feature is refused with the reason.
    for method, path, body in (
        ("post", "subscriptions", {"uri": "x://y"}),
        ("post", "complete", {"ref": {"type": "ref/prompt", "name": "p"}, "name": "a"}),
        ("put", "log-level", {"level": "debug"}),
    ):
        response = api.http.request(method, f"/api/clients/{cid}/{path}", json=body)
        assert response.status_code == 409 and "did not declare" in response.json()["detail"], response.text
    assert api.http.get(f"/api/clients/{cid}/tasks").status_code == 409
    unknown = api.http.post(f"/api/clients/{cid}/requests/999/cancel", json={})
    assert unknown.status_code == 404 and "no request with id 999" in unknown.json()["detail"]
    for path, body in (
        ("log-level", {"level": "loud"}),
        ("complete", {"ref": {"type": "ref/tool", "name": "p"}, "name": "a"}),
        ("requests/1/cancel", {"why": "x"}),
    ):
        method = "put" if path == "log-level" else "post"
        assert api.http.request(method, f"/api/clients/{cid}/{path}", json=body).status_code == 422, path
    # The server exits: the client is closed, and work with it is refused as not connected.
    deadline = time.monotonic() + WAIT_S
    _ok(api.http.post(f"/api/clients/{cid}/raw", json={"text": '{"exit-now": true}', "wait": 0}))
    while _ok(api.http.get(f"/api/clients/{cid}"))["state"] != "closed":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    closed = api.http.post(f"/api/clients/{cid}/subscriptions", json={"uri": "x://y"})
    assert closed.status_code == 409 and "closed" in closed.json()["detail"]
