"""The UI server's /api/intercept routes relaying to a real control channel (a real `Interceptor`
behind `start_control`, in this process), and `mcp-inspect intercept` driving the same channel:
state, paused messages forwarded / edited / answered / dropped, rules changed, and the clear 4xx
answers for a session no process records, a process that is gone, an unknown id, invalid JSON."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from inspector.cli import app as cli_app
from inspector.control.server import ControlHandle, start_control
from inspector.intercept import Interceptor, Rule, RuleSet, Seen
from inspector.runtime_dir import write_json
from tests.api.conftest import Api
from tests.conftest import PEERS, wrap_argv
from tests.shim_process import ShimProcess

CALL = (
    b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}\n'
)
SID = 41
LINE_ECHO = PEERS / "line_echo_server.py"


@pytest.fixture
def interceptor() -> Interceptor:
    pause = Rule.model_validate({"name": "hold", "match": {"method": ["tools/call"]}, "action": "pause"})
    return Interceptor(RuleSet(rules=[pause]), breakpoints=True)


@pytest.fixture
def control(runtime: Path, interceptor: Interceptor) -> Iterator[ControlHandle]:
    handle = start_control(interceptor, kind="wrap", target=["python", "server.py"], sessions=lambda: [SID])
    yield handle
    handle.close()


def _pause(interceptor: Interceptor, raw: bytes = CALL) -> str:
    decision = interceptor.decide(Seen.of("c2s", raw, interceptor.tracker))
    assert decision.held is not None
    return decision.held.id


def test_state_resolve_and_rules_through_the_api(fresh_api: Api, control: ControlHandle, interceptor: Interceptor) -> None:  # fmt: skip
    http = fresh_api.http
    first, second, third = _pause(interceptor), _pause(interceptor), _pause(interceptor)
    held = {p.id: p for p in interceptor.pending()}
    listed = http.get("/api/intercept").json()
    assert listed == {
        "processes": [
            {
                "pid": os.getpid(),
                "kind": "wrap",
                "target": ["python", "server.py"],
                "sessions": [SID],
                "paused": 3,
                "rules": 1,
                "breakpoints": True,
            }  # fmt: skip
        ]
    }
    state = http.get(f"/api/intercept/sessions/{SID}").json()
    assert [p["id"] for p in state["pending"]] == [first, second, third]
    assert state["rules"][0]["name"] == "hold" and state["rules"][0]["hits"] == 3
    # Edit: invalid JSON is refused with the reason and the message stays paused.
    url = f"/api/intercept/sessions/{SID}/pending"
    bad = http.post(f"{url}/{first}", json={"action": "edit", "raw": "{'single': 'quotes'}"})
    assert bad.status_code == 400 and "not valid JSON" in bad.json()["detail"]
    edited = json.loads(CALL)
    edited["params"]["arguments"]["message"] = "changed"
    ok = http.post(f"{url}/{first}", json={"action": "edit", "raw": json.dumps(edited, indent=1)})
    assert ok.status_code == 200, ok.text
    assert ok.json()["sent"] == json.dumps(edited, separators=(",", ":")) + "\n"
    assert (
        held[first].outcome is not None and held[first].outcome.effects[0].raw == ok.json()["sent"].encode()
    )  # type: ignore[union-attr]
    answered = http.post(f"{url}/{second}", json={"action": "respond", "error": {"code": -32000, "message": "nope"}})  # fmt: skip
    assert answered.status_code == 200
    assert json.loads(answered.json()["sent"]) == {"jsonrpc": "2.0", "id": 3, "error": {"code": -32000, "message": "nope"}}  # fmt: skip
    assert http.post(f"{url}/{third}", json={"action": "drop"}).status_code == 200
    assert held[third].outcome is not None and held[third].outcome.effects == []
    gone = http.post(f"{url}/{third}", json={"action": "forward"})
    assert gone.status_code == 404 and "already resolved or timed out" in gone.json()["detail"]
    assert http.post(f"{url}/{third}", json={"action": "fly"}).status_code == 422
    # Rules and breakpoints.
    rules = f"/api/intercept/sessions/{SID}/rules"
    added = http.post(rules, json={"name": "drop-logs", "match": {"method": ["notifications/message"]}, "action": "drop"})  # fmt: skip
    assert added.status_code == 200 and [r["name"] for r in added.json()["rules"]] == ["hold", "drop-logs"]
    assert http.post(rules, json={"name": "drop-logs", "action": "drop"}).status_code == 409
    assert http.post(rules, json={"name": "x", "action": "delay"}).status_code == 422  # needs ms
    http_only = http.post(rules, json={"name": "x", "action": "drip"})
    assert http_only.status_code == 400 and "HTTP only" in http_only.json()["detail"]
    off = http.patch(f"{rules}/drop-logs", json={"enabled": False})
    assert off.status_code == 200 and off.json()["rules"][1]["enabled"] is False
    assert http.patch(f"{rules}/nothing", json={"enabled": False}).status_code == 404
    assert http.delete(f"{rules}/drop-logs").status_code == 200
    assert http.post(f"/api/intercept/sessions/{SID}/breakpoints", json={"on": False}).json()["breakpoints"] is False  # fmt: skip
    assert interceptor.breakpoints is False and [r.name for r in interceptor.rules()] == ["hold"]


def test_clear_4xx_for_no_process_a_gone_process_and_bad_bodies(fresh_api: Api, runtime: Path, interceptor: Interceptor) -> None:  # fmt: skip
    http = fresh_api.http
    none = http.get(f"/api/intercept/sessions/{SID}")
    assert none.status_code == 404 and "--intercept" in none.json()["detail"]
    # A process that announced itself and no longer answers (its port closed): 410, not a 5xx.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    write_json("intercept-stale.json", {"pid": os.getpid(), "url": f"http://127.0.0.1:{dead}", "token": "t", "kind": "wrap", "target": "x", "sessions": [7]})  # fmt: skip
    stale = http.get("/api/intercept/sessions/7")
    assert stale.status_code == 410 and "stopped" in stale.json()["detail"]
    assert http.get("/api/intercept").json() == {"processes": []}
    # A process recording into another database is not this UI's.
    handle = start_control(
        interceptor, kind="wrap", target="x", sessions=lambda: [8], db="sqlite:/elsewhere.db"
    )
    try:
        assert http.get("/api/intercept/sessions/8").status_code == 404
    finally:
        handle.close()
    handle = start_control(interceptor, kind="wrap", target="x", sessions=lambda: [SID])
    try:
        url = f"/api/intercept/sessions/{SID}"
        assert http.get(url).status_code == 200
        not_json = http.post(
            f"{url}/breakpoints", content=b"on", headers={"content-type": "application/json"}
        )
        assert not_json.status_code == 422
        assert http.post(f"{url}/pending/p1", json={"action": "forward", "extra": 1}).status_code == 422
        assert http.post(f"{url}/pending/p1", json={"action": "forward"}).status_code == 404
    finally:
        handle.close()
    after = http.get(f"/api/intercept/sessions/{SID}")
    assert after.status_code == 404  # its announcement went with it


def test_the_terminal_command(control: ControlHandle, interceptor: Interceptor, tmp_path: Path) -> None:
    runner = CliRunner()
    first = _pause(interceptor)
    second = _pause(interceptor, CALL.replace(b'"id":3', b'"id":4'))
    listed = runner.invoke(cli_app, ["intercept", "list"])
    assert listed.exit_code == 0, listed.output
    assert f"pid {os.getpid()}" in listed.output and f"sessions {SID}" in listed.output
    assert first in listed.output and "C→S request tools/call echo" in listed.output
    assert all(len(line) <= 80 for line in listed.output.splitlines())
    shown = runner.invoke(cli_app, ["intercept", "show", first])
    assert shown.exit_code == 0 and '"message": "hi"' in shown.output
    bad = runner.invoke(cli_app, ["intercept", "edit", first, "--raw", "{nope"])
    assert bad.exit_code != 0 and "not valid JSON" in str(bad.exception)
    held = interceptor.get_pending(first)
    # $EDITOR gets the message as indented JSON in a file; what it saves is sent (as one line).
    editor = f"{sys.executable} -c \"import sys, pathlib; p = pathlib.Path(sys.argv[1]); p.write_text(p.read_text().replace('hi', 'yo'))\""  # fmt: skip
    edited = runner.invoke(cli_app, ["intercept", "edit", first], env={"EDITOR": editor, "VISUAL": ""})
    assert edited.exit_code == 0, (edited.output, edited.exception)
    assert "edited and forwarded" in edited.output
    assert held is not None and held.outcome is not None
    assert held.outcome.effects[0].raw == CALL.replace(b'"hi"', b'"yo"')  # type: ignore[union-attr]
    answered = runner.invoke(cli_app, ["intercept", "respond", second, "--error", "-32001", "denied"])
    assert answered.exit_code == 0, answered.output
    unknown = runner.invoke(cli_app, ["intercept", "forward", second])
    assert unknown.exit_code != 0 and "no paused message" in str(unknown.exception)
    rules = tmp_path / "rules.yaml"
    rules.write_text("- name: slow\n  action: delay\n  ms: 10\n")
    assert runner.invoke(cli_app, ["intercept", "rules", "add", str(rules)]).exit_code == 0
    assert runner.invoke(cli_app, ["intercept", "rules", "disable", "slow"]).exit_code == 0
    listed_rules = runner.invoke(cli_app, ["intercept", "rules"])
    assert "off slow: delay" in listed_rules.output and "hold: pause" in listed_rules.output
    typo = tmp_path / "typo.yaml"
    typo.write_text("- name: t\n  action: delay\n  msec: 10\n")
    refused = runner.invoke(cli_app, ["intercept", "rules", "add", str(typo)])
    assert refused.exit_code != 0 and "msec" in str(refused.exception)
    assert runner.invoke(cli_app, ["intercept", "rules", "remove", "slow"]).exit_code == 0
    assert runner.invoke(cli_app, ["intercept", "breakpoints", "off"]).exit_code == 0
    assert interceptor.breakpoints is False and [r.name for r in interceptor.rules()] == ["hold"]
    watch = runner.invoke(cli_app, ["intercept", "watch"])
    assert watch.exit_code != 0 and "terminal" in str(watch.exception)


def test_a_real_wrap_with_intercept_driven_through_the_api(fresh_api: Api, runtime: Path) -> None:
    """`mcp-inspect wrap --intercept` (a subprocess) around a raw line peer: the API finds it by its
    session, a paused request is edited (the peer answers the edited one) and another answered by
    the API (the peer never sees it); when the wrap ends, its session is no longer intercepted."""
    http = fresh_api.http
    rules = runtime.parent / "rules.yaml"
    rules.write_text("rules:\n  - {name: hold, match: {method: [echo/*], kind: [request]}, action: pause}\n")
    argv = wrap_argv(fresh_api.db, sys.executable, str(LINE_ECHO), extra=("--quiet", "--intercept", "--faults", str(rules)))  # fmt: skip
    shim = ShimProcess(argv, env={**os.environ, "MCP_INSPECTOR_RUNTIME": str(runtime)})
    try:
        shim.request(1, "echo/one", {"n": 1})
        deadline = time.monotonic() + 30
        while not (listed := http.get("/api/intercept").json()["processes"]) or not listed[0]["paused"]:
            assert time.monotonic() < deadline, shim.stderr_bytes
            time.sleep(0.1)
        (process,) = listed
        assert process["kind"] == "wrap" and process["pid"] == shim.proc.pid
        (sid,) = process["sessions"]
        state = http.get(f"/api/intercept/sessions/{sid}").json()
        (paused,) = state["pending"]
        assert paused["method"] == "echo/one" and json.loads(paused["raw"])["params"] == {"n": 1}
        edit = '{"jsonrpc": "2.0", "id": 1, "method": "echo/one", "params": {"n": 100}}'
        url = f"/api/intercept/sessions/{sid}/pending"
        assert http.post(f"{url}/{paused['id']}", json={"action": "edit", "raw": edit}).status_code == 200
        assert json.loads(shim.read_line())["result"] == {"method": "echo/one", "params": {"n": 100}}
        shim.request(2, "echo/two")
        later = http.get(
            f"/api/intercept/sessions/{sid}", params={"version": state["version"], "wait": 10}
        ).json()
        while not later["pending"]:
            later = http.get(f"/api/intercept/sessions/{sid}", params={"version": later["version"], "wait": 10}).json()  # fmt: skip
        answer = {"action": "respond", "result": {"from": "the API"}}
        assert http.post(f"{url}/{later['pending'][0]['id']}", json=answer).status_code == 200
        assert json.loads(shim.read_line()) == {"jsonrpc": "2.0", "id": 2, "result": {"from": "the API"}}
    finally:
        assert shim.proc.stdin is not None
        shim.proc.stdin.close()
        shim.proc.wait(20)
    gone = http.get(f"/api/intercept/sessions/{sid}")
    assert gone.status_code == 404
    assert not list(runtime.glob("intercept-*.json"))
