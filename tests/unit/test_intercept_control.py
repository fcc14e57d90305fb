"""The intercept control channel (`inspector/control/server.py`) on a real loopback port, in front of
a real `Interceptor`: its guard (token, Host, Origin, JSON), its announcement file, and every route
acting on the interceptor (a paused message forwarded, edited, answered, dropped; rules changed)."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from inspector.control.announce import announcements
from inspector.control.server import ControlHandle, start_control
from inspector.intercept import Interceptor, Rule, RuleSet, Seen
from inspector.intercept.engine import Deliver, Reply

CALL = (
    b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}\n'
)
PAUSE = {"name": "hold-calls", "match": {"method": ["tools/call"]}, "action": "pause"}


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "runtime"
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(directory))
    return directory


@pytest.fixture
def interceptor() -> Interceptor:
    return Interceptor(RuleSet(rules=[Rule.model_validate(PAUSE)], pause_timeout_s=30), breakpoints=True)


@pytest.fixture
def control(runtime: Path, interceptor: Interceptor) -> Iterator[ControlHandle]:
    handle = start_control(interceptor, kind="wrap", target=["server", "--x"], sessions=lambda: [4])
    yield handle
    handle.close()


def _client(handle: ControlHandle) -> httpx.Client:
    return httpx.Client(
        base_url=handle.url, headers={"authorization": f"Bearer {handle.token}"}, timeout=10, trust_env=False
    )


def _pause(interceptor: Interceptor, raw: bytes = CALL) -> str:
    decision = interceptor.decide(Seen.of("c2s", raw, interceptor.tracker))
    assert decision.held is not None, decision
    return decision.held.id


def test_announced_with_token_and_sessions_and_removed_on_close(
    runtime: Path, interceptor: Interceptor
) -> None:
    handle = start_control(
        interceptor, kind="wrap", target=["srv"], sessions=lambda: [4, 2], db="sqlite:/x.db"
    )
    try:
        path = runtime / f"intercept-{os.getpid()}.json"
        assert oct(path.stat().st_mode & 0o777) == "0o600"
        doc = json.loads(path.read_text())
        assert doc == {
            "pid": os.getpid(),
            "url": handle.url,
            "token": handle.token,
            "kind": "wrap",
            "target": ["srv"],
            "sessions": [2, 4],
            "db": "sqlite:/x.db",
        }
        assert [a["url"] for a in announcements("sqlite:/x.db")] == [handle.url]
        assert announcements("sqlite:/other.db") == []
    finally:
        handle.close()
    assert not path.exists()
    with pytest.raises(httpx.ConnectError):
        httpx.get(handle.url + "/state", timeout=2)


def test_guard_token_origin_host_and_json(control: ControlHandle) -> None:
    assert httpx.get(control.url + "/state").status_code == 401
    wrong = httpx.get(control.url + "/state", headers={"authorization": "Bearer nope"})
    assert wrong.status_code == 401
    with _client(control) as http:
        assert http.get("/state").status_code == 200
        # A browser page, even one holding the token, is refused: it always sends an Origin.
        cross = http.get("/state", headers={"origin": "http://evil.example"})
        assert cross.status_code == 403
        same = http.get("/state", headers={"origin": control.url})
        assert same.status_code == 403 and "browsers" in same.json()["detail"]
        rebinding = http.get("/state", headers={"host": "evil.example"})
        assert rebinding.status_code == 403 and "Host" in rebinding.json()["detail"]
        form = http.post("/breakpoints", content=b'{"on": false}', headers={"content-type": "text/plain"})
        assert form.status_code == 415
        bad = http.post("/breakpoints", content=b"{nope", headers={"content-type": "application/json"})
        assert bad.status_code == 422
        assert http.post("/breakpoints", json=[1]).status_code == 422


def test_state_lists_rules_pending_and_sessions(control: ControlHandle, interceptor: Interceptor) -> None:
    pid = _pause(interceptor)
    with _client(control) as http:
        state = http.get("/state").json()
    assert state["pid"] == os.getpid() and state["kind"] == "wrap" and state["sessions"] == [4]
    assert state["breakpoints"] is True
    assert [(r["name"], r["hits"], r["enabled"]) for r in state["rules"]] == [("hold-calls", 1, True)]
    [paused] = state["pending"]
    assert paused["id"] == pid and paused["method"] == "tools/call" and paused["name"] == "echo"
    assert paused["raw"] == CALL.decode() and 29 < paused["seconds_left"] <= 30


def test_edit_is_validated_then_forwarded_as_one_line(
    control: ControlHandle, interceptor: Interceptor
) -> None:
    pid = _pause(interceptor)
    pending = interceptor.get_pending(pid)
    assert pending is not None
    with _client(control) as http:
        bad = http.post(f"/pending/{pid}", json={"action": "edit", "raw": '{"jsonrpc": "2.0",'})
        assert bad.status_code == 422 and "not valid JSON" in bad.json()["detail"]
        assert not pending.resolved
        edited = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "edited"}}}  # fmt: skip
        done = http.post(f"/pending/{pid}", json={"action": "edit", "raw": json.dumps(edited, indent=2)})
        assert done.status_code == 200, done.text
        again = http.post(f"/pending/{pid}", json={"action": "forward"})
        assert again.status_code == 404 and "already resolved" in again.json()["detail"]
    assert pending.outcome is not None
    [effect] = pending.outcome.effects
    assert isinstance(effect, Deliver)
    assert effect.raw == json.dumps(edited, separators=(",", ":")).encode() + b"\n"  # NDJSON: one line
    assert pending.outcome.intervention is not None and pending.outcome.intervention.by == "user"


def test_respond_with_an_error_or_a_result_keeps_the_request_id(
    control: ControlHandle, interceptor: Interceptor
) -> None:
    first, second = _pause(interceptor), _pause(interceptor, CALL.replace(b'"id":7', b'"id":"s-1"'))
    sent = [_sent(interceptor, first), _sent(interceptor, second)]
    for s in sent:
        next(s)
    with _client(control) as http:
        no_code = http.post(f"/pending/{first}", json={"action": "respond", "error": {"message": "x"}})
        assert no_code.status_code == 422 and "code" in no_code.json()["detail"]
        both = http.post(f"/pending/{first}", json={"action": "respond", "result": {}, "error": {"code": 1, "message": "x"}})  # fmt: skip
        assert both.status_code == 422
        answer = http.post(f"/pending/{first}", json={"action": "respond", "error": {"code": -32603, "message": "boom"}})  # fmt: skip
        assert answer.status_code == 200, answer.text
        ok = http.post(f"/pending/{second}", json={"action": "respond", "result": {"content": []}})
        assert ok.status_code == 200, ok.text
    assert [next(s) for s in sent] == [
        b'{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"boom"}}\n',
        b'{"jsonrpc":"2.0","id":"s-1","result":{"content":[]}}\n',
    ]


def _sent(interceptor: Interceptor, pid: str) -> Iterator[bytes]:
    """Yields nothing until resolved; then the bytes the hold's outcome sends."""
    pending = interceptor.get_pending(pid)
    assert pending is not None
    yield b""
    assert pending.outcome is not None
    [effect] = pending.outcome.effects
    assert isinstance(effect, Reply | Deliver)
    yield effect.raw


def test_only_requests_are_answered_and_unknown_ids_are_404(
    control: ControlHandle, interceptor: Interceptor
) -> None:
    interceptor.add_rule(Rule.model_validate({"name": "hold-notes", "match": {"kind": ["notification"]}, "action": "pause"}))  # fmt: skip
    note = _pause(interceptor, b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n')
    with _client(control) as http:
        refused = http.post(f"/pending/{note}", json={"action": "respond", "result": {}})
        assert refused.status_code == 409 and "only a request" in refused.json()["detail"]
        assert http.post("/pending/p999", json={"action": "forward"}).status_code == 404
        assert http.post(f"/pending/{note}", json={"action": "explode"}).status_code == 422
        assert http.post(f"/pending/{note}", json={"action": "drop", "raw": "{}"}).status_code == 422
        assert http.post(f"/pending/{note}", json={"action": "drop"}).status_code == 200
    assert interceptor.pending() == []


def test_rules_added_switched_and_removed(control: ControlHandle, interceptor: Interceptor) -> None:
    with _client(control) as http:
        delay = {"name": "slow", "match": {"direction": "s2c"}, "action": "delay", "ms": 5}
        state = http.post("/rules", json=delay).json()
        assert [r["name"] for r in state["rules"]] == ["hold-calls", "slow"]
        dup = http.post("/rules", json=delay)
        assert dup.status_code == 409 and "exists" in dup.json()["detail"]
        typo = http.post("/rules", json={"name": "t", "action": "delay", "msec": 5})
        assert typo.status_code == 422 and "msec" in typo.json()["detail"]
        http_only = http.post("/rules", json={"name": "e", "action": "http_error", "status": 500})
        assert http_only.status_code == 422 and "HTTP only" in http_only.json()["detail"]
        off = http.patch("/rules/slow", json={"enabled": False}).json()
        assert [r["enabled"] for r in off["rules"]] == [True, False]
        assert http.patch("/rules/slow", json={"enabled": "no"}).status_code == 422
        assert http.patch("/rules/none", json={"enabled": True}).status_code == 404
        assert http.delete("/rules/slow").status_code == 200
        assert http.delete("/rules/slow").status_code == 404
        assert http.post("/breakpoints", json={"on": False}).json()["breakpoints"] is False
    assert [r.name for r in interceptor.rules()] == ["hold-calls"]
    assert interceptor.breakpoints is False


def test_a_long_poll_wakes_when_a_message_is_paused(control: ControlHandle, interceptor: Interceptor) -> None:
    with _client(control) as http:
        version = http.get("/state").json()["version"]
        threading.Timer(0.3, lambda: _pause(interceptor)).start()
        started = time.monotonic()
        state = http.get("/state", params={"version": version, "wait": 10}).json()
        took = time.monotonic() - started
        assert state["version"] > version and len(state["pending"]) == 1
        assert 0.2 < took < 5, took
        quiet = time.monotonic()
        http.get("/state", params={"version": state["version"], "wait": 0.3})
        assert time.monotonic() - quiet >= 0.25


def test_a_long_poll_returns_for_new_hit_counts(control: ControlHandle, interceptor: Interceptor) -> None:
    """Hit counts change with every message a rule acts on, unannounced: the long poll sees them."""
    interceptor.add_rule(Rule.model_validate({"name": "later", "match": {"kind": ["response"]}, "action": "delay", "ms": 1}))  # fmt: skip
    with _client(control) as http:
        state = http.get("/state").json()
        threading.Timer(0.2, lambda: interceptor.decide(Seen.of("s2c", b'{"jsonrpc":"2.0","id":1,"result":{}}\n'))).start()  # fmt: skip
        started = time.monotonic()
        later = http.get("/state", params={"version": state["version"], "wait": 10}).json()
        assert time.monotonic() - started < 5
        assert later["version"] > state["version"]
        assert [(r["name"], r["hits"]) for r in later["rules"]] == [("hold-calls", 0), ("later", 1)]
