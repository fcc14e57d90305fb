"""`subscriptions/listen` as plain data: filters, honoring, admission, stamping, the client's stream state."""

from __future__ import annotations

import mcp.shared.subscriptions as sdk
import pytest

from inspector.mock.listen_state import ListenState
from inspector.mock.tracking import Activity, ServerFeatures
from inspector.protocol import listen

ACK = "notifications/subscriptions/acknowledged"
KEY = "io.modelcontextprotocol/subscriptionId"


def test_constants_match_the_sdk() -> None:
    assert listen.SUBSCRIPTION_ID_META_KEY == sdk.SUBSCRIPTION_ID_META_KEY
    assert listen.LISTEN_STREAM_METHODS == sdk.LISTEN_STREAM_METHODS


def test_filter_leaves_out_what_is_not_wanted() -> None:
    assert listen.build_filter([], {"tools": False}) == {}
    assert listen.build_filter(["a://1"], {"tools": True, "prompts": False}) == {
        "toolsListChanged": True,
        "resourceSubscriptions": ["a://1"],
    }


def test_server_honors_only_what_it_declared() -> None:
    wanted = {
        "toolsListChanged": True,
        "promptsListChanged": True,
        "resourceSubscriptions": ["a://1"],
        "x": 1,
    }
    caps = {"tools": {"listChanged": True}, "resources": {"subscribe": True}}
    assert listen.honored_filter(wanted, caps) == {
        "toolsListChanged": True,
        "resourceSubscriptions": ["a://1"],
    }
    assert listen.honored_filter(wanted, {}) == {}
    with pytest.raises(ValueError, match="not a SubscriptionFilter"):
        listen.honored_filter({"resourceSubscriptions": "a://1"}, caps)


def test_admission_and_stamp() -> None:
    honored = {"toolsListChanged": True, "resourceSubscriptions": ["a://1"]}

    def note(method: str, **params: object) -> dict[str, object]:
        return {"jsonrpc": "2.0", "method": method, "params": params}

    assert listen.admits(honored, note("notifications/tools/list_changed"))
    assert not listen.admits(honored, note("notifications/prompts/list_changed"))
    assert listen.admits(honored, note("notifications/resources/updated", uri="a://1"))
    assert not listen.admits(honored, note("notifications/resources/updated", uri="a://2"))
    log = note("notifications/message", level="warning", data="x")
    assert not listen.admits(honored, log)  # no log level opted in
    assert listen.admits(honored, log, "info") and not listen.admits(honored, log, "error")
    assert not listen.admits(honored, note("notifications/progress", progressToken=1, progress=1))
    stamped = listen.stamp(note("notifications/resources/updated", uri="a://1", _meta={"k": 1}), "listen-1")
    assert stamped["params"]["_meta"] == {"k": 1, KEY: "listen-1"}
    assert listen.subscription_id(stamped) == "listen-1" and listen.subscription_id({"params": 3}) is None


def test_client_streams_follow_acks_and_ends() -> None:
    state = ListenState()
    assert state.empty
    state.want(add="a://1", kinds={"tools": True, "bogus": True})
    assert state.filter() == {"toolsListChanged": True, "resourceSubscriptions": ["a://1"]}
    first = state.opened("1", 1, state.filter(), 1.0)
    ack = {
        "method": ACK,
        "params": {"notifications": {"resourceSubscriptions": ["a://1"]}, "_meta": {KEY: 1}},
    }
    assert state.acknowledged(ack, 2.0) is first and first.state == "open"
    assert state.acknowledged(ack, 2.5) is None  # only the first acknowledgement counts
    assert state.honored_uris() == ["a://1"]
    second = state.opened("2", 2, state.filter(), 3.0)
    assert state.current is second and state.honored_uris() == []
    assert state.ended("1", "cancelled", "replaced", 4.0) is first and first.state == "cancelled"
    assert state.ended("1", "lost", "again", 5.0) is None
    assert [s["key"] for s in state.to_json()["past"]] == ["1"]
    state.want(remove="a://1", kinds={"tools": False})
    assert state.empty


def test_activity_subscriptions_follow_the_current_stream() -> None:
    a = Activity()
    a.listening.want(add="a://1")
    a.listening.opened("7", 7, a.listening.filter(), 1.0)
    ack = {
        "method": ACK,
        "params": {"notifications": {"resourceSubscriptions": ["a://1"]}, "_meta": {KEY: 7}},
    }
    assert a.notification(ack, 2.0) == ("listen", a.listening.to_json())
    assert a.subscriptions["a://1"]["subscribed"]
    update = {"method": "notifications/resources/updated", "params": {"uri": "a://1", "_meta": {KEY: 7}}}
    a.notification(update, 3.0)
    assert a.subscriptions["a://1"]["updates"] == 1 and a.listening.current.notifications == 1  # type: ignore[union-attr]
    foreign = {"method": ACK, "params": {"notifications": {}, "_meta": {KEY: 99}}}
    assert a.notification(foreign, 4.0) is None
    a.listening.ended("7", "closed", "the server ended the stream", 5.0)
    a.sync_listen_subscriptions(5.0)
    assert not a.subscriptions["a://1"]["subscribed"]


def test_listen_feature_at_2026_only() -> None:
    caps = {"resources": {"subscribe": True}}
    modern = ServerFeatures(caps, frozenset({"subscriptions/listen"})).to_json()
    assert modern["subscribe"] and modern["listen"]
    assert not ServerFeatures(caps, frozenset({"resources/subscribe"})).to_json()["listen"]
    assert not ServerFeatures({}, frozenset({"subscriptions/listen"})).to_json()["subscribe"]
