"""`serve --faults` and `mock-server --faults` (issue 17) against the official Python SDK client.

Rules act on our own server's messages both ways: an injected error reaches the client as that
error, a dropped answer makes the client's own timeout fire (and the next call works), a replaced
result is what the client gets, a delayed answer comes late, and the mock's own sampling request
answered by the inspector never reaches the client. The recorded `mock-server` session carries
the marks of the #17 contract and the seed; a disconnect rule ends the session with its name.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp.shared.exceptions import MCPError

from inspector.errors import RulesError
from inspector.mock.intercept import mock_interceptor
from inspector.store import list_sessions, open_engine
from tests.cli_in_process import run
from tests.integration.serve_helpers import mock_rows, serve_argv, serve_http
from tests.sessions import load
from tests.warm_peers import inspector_argv

RULES = """
rules:
  - name: boom
    match: {method: tools/call, name: echo, kind: request, where: 'params.arguments.text == "boom"'}
    action: replace
    error: {code: -32042, message: injected by rule boom}
  - name: lose
    match: {method: tools/call, name: weather, kind: response}
    action: drop
    count: 1
  - name: swap
    match: {method: tools/call, name: echo, kind: response, where: 'result.content[0].text == "swap"'}
    action: replace
    result: {content: [{type: text, text: swapped by the inspector}]}
  - name: late
    match: {method: tools/call, name: echo, kind: response, where: 'result.content[0].text == "late"'}
    action: delay
    ms: 400
  - name: model
    match: {method: sampling/createMessage, kind: request}
    action: replace
    result: {role: assistant, model: inspector, content: {type: text, text: the inspector answered}}
"""


def _marks(rows: list[Any], key: str) -> dict[str, Any]:
    return {
        (r.meta or {})[key].get("rule") or (r.meta or {})[key]["n"]: r for r in rows if key in (r.meta or {})
    }


@pytest.mark.anyio
async def test_serve_faults_reach_the_python_client(tmp_path: Path, db_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    argv = serve_argv(db_path, "--stdio", "--faults", str(tmp_path / "rules.yaml"), "--seed", "5", warm=True)
    seen: list[str] = []

    async def sampling(ctx: Any, params: Any) -> Any:
        seen.append("sampling")
        raise AssertionError("the inspector answers sampling: the client never sees it")

    params = mcp.StdioServerParameters(command=argv[0], args=argv[1:])
    with anyio.fail_after(60):
        async with mcp.Client(params, mode="legacy", sampling_callback=sampling) as client:
            with pytest.raises(MCPError) as exc:
                await client.call_tool("echo", {"text": "boom"})
            assert exc.value.error.code == -32042 and exc.value.error.message == "injected by rule boom"
            with pytest.raises(MCPError, match="timed out"):
                await client.call_tool("weather", {"city": "Oslo"}, read_timeout_seconds=1)
            again = await client.call_tool("weather", {"city": "Oslo"})
            assert again.structured_content == {"city": "Oslo", "temperature": 21, "sky": "clear"}
            swapped = await client.call_tool("echo", {"text": "swap"})
            assert swapped.content[0].text == "swapped by the inspector"  # type: ignore[union-attr]
            started = time.monotonic()
            late = await client.call_tool("echo", {"text": "late"})
            assert late.content[0].text == "late" and time.monotonic() - started >= 0.35  # type: ignore[union-attr]
            asked = await client.call_tool("ask_llm", {"prompt": "hi?"})
            assert asked.content[0].text == "The model said: the inspector answered"  # type: ignore[union-attr]
            plain = await client.call_tool("echo", {"text": "plain"})
            assert plain.content[0].text == "plain"  # type: ignore[union-attr]
    assert seen == []

    rows = mock_rows(db_path)
    marked = _marks(rows, "intercept")
    assert set(marked) == {"boom", "lose", "swap", "late", "model"}
    assert marked["boom"].direction == "c2s" and marked["boom"].meta["intercept"]["delivered"] is False
    assert marked["lose"].direction == "s2c" and marked["lose"].meta["intercept"]["delivered"] is False
    assert (
        marked["late"].meta["intercept"]["delivered"] is True
        and marked["late"].meta["intercept"]["delay_ms"] == 400
    )
    injected = [r for r in rows if "injected" in (r.meta or {})]
    by_n = {r.meta["injected"]["n"]: r for r in injected}
    reply = by_n[marked["boom"].meta["intercept"]["n"]]
    assert reply.direction == "s2c" and reply.kind == "error" and reply.answers_seq == marked["boom"].seq
    answer = by_n[marked["model"].meta["intercept"]["n"]]  # the inspector answered the mock's request
    assert answer.direction == "c2s" and answer.answers_seq == marked["model"].seq
    swap_copy = by_n[marked["swap"].meta["intercept"]["n"]]
    assert (
        b"swapped by the inspector" in swap_copy.raw and swap_copy.answers_seq == marked["swap"].answers_seq
    )
    # Every row went through submit_message: one row per line, no line framed twice.
    assert all(r.raw.endswith(b"\n") for r in rows if r.channel in ("stdin", "stdout"))
    session = next(s for s in list_sessions(open_engine(db_path)) if s.kind == "mock-server")
    assert session.facts["intercept"]["seed"] == 5
    assert session.facts["intercept"]["rules"] == ["boom", "lose", "swap", "late", "model"]
    assert session.end_reason == "client EOF"


@pytest.mark.anyio
async def test_mock_server_faults_and_a_disconnect(tmp_path: Path, db_path: Path) -> None:
    original = load(db_path, "clock", name="clock")  # record_clock's session, checked in
    (tmp_path / "rules.yaml").write_text(
        "rules:\n"
        "  - name: nope\n"
        "    match: {method: tools/call, name: greet, kind: request}\n"
        "    action: replace\n"
        "    error: {code: -32043, message: greet refused}\n"
        "  - name: cut\n"
        "    match: {method: tools/call, name: now, kind: request}\n"
        "    action: disconnect\n"
    )
    argv = inspector_argv(
        "mock-server",
        str(original),
        "--db",
        str(db_path),
        "--stdio",
        "--faults",
        str(tmp_path / "rules.yaml"),
    )
    params = mcp.StdioServerParameters(command=argv[0], args=argv[1:])
    with anyio.fail_after(60):
        async with mcp.Client(params, mode="legacy") as client:
            with pytest.raises(MCPError) as exc:
                await client.call_tool("greet", {"name": "Ada"})
            assert exc.value.error.code == -32043
            with pytest.raises(Exception):  # noqa: B017 (the server goes away: the SDK's own error)
                await client.call_tool("now", {}, read_timeout_seconds=2)
    engine = open_engine(db_path)
    mock = next(s for s in list_sessions(engine) if s.kind == "mock-server")
    assert mock.end_reason == "disconnected by rule cut"
    assert mock.facts["intercept"]["rules"] == ["nope", "cut"] and isinstance(
        mock.facts["intercept"]["seed"], int
    )


HTTP_RULES = """
rules:
  - name: boom
    match: {method: tools/call, name: echo, kind: request, where: 'params.arguments.text == "boom"'}
    action: replace
    error: {code: -32042, message: injected by rule boom}
  - name: lose
    match: {method: tools/call, name: weather, kind: response}
    action: drop
    count: 1
  - name: swap
    match: {method: tools/call, name: echo, kind: response, where: 'result.content[0].text == "swap"'}
    action: replace
    result: {content: [{type: text, text: swapped by the inspector}]}
  - name: overload
    match: {method: tools/call, name: echo, kind: request, where: 'params.arguments.text == "busy"'}
    action: http_error
    status: 503
"""


@pytest.mark.anyio
async def test_serve_http_faults_reach_the_python_client(tmp_path: Path, db_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(HTTP_RULES)
    with serve_http(db_path, "--faults", str(tmp_path / "rules.yaml"), "--seed", "9", warm=True) as url:
        with anyio.fail_after(60):
            async with mcp.Client(url, mode="legacy") as client:
                with pytest.raises(MCPError) as exc:
                    await client.call_tool("echo", {"text": "boom"})
                assert exc.value.error.code == -32042
                with pytest.raises(MCPError, match="timed out"):
                    await client.call_tool("weather", {"city": "Oslo"}, read_timeout_seconds=1)
                again = await client.call_tool("weather", {"city": "Oslo"})
                assert again.structured_content == {"city": "Oslo", "temperature": 21, "sky": "clear"}
                swapped = await client.call_tool("echo", {"text": "swap"})
                assert swapped.content[0].text == "swapped by the inspector"  # type: ignore[union-attr]
                with pytest.raises(MCPError, match="error response"):  # the SDK reports the 503 so
                    await client.call_tool("echo", {"text": "busy"})
    rows = mock_rows(db_path)
    marked = _marks(rows, "intercept")
    assert set(marked) == {"boom", "lose", "swap", "overload"}
    assert marked["boom"].channel == "http-request" and marked["boom"].meta["intercept"]["delivered"] is False
    by_n = {r.meta["injected"]["n"]: r for r in rows if "injected" in (r.meta or {})}
    reply = by_n[marked["boom"].meta["intercept"]["n"]]
    assert reply.kind == "error" and reply.answers_seq == marked["boom"].seq
    assert by_n[marked["overload"].meta["intercept"]["n"]].http_status == 503
    assert marked["lose"].channel == "sse" and marked["lose"].meta["intercept"]["delivered"] is False
    swap_copy = by_n[marked["swap"].meta["intercept"]["n"]]
    assert (
        b"swapped by the inspector" in swap_copy.raw and swap_copy.answers_seq == marked["swap"].answers_seq
    )
    sessions = [s for s in list_sessions(open_engine(db_path)) if s.kind == "mock-server"]
    assert all(s.facts["intercept"]["seed"] == 9 for s in sessions)


@pytest.mark.anyio
async def test_serve_breakpoint_answered_through_the_control_channel(tmp_path: Path, db_path: Path) -> None:
    """`serve --intercept`: a paused call is answered by a person (the control channel), the mock
    never sees it, the client gets that answer, the announcement goes away with the process."""
    import json
    import os

    import httpx

    from inspector.control.announce import announcements

    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "rules:\n  - name: hold\n    match: {method: tools/call, name: echo}\n    action: pause\n"
    )
    argv = serve_argv(
        db_path, "--stdio", "--faults", str(rules), "--intercept", "--pause-timeout", "20", warm=True
    )
    env = {"MCP_INSPECTOR_RUNTIME": str(runtime)}
    got: dict[str, Any] = {}

    async def client() -> None:
        params = mcp.StdioServerParameters(command=argv[0], args=argv[1:], env=env)
        async with mcp.Client(params, mode="legacy") as c:
            got["result"] = await c.call_tool("echo", {"text": "original"})

    def operator() -> dict[str, Any]:
        os.environ["MCP_INSPECTOR_RUNTIME"] = str(runtime)
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                for reg in announcements():
                    auth = {"authorization": f"Bearer {reg['token']}"}
                    state = httpx.get(reg["url"] + "/state", headers=auth, trust_env=False).json()
                    if state["pending"]:
                        pending = state["pending"][0]
                        answer = {"jsonrpc": "2.0", "id": json.loads(pending["raw"])["id"]}
                        answer["result"] = {"content": [{"type": "text", "text": "answered by a person"}]}
                        sent = httpx.post(
                            f"{reg['url']}/pending/{pending['id']}",
                            json={"action": "respond", "raw": json.dumps(answer)},
                            headers=auth,
                            trust_env=False,
                        )
                        assert sent.status_code == 200, sent.text
                        return reg
                time.sleep(0.05)
            raise AssertionError("no paused message announced")
        finally:
            del os.environ["MCP_INSPECTOR_RUNTIME"]

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            tg.start_soon(client)
            reg = await anyio.to_thread.run_sync(operator)
    assert reg["kind"] == "serve"
    assert got["result"].content[0].text == "answered by a person"
    rows = mock_rows(db_path)
    (held,) = [r for r in rows if "intercept" in (r.meta or {})]
    assert (held.meta["intercept"]["action"], held.meta["intercept"]["by"]) == ("respond", "user")
    assert held.meta["intercept"]["delivered"] is False
    (reply,) = [r for r in rows if (r.meta or {}).get("injected", {}).get("n") == held.meta["intercept"]["n"]]
    assert reply.direction == "s2c" and reply.answers_seq == held.seq
    assert not list(runtime.glob("intercept-*.json"))


def test_bad_flags_are_clear(tmp_path: Path, db_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("rules:\n  - name: x\n    action: explode\n")
    reorder = tmp_path / "reorder.yaml"
    reorder.write_text("rules:\n  - name: r\n    action: reorder\n")
    for call in (
        lambda: mock_interceptor(str(bad), None, http=False),
        lambda: mock_interceptor(str(bad), None, http=True),
        lambda: mock_interceptor(str(reorder), None, http=True),
        lambda: mock_interceptor(None, 3, http=False),
    ):
        with pytest.raises(RulesError):
            call()
    out = run("serve", "--db", str(db_path), "--stdio", "--faults", str(bad))  # refused in this process
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "bad.yaml" in out.stderr and "'x'" in out.stderr, out.stderr
