"""`Activity` (the mock client's work with the server, no IO): fed messages, shows the right state."""

from __future__ import annotations

from inspector.mock.tracking import Activity, ServerFeatures


def test_progress_cancel_and_a_late_response() -> None:
    a = Activity()
    a.started("3", 3, "tools/call", {"name": "slow", "_meta": {"progressToken": "p1"}}, now=10.0)
    kind, payload = a.notification(
        {"method": "notifications/progress", "params": {"progressToken": "p1", "progress": 2, "total": 5}},
        now=11.0,
    ) or ("", {})
    assert kind == "progress" and payload["request"]["progress"] == {"progress": 2, "total": 5}
    assert a.inflight["3"].to_json(now=12.5)["elapsed_s"] == 2.5
    a.cancelled("3", "enough", "notification", now=13.0)
    done = a.finished("3", None, now=13.0)
    assert done is not None and done.state == "cancelled" and "3" not in a.inflight
    late = a.late_response("3", {"id": 3, "result": {"content": []}}, now=14.0)
    assert (
        late is not None
        and late.response == {"id": 3, "result": {"content": []}}
        and late.state == "cancelled"
    )
    assert a.late_response("3", {}, now=15.0) is None  # only once


def test_updates_logs_list_changes_and_tasks() -> None:
    a = Activity()
    a.subscribed("x://1", now=1.0)
    a.notification({"method": "notifications/resources/updated", "params": {"uri": "x://1"}}, now=2.0)
    a.notification({"method": "notifications/resources/updated", "params": {"uri": "x://1"}}, now=3.0)
    assert a.subscriptions["x://1"]["updates"] == 2 and a.subscriptions["x://1"]["last_update"] == 3.0
    assert a.unsubscribed("x://1") is not None and a.unsubscribed("x://1") is None
    a.notification({"method": "notifications/message", "params": {"level": "info", "data": "hi"}}, now=4.0)
    assert list(a.logs) == [{"time": 4.0, "level": "info", "logger": None, "data": "hi"}]
    a.notification({"method": "notifications/tools/list_changed"}, now=5.0)
    assert a.list_changed["notifications/tools/list_changed"]["count"] == 1
    task = {"taskId": "t1", "status": "working", "createdAt": "2026", "lastUpdatedAt": "2026", "ttl": None}
    a.started("1", 1, "tools/call", {"name": "q", "task": {"ttl": 5}}, now=6.0)
    a.finished("1", {"result": {"task": task}}, now=7.0)
    assert a.tasks["t1"]["status"] == "working" and a.tasks["t1"]["request"] == "q"
    a.notification(
        {"method": "notifications/tasks/status", "params": {**task, "status": "completed"}}, now=8.0
    )
    a.started("2", 2, "tasks/result", {"taskId": "t1"}, now=9.0)
    a.finished("2", {"result": {"content": [{"type": "text", "text": "done"}]}}, now=10.0)
    assert a.tasks["t1"]["status"] == "completed" and a.tasks["t1"]["result"]["content"][0]["text"] == "done"


def test_features_follow_capabilities_and_the_revision() -> None:
    caps = {"resources": {"subscribe": True}, "completions": {}, "logging": {}}
    old = ServerFeatures(caps, frozenset({"resources/subscribe", "completion/complete", "logging/setLevel"}))
    assert old.to_json()["subscribe"] and old.to_json()["set_level"] and not old.to_json()["tasks"]
    modern = ServerFeatures(caps, frozenset({"completion/complete"}))  # no subscribe nor listen, no setLevel
    assert (
        not modern.to_json()["subscribe"]
        and not modern.to_json()["set_level"]
        and modern.to_json()["logging"]
    )
    assert ServerFeatures({}, None).to_json()["completions"] is False
