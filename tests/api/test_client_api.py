"""The mock client API against the real demo server (stdio and Streamable HTTP), the API in-process.

Each test drives a whole workflow: connect, list and call tools, answer the
server's sampling / elicitation requests by hand through the inbox (the call
waits on a thread meanwhile), roots from a fixed responder, a malformed raw
message, and checks that every step is in the recorded `mock-client` session.
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any
from urllib.parse import quote

import pytest

from inspector.store import get_session, iter_messages, open_engine
from tests.api.conftest import Api, in_process
from tests.api.test_live import _next, _ws
from tests.http_peers import demo_http_server
from tests.warm_peers import demo_argv

DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)
BOOKING = {"name": "Ada", "date": "2026-12-24", "party_size": 4, "seating": "bar", "vegetarian": True}
SAMPLED = {"role": "assistant", "content": {"type": "text", "text": "forty-two"}, "model": "a-person"}


def _ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json() if response.content else None


def _connect(api: Api, target: dict[str, Any], version: str, **extra: Any) -> dict[str, Any]:
    body = {"target": target, "protocol_version": version, "timeout": 30, **extra}
    return _ok(api.http.post("/api/clients", json=body), 201)  # type: ignore[no-any-return]


def _request(api: Api, cid: str, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return _ok(api.http.post(f"/api/clients/{cid}/request", json={"method": method, "params": params}))  # type: ignore[no-any-return]


def _pending(api: Api, cid: str, method: str) -> dict[str, Any]:
    """The inbox item for `method`, polled (bounded) until it arrives."""
    deadline = time.monotonic() + 30
    while True:
        inbox = _ok(api.http.get(f"/api/clients/{cid}"))["inbox"]
        found = [item for item in inbox if item["method"] == method]
        if found:
            return found[0]  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, f"no {method} in the inbox: {inbox}"
        time.sleep(0.02)


def _call_answered_by_hand(
    api: Api, cid: str, tool: str, args: dict[str, Any], method: str, result: Any
) -> str:
    """Call a tool on a thread, answer the server request it makes through the inbox, return the text."""
    with ThreadPoolExecutor(1) as pool:
        call: Future[dict[str, Any]] = pool.submit(
            _request, api, cid, "tools/call", {"name": tool, "arguments": args}
        )
        item = _pending(api, cid, method)
        assert item["waiting_s"] >= 0 and not item["answered"]
        key = quote(item["key"], safe="")
        assert _ok(api.http.get(f"/api/clients/{cid}/inbox/{key}"))["method"] == method
        _ok(api.http.post(f"/api/clients/{cid}/inbox/{key}", json={"result": result}))
        response = call.result(timeout=30)
        # Answered: it left the inbox and cannot be answered twice.
        assert api.http.post(f"/api/clients/{cid}/inbox/{key}", json={"result": result}).status_code == 404
    return response["result"]["content"][0]["text"]  # type: ignore[no-any-return]


def _workflow(api: Api, target: dict[str, Any], version: str) -> tuple[str, int]:
    roots = {"roots/list": {"mode": "fixed", "answer": {"roots": [{"uri": "file:///work/r1", "name": "r1"}]}}}
    created = _connect(api, target, version, responders=roots)
    cid, session_id = created["id"], created["session_id"]
    assert "result" in created["handshake"], created
    tools = {t["name"] for t in _request(api, cid, "tools/list")["result"]["tools"]}
    assert {"echo", "ask_llm", "book_table", "list_client_roots"} <= tools
    echoed = _request(api, cid, "tools/call", {"name": "echo", "arguments": {"text": f"hi {version}"}})
    assert echoed["result"]["content"][0]["text"] == f"hi {version}"
    sampled = _call_answered_by_hand(
        api, cid, "ask_llm", {"question": "meaning?"}, "sampling/createMessage", SAMPLED
    )
    assert sampled == "a-person answered: forty-two"
    listed = _request(api, cid, "tools/call", {"name": "list_client_roots", "arguments": {}})
    assert "file:///work/r1" in listed["result"]["content"][0]["text"]
    booked = _call_answered_by_hand(
        api,
        cid,
        "book_table",
        {"restaurant": "Chez Test"},
        "elicitation/create",
        {"action": "accept", "content": BOOKING},
    )
    assert booked.startswith("Booked Chez Test") and '"party_size":4' in booked
    return cid, session_id


def _recorded(api: Api, session_id: int) -> tuple[str, list[str], list[bytes]]:
    engine = open_engine(api.db)
    rows = list(iter_messages(engine, session_id))
    return get_session(engine, session_id).kind, [m.method or "" for m in rows], [m.raw for m in rows]


def test_stdio_workflow_is_recorded_with_a_malformed_raw_message(fresh_api: Api) -> None:
    ws = _ws(fresh_api)
    cid, session_id = _workflow(fresh_api, {"command": DEMO}, "2025-11-25")
    # The inbox events went out on the live feed, with the answer.
    deadline = time.monotonic() + 60
    arrived = _next(ws, "client_inbox", deadline, client_id=cid)
    assert arrived["item"]["method"] == "sampling/createMessage"
    answered = _next(ws, "client_inbox_answered", deadline, client_id=cid)
    assert answered["answer"] == {"result": SAMPLED}
    ws.close()

    # Not JSON: sent and recorded as is; the demo (Python SDK) drops it over stdio without an answer.
    broken = '{"jsonrpc": "2.0", "id": 99, "meth'
    assert _ok(fresh_api.http.post(f"/api/clients/{cid}/raw", json={"text": broken, "wait": 0.2}))["sent"]
    malformed = '{"jsonrpc":"2.0","id":"m1","method":"tools/call","params":{"nam":1}}'
    raw = _ok(fresh_api.http.post(f"/api/clients/{cid}/raw", json={"text": malformed}))
    assert raw["received"][-1]["id"] == "m1" and raw["received"][-1]["error"]["code"] == -32602, raw
    batch = '[{"jsonrpc":"2.0","id":"b1","method":"ping"}]'
    _ok(fresh_api.http.post(f"/api/clients/{cid}/raw", json={"text": batch, "wait": 1}))

    detail = _ok(fresh_api.http.get(f"/api/clients/{cid}"))
    assert detail["state"] == "connected" and detail["handshake"]["result"]["serverInfo"]["name"]
    assert detail["config"]["responders"]["roots/list"]["mode"] == "fixed"
    assert [c["id"] for c in _ok(fresh_api.http.get("/api/clients"))["items"]] == [cid]
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)
    assert fresh_api.http.get(f"/api/clients/{cid}").status_code == 404

    kind, methods, raws = _recorded(fresh_api, session_id)
    assert kind == "mock-client"
    for method in ("initialize", "notifications/initialized", "tools/list", "tools/call"):
        assert method in methods
    for method in ("sampling/createMessage", "roots/list", "elicitation/create"):
        assert method in methods  # the server's requests, answered
    assert any(r.rstrip() == broken.encode() for r in raws)  # the malformed text, byte for byte
    assert any(b'"nam":1' in r for r in raws) and any(b"-32602" in r for r in raws)  # the server's error
    assert any(b'"forty-two"' in r for r in raws) and any(b"Chez Test" in r for r in raws)


def test_http_workflow_under_2026_input_required_through_the_inbox(fresh_api: Api) -> None:
    with demo_http_server(warm=True) as url:
        cid, session_id = _workflow(fresh_api, {"url": url}, "2026-07-28")
        detail = _ok(fresh_api.http.get(f"/api/clients/{cid}"))
        _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)
    assert detail["protocol_version"] == "2026-07-28"
    kind, methods, raws = _recorded(fresh_api, session_id)
    assert kind == "mock-client"
    assert methods[0] == "server/discover" and "initialize" not in methods
    # input_required: the retried calls carry the person's answers.
    retries = [r for r in raws if b"inputResponses" in r]
    assert any(b"forty-two" in r for r in retries) and any(b"Ada" in r for r in retries)


def test_progress_and_log_notifications_are_kept_and_published(fresh_api: Api) -> None:
    ws = _ws(fresh_api)
    cid = _connect(fresh_api, {"command": DEMO}, "2025-06-18")["id"]
    _request(fresh_api, cid, "logging/setLevel", {"level": "debug"})
    response = _ok(
        fresh_api.http.post(
            f"/api/clients/{cid}/request",
            json={
                "method": "tools/call",
                "params": {"name": "count_slowly", "arguments": {"n": 2}},
                "progress": True,
            },
        )
    )
    assert "result" in response
    event = _next(ws, "client_notification", time.monotonic() + 60, client_id=cid)
    assert event["notification"]["method"].startswith("notifications/")
    ws.close()
    kept = {n["method"] for n in _ok(fresh_api.http.get(f"/api/clients/{cid}"))["notifications"]}
    assert "notifications/progress" in kept
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)


def test_responders_can_be_changed_and_reject(fresh_api: Api) -> None:
    cid = _connect(fresh_api, {"command": DEMO}, "2025-11-25")["id"]
    put = {"sampling/createMessage": {"mode": "reject", "error": {"code": -1, "message": "no thanks"}}}
    _ok(fresh_api.http.put(f"/api/clients/{cid}/responders", json=put))
    refused = _request(fresh_api, cid, "tools/call", {"name": "ask_llm", "arguments": {"question": "?"}})
    assert "no thanks" in json.dumps(refused)
    assert _ok(fresh_api.http.get(f"/api/clients/{cid}"))["inbox"] == []
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"target": {"command": DEMO, "url": "http://127.0.0.1:9/mcp"}}, 422, "not both"),
        ({"target": {"url": "ftp://example.com"}}, 422, "http://"),
        ({"target": {"command": ["no-such-program-xyz"]}}, 400, "not found"),
        (
            {"target": {"command": [sys.executable, "-c", "import sys; sys.exit(3)"]}, "timeout": 30},
            502,
            "server",
        ),
        ({"target": {"url": "http://127.0.0.1:9/mcp"}, "timeout": 5}, 502, "could not"),
    ],
)
def test_clear_errors(fresh_api: Api, body: dict[str, Any], status: int, words: str) -> None:
    response = fresh_api.http.post("/api/clients", json=body)
    assert response.status_code == status, response.text
    assert words in response.text
    assert _ok(fresh_api.http.get("/api/clients"))["items"] == []  # a failed start leaves no client behind


def test_unknown_client_is_404(fresh_api: Api) -> None:
    for method, path in [
        ("GET", "/api/clients/nope"),
        ("POST", "/api/clients/nope/request"),
        ("POST", "/api/clients/nope/inbox/1"),
        ("DELETE", "/api/clients/nope"),
    ]:
        body = {"method": "ping"} if path.endswith("request") else {"result": {}}
        response = fresh_api.http.request(method, path, json=body if method == "POST" else None)
        assert response.status_code == 404 and "nope" in response.text, (path, response.text)


def test_notify_is_sent_and_recorded(fresh_api: Api) -> None:
    created = _connect(fresh_api, {"command": DEMO}, "2025-11-25")
    cid = created["id"]
    body = {"method": "notifications/roots/list_changed"}
    _ok(fresh_api.http.post(f"/api/clients/{cid}/notify", json=body), 204)
    _request(fresh_api, cid, "ping")  # after the notification on the same pipe: it has been written
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)
    assert "notifications/roots/list_changed" in _recorded(fresh_api, created["session_id"])[1]


def test_an_unanswered_inbox_item_times_out_live(fresh_api: Api) -> None:
    ws = _ws(fresh_api)
    cid = _connect(fresh_api, {"command": DEMO}, "2025-11-25", timeout=60, inbox_timeout=1)["id"]
    with ThreadPoolExecutor(1) as pool:
        ask = {
            "method": "tools/call",
            "params": {"name": "ask_llm", "arguments": {"question": "?"}},
            "timeout": 20,
        }
        call = pool.submit(fresh_api.http.post, f"/api/clients/{cid}/request", json=ask)
        event = _next(ws, "client_inbox_timeout", time.monotonic() + 60, client_id=cid)
        response = _ok(call.result(timeout=60))
    ws.close()
    assert event["item"]["method"] == "sampling/createMessage" and event["item"]["waiting_s"] >= 1
    assert "nobody answered in time" in json.dumps(response)  # the server passed the refusal on
    _ok(fresh_api.http.delete(f"/api/clients/{cid}"), 204)


def test_shutdown_closes_clients_and_ends_their_sessions(tmp_path: Any) -> None:
    db = tmp_path / "shutdown.db"
    for api in in_process(db):  # the app's lifespan ends when the loop does
        created = api.http.post("/api/clients", json={"target": {"command": DEMO}, "timeout": 30})
        assert created.status_code == 201, created.text
    session = get_session(open_engine(db), created.json()["session_id"])
    assert session.status == "ended", session


def test_a_custom_protocol_version_is_sent_as_is(fresh_api: Api) -> None:
    info = {"name": "custom-client", "version": "9.9"}
    created = _connect(fresh_api, {"command": DEMO}, "2099-01-01-draft", client_info=info, capabilities={})
    _ok(fresh_api.http.delete(f"/api/clients/{created['id']}"), 204)
    _kind, methods, raws = _recorded(fresh_api, created["session_id"])
    initialize = raws[methods.index("initialize")]
    assert b'"protocolVersion":"2099-01-01-draft"' in initialize and b"custom-client" in initialize
    assert b'"capabilities":{}' in initialize
