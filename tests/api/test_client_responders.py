"""The mock client's responders over the real API against real servers (the demo, and an SDK server).

Automatic modes (fixed, reject, recorded) for sampling, roots and elicitation;
answers checked against the spec before they are sent; the workspace's roots;
the inbox history and its own timeout; URL elicitations (-32042, complete
notification, retry); the source of "edit and resend".
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import quote

from inspector.store import iter_messages, open_engine
from tests.api.conftest import Api
from tests.api.test_client_api import (
    BOOKING,
    DEMO,
    _call_answered_by_hand,
    _connect,
    _ok,
    _pending,
    _recorded,
    _request,
)
from tests.warm_peers import peer_argv

# The SDK server, forked from the warm server of tests/warm_peers.py (~2 s of imports less a start).
FEATURES = peer_argv("tests.peers.client_features_server")
TOOL_CAPS = {
    "sampling": {"tools": {}},
    "elicitation": {"form": {}, "url": {}},
    "roots": {"listChanged": True},
}
CALLS = {  # tool, arguments, the server request it makes
    "sampling/createMessage": ("ask_llm", {"question": "colour of the sky?"}),
    "roots/list": ("list_client_roots", {}),
    "elicitation/create": ("book_table", {"restaurant": "Chez Auto"}),
}
FIXED = {
    "sampling/createMessage": {
        "role": "assistant",
        "content": {"type": "text", "text": "blue, from the recording"},
        "model": "recorder",
    },
    "roots/list": {"roots": [{"uri": "file:///srv/recorded-root", "name": "recorded"}]},
    "elicitation/create": {"action": "accept", "content": BOOKING},
}
EXPECTED = {
    "sampling/createMessage": "recorder answered: blue, from the recording",
    "roots/list": "file:///srv/recorded-root (recorded)",
    "elicitation/create": "Booked Chez Auto",
}


def _tool_text(response: dict[str, Any]) -> str:
    return json.dumps(response)


def _call_all(api: Api, cid: str) -> dict[str, str]:
    out = {}
    for method, (tool, args) in CALLS.items():
        out[method] = _tool_text(_request(api, cid, "tools/call", {"name": tool, "arguments": args}))
    return out


def _history(api: Api, cid: str) -> list[dict[str, Any]]:
    return _ok(api.http.get(f"/api/clients/{cid}"))["inbox_history"]  # type: ignore[no-any-return]


def _fixed_session(api: Api) -> int:
    responders = {m: {"mode": "fixed", "answer": a} for m, a in FIXED.items()}
    created = _connect(api, {"command": DEMO}, "2025-11-25", responders=responders)
    texts = _call_all(api, created["id"])
    for method, expected in EXPECTED.items():
        assert expected in texts[method], texts[method]
    assert {h["by"] for h in _history(api, created["id"])} == {"fixed"}
    _ok(api.http.delete(f"/api/clients/{created['id']}"), 204)
    return created["session_id"]  # type: ignore[no-any-return]


def test_fixed_answers_every_server_request(fresh_api: Api) -> None:
    _fixed_session(fresh_api)


def test_reject_answers_every_server_request(fresh_api: Api) -> None:
    responders = {m: {"mode": "reject"} for m in CALLS}
    created = _connect(fresh_api, {"command": DEMO}, "2025-11-25", responders=responders)
    texts = _call_all(fresh_api, created["id"])
    for text in texts.values():
        assert "rejected by the user" in text, text
    history = _history(fresh_api, created["id"])
    assert {h["method"] for h in history} == set(CALLS) and {h["by"] for h in history} == {"reject"}
    assert all(h["answer"]["error"]["code"] == -1 for h in history)
    _ok(fresh_api.http.delete(f"/api/clients/{created['id']}"), 204)
    engine = open_engine(fresh_api.db)
    sent = [m for m in iter_messages(engine, created["session_id"]) if m.direction == "c2s"]
    assert sum(m.kind == "error" and m.error_code == -1 for m in sent) == 3  # the three refusals went out


def test_recorded_answers_come_from_a_recorded_session(fresh_api: Api) -> None:
    source = _fixed_session(fresh_api)
    responders = {m: {"mode": "recorded", "session_id": source} for m in CALLS}
    created = _connect(fresh_api, {"command": DEMO}, "2025-11-25", responders=responders)
    cid = created["id"]
    texts = _call_all(fresh_api, cid)
    for method, expected in EXPECTED.items():
        assert expected in texts[method], texts[method]
    assert {h["by"] for h in _history(fresh_api, cid)} == {f"recorded (session {source})"}
    detail = _ok(fresh_api.http.get(f"/api/clients/{cid}"))
    assert detail["config"]["responders"]["roots/list"]["session_id"] == source

    # Nothing matches (another question): the fallback rejects and says what differed ...
    other = _request(fresh_api, cid, "tools/call", {"name": "ask_llm", "arguments": {"question": "other?"}})
    assert "no recorded sampling/createMessage matches" in json.dumps(other)
    assert "params.messages" in json.dumps(_history(fresh_api, cid)[0]["answer"])
    # ... or, with fallback manual, asks a person.
    manual = {"sampling/createMessage": {"mode": "recorded", "session_id": source, "fallback": "manual"}}
    _ok(fresh_api.http.put(f"/api/clients/{cid}/responders", json=manual))
    answer = {"role": "assistant", "content": {"type": "text", "text": "by hand"}, "model": "me"}
    text = _call_answered_by_hand(
        fresh_api, cid, "ask_llm", {"question": "other?"}, "sampling/createMessage", answer
    )
    assert text == "me answered: by hand"
    assert _history(fresh_api, cid)[0]["by"] == "person"
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)


def test_recorded_responder_errors_are_clear(fresh_api: Api) -> None:
    cid = _connect(fresh_api, {"command": DEMO}, "2025-11-25")["id"]
    missing = {"roots/list": {"mode": "recorded", "session_id": 999}}
    response = fresh_api.http.put(f"/api/clients/{cid}/responders", json=missing)
    assert response.status_code == 404 and "999" in response.text, response.text
    no_session = fresh_api.http.put(
        f"/api/clients/{cid}/responders", json={"roots/list": {"mode": "recorded"}}
    )
    assert no_session.status_code == 422 and "session_id" in no_session.text
    bad_mode = fresh_api.http.put(f"/api/clients/{cid}/responders", json={"roots/list": {"mode": "guess"}})
    assert bad_mode.status_code == 422
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)


def _answer(api: Api, cid: str, item: dict[str, Any], answer: dict[str, Any]) -> Any:
    return api.http.post(f"/api/clients/{cid}/inbox/{quote(item['key'], safe='')}", json=answer)


def test_sampling_with_tools_is_validated_before_sending(fresh_api: Api) -> None:
    created = _connect(fresh_api, {"command": FEATURES}, "2025-11-25", capabilities=TOOL_CAPS)
    cid = created["id"]
    with ThreadPoolExecutor(1) as pool:
        call: Future[dict[str, Any]] = pool.submit(
            _request, fresh_api, cid, "tools/call", {"name": "plan_trip", "arguments": {"city": "Paris"}}
        )
        item = _pending(fresh_api, cid, "sampling/createMessage")
        assert item["params"]["tools"][0]["name"] == "get_weather" and item["problems"] == []
        use = {"type": "tool_use", "id": "u1", "name": "get_weather", "input": {"city": "Paris"}}
        reply = {"role": "assistant", "content": [use], "model": "me", "stopReason": "endTurn"}
        refused = _answer(fresh_api, cid, item, {"result": reply})
        assert refused.status_code == 422 and 'stopReason \\"toolUse\\"' in refused.text, refused.text
        bad_input = {**reply, "content": [{**use, "input": {"city": "P"}}], "stopReason": "toolUse"}
        refused = _answer(fresh_api, cid, item, {"result": bad_input})
        assert refused.status_code == 422 and "too short" in refused.text, refused.text
        _ok(_answer(fresh_api, cid, item, {"result": {**reply, "stopReason": "toolUse"}}))
        # The server ran the tool and samples again with the result: a balanced conversation.
        deadline = time.monotonic() + 30
        while (second := _pending(fresh_api, cid, "sampling/createMessage"))["key"] == item["key"]:
            assert time.monotonic() < deadline
        assert [m["role"] for m in second["params"]["messages"]] == ["user", "assistant", "user"]
        assert second["problems"] == []
        final = {"role": "assistant", "content": {"type": "text", "text": "Go to the Louvre."}, "model": "me"}
        _ok(_answer(fresh_api, cid, second, {"result": {**final, "stopReason": "endTurn"}}))
        text = _tool_text(call.result(timeout=30))
    assert "called get_weather({'city': 'Paris'}); final: Go to the Louvre." in text, text
    history = _history(fresh_api, cid)
    assert [h["by"] for h in history] == ["person", "person"]
    assert all(h["answered"] and h["waiting_s"] >= 0 and h["answered_at"] for h in history)
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)
    _kind, _methods, raws = _recorded(fresh_api, created["session_id"])
    assert any(b'"stopReason":"toolUse"' in r for r in raws)  # the valid reply, and only it
    assert not any(b'"stopReason":"endTurn","content":[{"type":"tool_use"' in r for r in raws)
    assert not any(b'"city":"P"' in r for r in raws)


def test_an_invalid_form_answer_is_refused(fresh_api: Api) -> None:
    cid = _connect(fresh_api, {"command": DEMO}, "2025-11-25")["id"]
    with ThreadPoolExecutor(1) as pool:
        call = pool.submit(
            _request, fresh_api, cid, "tools/call", {"name": "book_table", "arguments": {"restaurant": "X"}}
        )
        item = _pending(fresh_api, cid, "elicitation/create")
        too_many = {"action": "accept", "content": {**BOOKING, "party_size": 25}}
        refused = _answer(fresh_api, cid, item, {"result": too_many})
        assert (
            refused.status_code == 422 and "party_size: 25 is greater than the maximum of 20" in refused.text
        )
        assert _answer(fresh_api, cid, item, {"result": {"action": "maybe"}}).status_code == 422
        _ok(_answer(fresh_api, cid, item, {"result": {"action": "decline"}}))
        assert "declined by the user" in _tool_text(call.result(timeout=30))
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)


def test_workspace_roots_answer_and_notify(fresh_api: Api) -> None:
    created = _connect(
        fresh_api, {"command": DEMO}, "2025-11-25", roots=[{"uri": "file:///srv/a", "name": "a"}]
    )
    cid = created["id"]
    listed = _request(fresh_api, cid, "tools/call", {"name": "list_client_roots", "arguments": {}})
    assert "file:///srv/a (a)" in _tool_text(listed)
    assert _history(fresh_api, cid)[0]["by"] == "auto (workspace roots)"
    bad = fresh_api.http.put(f"/api/clients/{cid}/roots", json={"roots": [{"uri": "https://x.org/a"}]})
    assert bad.status_code == 422 and "not a file:// URI" in bad.text
    put = _ok(fresh_api.http.put(f"/api/clients/{cid}/roots", json={"roots": [{"uri": "file:///srv/b"}]}))
    assert put == {"roots": [{"uri": "file:///srv/b"}], "notified": True}
    listed = _request(fresh_api, cid, "tools/call", {"name": "list_client_roots", "arguments": {}})
    assert "file:///srv/b (unnamed)" in _tool_text(listed)
    # An explicit manual responder sends roots/list to the inbox, whatever the workspace holds.
    _ok(fresh_api.http.put(f"/api/clients/{cid}/responders", json={"roots/list": {"mode": "manual"}}))
    text = _call_answered_by_hand(
        fresh_api, cid, "list_client_roots", {}, "roots/list", {"roots": [{"uri": "file:///by/hand"}]}
    )
    assert "file:///by/hand" in text
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)
    _kind, methods, _raws = _recorded(fresh_api, created["session_id"])
    assert methods.count("notifications/roots/list_changed") == 1
    assert connect_error(fresh_api, roots=[{"uri": "relative/path"}]) == 422


def connect_error(api: Api, **extra: Any) -> int:
    return api.http.post("/api/clients", json={"target": {"command": DEMO}, **extra}).status_code  # type: ignore[no-any-return]


def test_roots_without_list_changed_do_not_notify(fresh_api: Api) -> None:
    caps = {"roots": {}, "sampling": {}}
    created = _connect(fresh_api, {"command": DEMO}, "2025-11-25", capabilities=caps)
    put = _ok(
        fresh_api.http.put(f"/api/clients/{created['id']}/roots", json={"roots": [{"uri": "file:///c"}]})
    )
    assert put["notified"] is False
    _request(fresh_api, created["id"], "ping")
    _ok(fresh_api.http.delete(f"/api/clients/{created['id']}"), 204)
    assert "notifications/roots/list_changed" not in _recorded(fresh_api, created["session_id"])[1]


def test_inbox_timeout_is_its_own_and_history_keeps_it(fresh_api: Api) -> None:
    cid = _connect(fresh_api, {"command": DEMO}, "2025-11-25", timeout=60, inbox_timeout=1.5)["id"]
    assert _ok(fresh_api.http.get(f"/api/clients/{cid}"))["config"]["inbox_timeout"] == 1.5
    response = _request(fresh_api, cid, "tools/call", {"name": "ask_llm", "arguments": {"question": "?"}})
    assert "nobody answered in time" in _tool_text(response)  # well before the 60 s request timeout
    (item,) = _history(fresh_api, cid)
    assert item["by"] == "timeout" and not item["answered"] and item["waiting_s"] >= 1.5
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)


def _elicitation(api: Api, cid: str, eid: str) -> dict[str, Any]:
    found = [
        e for e in _ok(api.http.get(f"/api/clients/{cid}"))["elicitations"] if e["elicitation_id"] == eid
    ]
    assert found, eid
    return found[0]  # type: ignore[no-any-return]


def test_url_elicitation_required_complete_and_retry(fresh_api: Api) -> None:
    created = _connect(fresh_api, {"command": FEATURES}, "2025-11-25", capabilities=TOOL_CAPS)
    cid = created["id"]
    failed = _request(fresh_api, cid, "tools/call", {"name": "read_vault", "arguments": {}})
    assert failed["error"]["code"] == -32042, failed
    vault = _elicitation(fresh_api, cid, "vault-1")
    assert (
        vault["domain"] == "vault.example.com" and vault["state"] == "pending" and vault["source"] == "error"
    )
    assert vault["retry"] == {"method": "tools/call", "params": {"name": "read_vault", "arguments": {}}}
    still = _ok(fresh_api.http.post(f"/api/clients/{cid}/elicitations/vault-1/retry"))
    assert still["error"]["code"] == -32042  # not unlocked yet
    _request(fresh_api, cid, "tools/call", {"name": "unlock_vault", "arguments": {}})
    deadline = time.monotonic() + 20
    while _elicitation(fresh_api, cid, "vault-1")["state"] != "complete":
        assert time.monotonic() < deadline, "notifications/elicitation/complete was not applied"
        time.sleep(0.05)
    retried = _ok(fresh_api.http.post(f"/api/clients/{cid}/elicitations/vault-1/retry"))
    assert "vault contents: 42" in _tool_text(retried)
    assert fresh_api.http.post(f"/api/clients/{cid}/elicitations/nope/retry").status_code == 404

    # The request path: a URL-mode elicitation/create in the inbox, its consent recorded.
    text = _call_answered_by_hand(fresh_api, cid, "sign_in", {}, "elicitation/create", {"action": "accept"})
    assert text == "user chose accept"
    login = _elicitation(fresh_api, cid, "login-1")
    assert login["state"] == "accepted" and login["url"] == "https://login.example.org/start"
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)
    _kind, methods, _raws = _recorded(fresh_api, created["session_id"])
    assert "notifications/elicitation/complete" in methods


def test_resend_source(fresh_api: Api) -> None:
    created = _connect(fresh_api, {"command": DEMO}, "2025-11-25")
    cid, sid = created["id"], created["session_id"]
    _request(fresh_api, cid, "tools/call", {"name": "echo", "arguments": {"text": "again"}})
    # Recording is off the request's path: wait (bounded) until the call and its answer are stored.
    deadline = time.monotonic() + 60
    while (methods := _recorded(fresh_api, sid)[1]).count("tools/call") < 2:
        assert time.monotonic() < deadline, f"the echo call was not recorded: {methods}"
        time.sleep(0.02)
    seq = len(methods) - 1  # the echo request (the last row is its response)
    doc = _ok(fresh_api.http.get(f"/api/sessions/{sid}/messages/{seq}/resend"))
    assert json.loads(doc["text"])["params"]["arguments"] == {"text": "again"}
    assert doc["target"] == {"command": DEMO}
    assert doc["clients"][0]["id"] == cid and doc["clients"][0]["same_target"] is True
    server_message = fresh_api.http.get(f"/api/sessions/{sid}/messages/{seq + 1}/resend")
    assert server_message.status_code == 400 and "not a client-to-server message" in server_message.text
    assert fresh_api.http.get(f"/api/sessions/{sid}/messages/9999/resend").status_code == 404
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)


RULE_BREAKER = """
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": m["params"]["protocolVersion"],
              "capabilities": {"tools": {}}, "serverInfo": {"name": "rule-breaker", "version": "1"}}})
    elif m.get("method") == "tools/call":
        tool = {"name": "t", "inputSchema": {"type": "object"}}
        msgs = [{"role": "user", "content": {"type": "text", "text": "go"}},
                {"role": "assistant", "content": {"type": "tool_use", "id": "x", "name": "t", "input": {}}}]
        send({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage",
              "params": {"messages": msgs, "maxTokens": 5, "tools": [tool]}})
        pending = m["id"]
    elif m.get("id") == "s1":
        send({"jsonrpc": "2.0", "id": pending, "result": {"content": [{"type": "text", "text": json.dumps(m)}]}})
"""


def test_a_request_breaking_the_sampling_rules_is_flagged(fresh_api: Api, tmp_path: Path) -> None:
    script = tmp_path / "rule_breaker.py"
    script.write_text(RULE_BREAKER)
    caps = {"sampling": {}}  # no sampling.tools
    cid = _connect(fresh_api, {"command": [sys.executable, str(script)]}, "2025-11-25", capabilities=caps)[
        "id"
    ]
    with ThreadPoolExecutor(1) as pool:
        call = pool.submit(_request, fresh_api, cid, "tools/call", {"name": "t", "arguments": {}})
        item = _pending(fresh_api, cid, "sampling/createMessage")
        problems = " | ".join(item["problems"])
        assert "did not declare the sampling.tools capability" in problems
        assert "tool_use x has no tool_result" in problems
        use = {"type": "tool_use", "id": "y", "name": "t", "input": {}}
        reply = {"role": "assistant", "content": [use], "model": "m", "stopReason": "toolUse"}
        refused = _answer(fresh_api, cid, item, {"result": reply})
        assert refused.status_code == 422 and "sampling.tools" in refused.text
        _ok(_answer(fresh_api, cid, item, {"error": {"code": -1, "message": "no tools here"}}))
        assert "no tools here" in _tool_text(call.result(timeout=30))
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)
