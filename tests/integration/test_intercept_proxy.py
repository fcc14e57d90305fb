"""`mcp-inspect proxy --faults`: each HTTP rule changes what the real peers receive, asserted on the
client's side (the official Python and TypeScript SDK clients) and on the recorded rows.

One server-everything (Streamable HTTP, with its event store: resumable streams) and one proxy
with every rule, each rule keyed on the echo message it applies to, serve the module."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp
import pytest
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

from inspector.store import Message, list_sessions, open_engine
from tests.conftest import EVERYTHING_BIN, PEERS
from tests.http_peers import LineProcess, everything_http_server, proxy_in_process
from tests.shim_process import messages
from tests.warm_peers import peer_argv

RULES = """
seed: 17
rules:
  - name: answer-me
    match: {method: tools/call, kind: request, where: ['params.arguments.message == "answer-me"']}
    action: replace
    result: {content: [{type: text, text: "answered by the inspector"}]}
  - name: fail-me
    match: {kind: response, where: ['result.content[0].text == "Echo: fail-me"']}
    action: replace
    error: {code: -32042, message: "injected failure"}
  - name: lose-me
    match: {kind: response, where: ['result.content[0].text == "Echo: lose-me"']}
    action: drop
  - name: gone
    match: {kind: request, where: ['params.arguments.message == "gone"']}
    action: http_error
    status: 404
  - name: busy
    match: {kind: request, where: ['params.arguments.message == "busy"']}
    action: http_error
    status: 429
    headers: {Retry-After: "2"}
  - name: deny
    match: {method: initialize, where: ['params.clientInfo.name == "raw-client"']}
    action: http_error
    status: 401
    headers: {WWW-Authenticate: 'Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource"'}
  - name: slow
    match: {kind: request, where: ['params.arguments.message == "slow"']}
    action: delay
    ms: 300
  - name: twice
    match: {kind: request, where: ['params.arguments.message == "twice"']}
    action: duplicate
  - name: mangle
    match: {kind: response, where: ['result.content[0].text == "Echo: mangle"']}
    action: truncate
    at: 0.5
  - name: resume-me
    match: {kind: request, where: ['params.arguments.message == "resume-me"']}
    action: close_stream
    events: 1
  - name: drip-me
    match: {kind: response, where: ['result.content[0].text == "Echo: drip-me"']}
    action: drip
    chunk: 16
    interval_ms: 5
  - name: cut
    match: {kind: request, where: ['params.arguments.message == "cut"']}
    action: disconnect
  - name: swap-progress
    match: {method: notifications/progress}
    action: reorder
    window: 2
    ms: 10000                   # released by the window filling, never by the clock
  - name: sample-for-client
    match: {direction: s2c, method: sampling/createMessage}
    action: replace
    result: {role: assistant, content: {type: text, text: "sampled by the inspector"}, model: inspector}
  - name: hold-me
    match: {kind: request, where: ['params.arguments.message == "hold-me"']}
    action: pause
"""


@pytest.fixture(scope="module")
def everything() -> Iterator[str]:
    if not EVERYTHING_BIN.exists():
        pytest.fail("server-everything is not installed: run `make peers` (make test does it)")
    with everything_http_server("streamableHttp") as url:
        yield url


@pytest.fixture(scope="module")
def faulty(everything: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The proxy with every rule (breakpoints on, 0.3 s to decide, then forwarded); yields its URL and db."""
    work = tmp_path_factory.mktemp("intercept-proxy")
    rules = work / "rules.yaml"
    rules.write_text(RULES)
    db = work / "rec.db"
    runtime = work / "runtime"
    runtime.mkdir(mode=0o700)
    extra = ("--faults", str(rules), "--intercept", "--pause-timeout", "0.3", "--pause-default", "forward")
    with proxy_in_process(everything, db, *extra, env={"MCP_INSPECTOR_RUNTIME": str(runtime)}) as (url, proc):
        said = "".join(proc.output)
        assert "intercepting with seed 17: 15 rules: answer-me, fail-me," in said
        ours = [line for line in proc.output if "intercepting" in line or line.startswith("     ")]
        assert len(ours) > 1 and all(len(line.rstrip("\n")) <= 80 for line in ours)  # folded at 80 columns
        yield url, db


def _rows(db: Path) -> list[Message]:
    engine = open_engine(db)
    try:
        return [m for s in list_sessions(engine) if s.id is not None for m in messages(engine, s.id)]
    finally:
        engine.dispose()


def _wait_rows(db: Path, predicate: Any, timeout: float = 60.0) -> list[Message]:
    """Rows are committed off the forwarding path: wait (bounded) until they are there."""
    deadline = time.monotonic() + timeout
    while True:
        rows = _rows(db)
        if predicate(rows):
            return rows
        if time.monotonic() > deadline:
            raise AssertionError(f"rows never matched: {[(m.kind, m.method, m.meta) for m in rows][-20:]}")
        time.sleep(0.05)


def _ended(db: Path, sid: int, timeout: float = 60.0) -> Any:
    """The session once it has ended (bounded wait)."""
    deadline = time.monotonic() + timeout
    while True:
        engine = open_engine(db)
        try:
            session = next(s for s in list_sessions(engine) if s.id == sid)
        finally:
            engine.dispose()
        if session.status == "ended":
            return session
        assert time.monotonic() < deadline, f"session {sid} never ended"
        time.sleep(0.05)


def _intervened(rows: list[Message], rule: str, session: int | None = None) -> list[Message]:
    return [
        m
        for m in rows
        if ((m.meta or {}).get("intercept") or {}).get("rule") == rule and session in (None, m.session_id)
    ]


def _injected(rows: list[Message], n: int) -> list[Message]:
    return [m for m in rows if ((m.meta or {}).get("injected") or {}).get("n") == n]


class _Progress:
    """A progress callback that keeps the values it is given, in order."""

    def __init__(self) -> None:
        self.seen: list[float] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append(progress)


async def _python_calls(url: str, calls: list[str]) -> dict[str, Any]:
    """Each echo message (or 'progress') through one SDK client session: its text, error and timing."""
    out: dict[str, Any] = {"sampled": 0}

    async def sampling(context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        out["sampled"] += 1
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text="by the client"), model="m"
        )

    async with mcp.Client(url, cache=None, sampling_callback=sampling) as client:
        for message in calls:
            progress = _Progress()

            started = time.monotonic()
            try:
                if message == "sampling":
                    result = await client.call_tool("trigger-sampling-request", {"prompt": "hi"})
                elif message == "progress":
                    result = await client.call_tool(
                        "trigger-long-running-operation",
                        {"duration": 0.4, "steps": 4},
                        progress_callback=progress,
                        read_timeout_seconds=5,
                    )
                else:
                    # 1.5 s is the subject for the lost and the mangled answers (the client's own timeout
                    # fires); every other call is answered and gets time enough on a loaded machine:
                    # resume-me alone waits the SDK's reconnection delay (1 s: server-everything's
                    # priming event names no `retry`) before its GET + Last-Event-ID, and under load
                    # the round trip after it took more than the 0.5 s that 1.5 s left (KeyError 'text').
                    timeout = 1.5 if message in ("lose-me", "mangle") else 30
                    result = await client.call_tool(
                        "echo", {"message": message}, read_timeout_seconds=timeout
                    )
                text = result.content[0].text if result.content else None  # type: ignore[union-attr]
                out[message] = {"text": text, "progress": progress.seen}
            except Exception as exc:  # the SDK raises MCPError for JSON-RPC errors and timeouts
                out[message] = {"error": str(exc), "code": getattr(getattr(exc, "error", None), "code", None)}
            out[message]["s"] = time.monotonic() - started
    return out


def _session_of(rows: list[Message], marker: bytes) -> int:
    """The recorded session whose client sent an echo of `marker`."""
    return next(m.session_id for m in rows if m.direction == "c2s" and marker in m.raw)


@pytest.mark.anyio
async def test_python_sdk_client_through_every_http_rule(faulty: tuple[str, Path]) -> None:
    url, db = faulty
    calls = ["py-start", "answer-me", "fail-me", "lose-me", "after-lose", "slow", "twice", "mangle",
             "after-mangle", "resume-me", "drip-me", "progress", "busy", "gone", "after-gone", "hold-me", "sampling"]  # fmt: skip
    with anyio.fail_after(40):
        out = await _python_calls(url, calls)
    # What the client saw.
    assert out["answer-me"]["text"] == "answered by the inspector"
    assert out["fail-me"]["error"] == "injected failure" and out["fail-me"]["code"] == -32042
    assert "timed out" in out["lose-me"]["error"]  # the client's own timeout fired ...
    assert out["after-lose"]["text"] == "Echo: after-lose"  # ... and it went on working
    assert out["slow"]["text"] == "Echo: slow" and out["slow"]["s"] >= 0.3
    assert out["twice"]["text"] == "Echo: twice"
    assert "parse" in out["mangle"]["error"].lower() and out["after-mangle"]["text"] == "Echo: after-mangle"
    assert out["resume-me"]["text"] == "Echo: resume-me"
    assert out["resume-me"]["s"] >= 1.0  # the SDK waited its reconnection delay, then resumed
    assert out["drip-me"]["text"] == "Echo: drip-me"
    assert out["progress"]["progress"] == [2.0, 1.0, 4.0, 3.0]  # reordered in windows of 2
    assert out["busy"]["error"] == "Server returned an error response"
    # 404 on a session: this SDK (mcp 2.3) reports "Session terminated" and does NOT re-initialise:
    # the next call goes out under the same session id and works.
    assert out["gone"]["error"] == "Session terminated"
    assert out["after-gone"]["text"] == "Echo: after-gone"
    assert out["hold-me"]["text"] == "Echo: hold-me" and out["hold-me"]["s"] >= 0.25  # paused, then forwarded
    # The server's sampling request was answered by the inspector: the client never saw it.
    assert "sampled by the inspector" in out["sampling"]["text"] and out["sampled"] == 0

    def _recorded(rows: list[Message]) -> bool:
        """The last calls' rows are committed: hold-me's, and the sampling request the inspector
        answered with the answer it posted (the sampling call comes last; rows lag under load)."""
        ours = {m.session_id for m in rows if m.direction == "c2s" and b'"py-start"' in m.raw}
        sampled = [m for m in _intervened(rows, "sample-for-client") if m.session_id in ours]
        return (
            bool(_intervened(rows, "hold-me"))
            and len(sampled) == 1
            and len([m for m in _injected(rows, sampled[0].meta["intercept"]["n"]) if m.session_id in ours])
            == 1
        )

    rows = _wait_rows(db, _recorded)
    sid = _session_of(rows, b'"py-start"')
    mine = [m for m in rows if m.session_id == sid]
    # Every rule's row carries who changed what; the inspector's own bytes are rows of their own.
    (answer,) = _intervened(mine, "answer-me")
    assert answer.direction == "c2s" and answer.meta["intercept"]["delivered"] is False
    (reply,) = _injected(mine, answer.meta["intercept"]["n"])
    assert reply.direction == "s2c" and reply.http_status == 200
    assert json.loads(reply.raw)["result"]["content"][0]["text"] == "answered by the inspector"
    (failed,) = _intervened(mine, "fail-me")
    assert b"Echo: fail-me" in failed.raw and failed.channel == "sse"  # what the server sent
    (error,) = _injected(mine, failed.meta["intercept"]["n"])
    assert json.loads(error.body)["error"] == {"code": -32042, "message": "injected failure"}
    assert error.sse_event_id == failed.sse_event_id  # the event keeps its id
    lost = _intervened(mine, "lose-me")
    assert lost and all(m.meta["intercept"]["delivered"] is False for m in lost)
    (slow,) = _intervened(mine, "slow")
    assert slow.meta["intercept"]["delay_ms"] == 300 and slow.meta["intercept"]["delivered"] is True
    (twice,) = _intervened(mine, "twice")
    copies = [m for m in _injected(mine, twice.meta["intercept"]["n"]) if m.direction == "c2s"]
    assert [c.raw for c in copies] == [twice.raw]  # forwarded twice, byte for byte
    discarded = [m for m in mine if (m.meta or {}).get("discarded") and b"Echo: twice" in m.raw]
    assert discarded, "the server's second answer is recorded (and was not sent to the client)"
    (mangled,) = _intervened(mine, "mangle")
    (cut,) = _injected(mine, mangled.meta["intercept"]["n"])
    data = mangled.body
    assert cut.body == data[: len(data) // 2] and cut.kind == "invalid"
    # close_stream: the answer's stream ended after its priming event; the client came back with
    # GET + Last-Event-ID (that event's id) and got the answer on the resumed stream.
    (resumed,) = _intervened(mine, "resume-me")
    post = [m for m in mine if m.meta.get("exchange") == resumed.meta["exchange"] and m.channel == "sse"]
    assert len(post) == 1 and post[0].sse_event_id and not post[0].body.strip()  # the priming event only
    gets = [m for m in mine if m.http_method == "GET" and m.direction == "c2s" and m.raw == b""]
    resume = [g for g in gets if ["last-event-id", post[0].sse_event_id] in (g.http_headers or [])]
    assert resume, "the client resumed with Last-Event-ID"
    answered = [
        m
        for m in mine
        if m.meta.get("exchange") == resume[0].meta["exchange"] and b"Echo: resume-me" in m.raw
    ]
    assert answered and answered[0].kind == "response"
    (drip,) = _intervened(mine, "drip-me")
    assert drip.meta["intercept"]["delivered"] is True
    swapped = _intervened(mine, "swap-progress")
    assert [m.meta["intercept"]["position"] for m in swapped] == [1, 2, 1, 2]
    (busy,) = _intervened(mine, "busy")
    (busy_reply,) = _injected(mine, busy.meta["intercept"]["n"])
    assert busy_reply.http_status == 429 and ["retry-after", "2"] in busy_reply.http_headers
    (gone,) = _intervened(mine, "gone")
    assert [m.http_status for m in _injected(mine, gone.meta["intercept"]["n"])] == [404]
    (sample,) = _intervened(mine, "sample-for-client")
    assert (
        sample.direction == "s2c"
        and sample.kind == "request"
        and sample.meta["intercept"]["delivered"] is False
    )
    (answer_post,) = _injected(mine, sample.meta["intercept"]["n"])
    assert answer_post.direction == "c2s" and answer_post.http_method == "POST"
    assert json.loads(answer_post.raw)["result"]["content"]["text"] == "sampled by the inspector"
    (held,) = _intervened(mine, "hold-me")
    assert held.meta["intercept"]["by"] == "timeout" and held.meta["intercept"]["resolved"] == "forward"
    # The seed and the rules are in the session's facts.
    engine = open_engine(db)
    facts = next(s for s in list_sessions(engine) if s.id == sid).facts
    engine.dispose()
    assert facts["intercept"]["seed"] == 17 and "answer-me" in facts["intercept"]["rules"]


def test_typescript_sdk_client_through_every_http_rule(faulty: tuple[str, Path]) -> None:
    url, db = faulty
    if shutil.which("node") is None:
        pytest.fail("node is not installed: run `make peers` (make test does it)")
    # 1.5 s is the subject for the lost and the mangled answers (the client's own timeout fires);
    # every other call is answered, and gets time enough on a loaded machine.
    calls = [{"tool": "echo", "args": {"message": m}, "timeout": 1500 if m in ("lose-me", "mangle") else 30000}
             for m in ("ts-start", "answer-me", "fail-me", "lose-me", "after-lose", "resume-me", "mangle", "busy",
                       "gone", "after-gone", "cut", "after-cut")]  # fmt: skip
    calls.append(
        {
            "tool": "trigger-long-running-operation",
            "args": {"duration": 0.4, "steps": 4},
            "progress": True,
            "timeout": 30000,
        }
    )
    done = subprocess.run(
        ["node", str(PEERS / "intercept_http_client.mjs"), url, json.dumps(calls)],
        capture_output=True, text=True, timeout=100,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    out = {(line["args"] or {}).get("message", line["tool"]): line for line in lines[1:]}
    session = lines[0]["session"]

    def text(key: str) -> str:
        return out[key]["result"]["content"][0]["text"]

    assert text("answer-me") == "answered by the inspector"
    assert out["fail-me"]["code"] == -32042 and "injected failure" in out["fail-me"]["error"]
    assert out["lose-me"]["code"] == -32001  # RequestTimeout: the client's own timeout ...
    assert text("after-lose") == "Echo: after-lose"  # ... and it goes on
    assert text("resume-me") == "Echo: resume-me"
    assert out["mangle"]["code"] == -32001  # an unparsable event is skipped: the request times out
    assert out["busy"]["code"] == 429 and out["gone"]["code"] == 404
    # 404 on a session: this SDK (1.32) throws and does NOT re-initialise (same session id after).
    assert out["gone"]["session_after"] == session and text("after-gone") == "Echo: after-gone"
    assert out["cut"]["error"] == "fetch failed" and text("after-cut") == "Echo: after-cut"
    assert out["trigger-long-running-operation"]["progress"] == [2, 1, 4, 3]

    rows = _wait_rows(db, lambda rows: any(b'"after-cut"' in m.raw for m in rows))
    sid = _session_of(rows, b'"ts-start"')
    mine = [m for m in rows if m.session_id == sid]
    (resumed,) = _intervened(mine, "resume-me")
    priming = next(
        m for m in mine if m.meta.get("exchange") == resumed.meta["exchange"] and m.channel == "sse"
    )
    assert any(
        m.http_method == "GET" and ["last-event-id", priming.sse_event_id] in (m.http_headers or [])
        for m in mine
        if m.direction == "c2s"
    )
    (cut,) = _intervened(mine, "cut")
    assert cut.meta["intercept"]["action"] == "disconnect"
    # The session went on (its GET stream and the next calls are recorded, nothing lost) and ends,
    # whenever it does (here: the client's DELETE), with the rule's reason.
    assert any(b'"after-cut"' in m.raw for m in mine)
    assert _ended(db, sid).end_reason == "disconnected by rule cut"


@pytest.mark.anyio
async def test_python_sdk_client_is_cut_off_by_disconnect(faulty: tuple[str, Path]) -> None:
    url, db = faulty
    with anyio.fail_after(20), pytest.raises(BaseException) as caught:  # noqa: PT011, B017
        async with mcp.Client(url, cache=None) as client:
            await client.call_tool("echo", {"message": "py-cut-start"})
            await client.call_tool("echo", {"message": "cut"}, read_timeout_seconds=5)
    # mcp 2.3: the cut POST's connection error ends the client (it does not retry).
    assert "RemoteProtocolError" in repr(caught.value) or "disconnected" in str(caught.value).lower()
    rows = _wait_rows(db, lambda rows: any(b"py-cut-start" in m.raw for m in rows))
    sid = _session_of(rows, b"py-cut-start")
    assert _ended(db, sid).end_reason == "disconnected by rule cut"


def test_the_proxy_answers_401_with_a_challenge_and_as_json_or_sse(faulty: tuple[str, Path]) -> None:
    url, db = faulty
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "raw-client", "version": "1"}}}  # fmt: skip
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    r = httpx.post(url, json=init, headers=headers, timeout=10)
    assert r.status_code == 401
    assert r.headers["www-authenticate"].startswith('Bearer resource_metadata="http://127.0.0.1:1/')
    rows = _wait_rows(db, lambda rows: bool(_intervened(rows, "deny")))
    (denied,) = _intervened(rows, "deny")
    (answer,) = _injected(rows, denied.meta["intercept"]["n"])
    assert answer.http_status == 401 and any(h[0] == "www-authenticate" for h in answer.http_headers)
    # Never forwarded: server-everything would have answered an initialize with a session id.
    assert "mcp-session-id" not in r.headers
    # The inspector's answer to a client that accepts only an event stream is one SSE event.
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": "answer-me"}}}  # fmt: skip
    r = httpx.post(url, json=call, headers={**headers, "accept": "text/event-stream"}, timeout=10)
    assert r.status_code == 200 and r.headers["content-type"] == "text/event-stream"
    assert r.text.startswith("data: ") and r.text.endswith("\n\n")
    answer = json.loads(r.text.removeprefix("data: "))
    assert answer == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {"content": [{"type": "text", "text": "answered by the inspector"}]},
    }
    r = httpx.post(url, json=call, headers=headers, timeout=10)  # JSON for a client that takes JSON
    assert r.headers["content-type"] == "application/json" and r.json() == answer
    assert r.headers["content-length"] == str(len(r.content))


@pytest.mark.anyio
async def test_legacy_sse_reply_and_error_go_out_on_the_event_stream(tmp_path: Path) -> None:
    from mcp.client.sse import sse_client

    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [
        {"name": "answer-me", "match": {"kind": "request", "where": ['params.arguments.message == "answer-me"']},
         "action": "replace", "result": {"content": [{"type": "text", "text": "answered on the stream"}]}},
        {"name": "fail-me", "match": {"kind": "response", "where": ['result.content[0].text == "Echo: fail-me"']},
         "action": "replace", "error": {"code": -32043, "message": "legacy failure"}},
    ]}))  # fmt: skip
    db = tmp_path / "rec.db"
    with (
        everything_http_server("sse") as target,
        proxy_in_process(target, db, "--faults", str(rules)) as (url, _p),
    ):
        with anyio.fail_after(30):
            async with mcp.Client(sse_client(url), cache=None) as client:
                answered = await client.call_tool("echo", {"message": "answer-me"})
                with pytest.raises(mcp.MCPError) as failed:
                    await client.call_tool("echo", {"message": "fail-me"})
                plain = await client.call_tool("echo", {"message": "plain"})
    assert answered.content[0].text == "answered on the stream"  # type: ignore[union-attr]
    assert failed.value.error.code == -32043
    assert plain.content[0].text == "Echo: plain"  # type: ignore[union-attr]
    rows = _wait_rows(db, lambda rows: bool(_intervened(rows, "fail-me")))
    (answer,) = _intervened(rows, "answer-me")
    injected = _injected(rows, answer.meta["intercept"]["n"])
    # The POST was accepted (202) and the inspector's answer went out as an event of the legacy stream.
    assert sorted((m.channel, m.http_status) for m in injected) == [("http-response", 202), ("sse", None)]
    event = next(m for m in injected if m.channel == "sse")
    assert event.http_method == "GET" and json.loads(event.body)["result"]["content"][0]["text"] == (
        "answered on the stream"
    )


@pytest.fixture(scope="module")
def json_server() -> Iterator[str]:
    server = LineProcess(
        peer_argv("bench.http_server", "--mode", "json")  # forked warm: the SDK server without its imports
    )
    try:
        yield server.wait_for(r"bench http server listening on (\S+)").group(1)
    finally:
        server.stop()


@pytest.mark.anyio
async def test_json_responses_are_read_whole_then_changed(json_server: str, tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("""
rules:
  - name: fail-me
    match: {kind: response, where: ['result.content[0].text == "fail-me"']}
    action: replace
    error: {code: -32044, message: "json failure"}
  - name: lose-me
    match: {kind: response, where: ['result.content[0].text == "lose-me"']}
    action: drop
  - name: twice
    match: {kind: response, where: ['result.content[0].text == "twice"']}
    action: duplicate
  - name: drip-me
    match: {kind: response, where: ['result.content[0].text == "drip-me"']}
    action: drip
    chunk: 8
    interval_ms: 20
""")
    db = tmp_path / "rec.db"
    with proxy_in_process(json_server, db, "--faults", str(rules)) as (url, _p):
        with anyio.fail_after(30):
            async with mcp.Client(url, cache=None) as client:
                with pytest.raises(mcp.MCPError) as failed:
                    await client.call_tool("echo", {"message": "fail-me"})
                with pytest.raises(mcp.MCPError) as lost:
                    await client.call_tool("echo", {"message": "lose-me"}, read_timeout_seconds=1)
                twice = await client.call_tool("echo", {"message": "twice"})
                started = time.monotonic()
                dripped = await client.call_tool("echo", {"message": "drip-me"})
                drip_s = time.monotonic() - started
    assert failed.value.error.code == -32044
    assert "timed out" in str(lost.value)
    assert twice.content[0].text == "twice"  # type: ignore[union-attr]
    assert dripped.content[0].text == "drip-me" and drip_s >= 0.15  # type: ignore[union-attr]
    rows = _wait_rows(db, lambda rows: bool(_intervened(rows, "drip-me")))
    (fail,) = _intervened(rows, "fail-me")
    assert fail.channel == "http-response" and b'"fail-me"' in fail.raw
    (error,) = _injected(rows, fail.meta["intercept"]["n"])
    assert json.loads(error.raw)["error"]["code"] == -32044
    assert ["content-length", str(len(error.raw))] in error.http_headers
    (dup,) = _intervened(rows, "twice")
    # Two copies of one JSON answer: sent as an event stream of two events.
    assert [m.channel for m in _injected(rows, dup.meta["intercept"]["n"])] == ["sse", "sse"]
    (drip,) = _intervened(rows, "drip-me")
    assert drip.meta["intercept"]["delivered"] is True


def test_a_bad_rules_file_is_refused_before_anything_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspector.cli import main  # in-process: a subprocess would spend seconds importing

    rules = tmp_path / "rules.yaml"
    rules.write_text("rules:\n  - name: slow\n    match: {method: tools/call}\n    action: delay\n")
    db = tmp_path / "rec.db"
    monkeypatch.setattr(sys, "argv", ["mcp-inspect", "proxy", "--target", "http://127.0.0.1:9/mcp",
                                      "--listen", "127.0.0.1:0", "--db", str(db), "--faults", str(rules)])  # fmt: skip
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    said = " ".join(capsys.readouterr().err.split())
    assert str(rules) in said and "'slow'" in said and "ms" in said, said
    assert "Traceback" not in said and not db.exists()


async def _pending_id(client: httpx.AsyncClient, url: str, token: str) -> str:
    """The first paused message's id, once there is one (bounded wait: generous, a node client's
    start-up comes first and took over 15 s under load)."""
    with anyio.fail_after(60):
        while True:
            state = (await client.get(f"{url}/state", headers={"authorization": f"Bearer {token}"})).json()
            if state["pending"]:
                return str(state["pending"][0]["id"])
            await anyio.sleep(0.05)


@pytest.mark.anyio
async def test_breakpoints_edited_and_answered_through_the_control_channel(
    everything: str, tmp_path: Path
) -> None:
    pytest.importorskip("inspector.control.server")  # the control channel (iui17's part of #17)
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules:\n  - name: bp\n    match: {method: tools/call, where: ['params.arguments.message ~ \"^bp-\"']}\n"
                     "    action: pause\n")  # fmt: skip
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    db = tmp_path / "rec.db"
    extra = ("--faults", str(rules), "--intercept", "--pause-timeout", "20")
    env = {"MCP_INSPECTOR_RUNTIME": str(runtime)}
    with proxy_in_process(everything, db, *extra, env=env) as (url, _proc):
        announced = json.loads((runtime / f"intercept-{os.getpid()}.json").read_text())  # this process's
        control, token = announced["url"], announced["token"]
        assert announced["kind"] == "proxy" and announced["target"] == everything
        got: dict[str, str] = {}
        with anyio.fail_after(90):  # a ceiling (no timing is checked): a node process starts inside
            async with mcp.Client(url, cache=None) as client, httpx.AsyncClient() as api:

                async def call(message: str) -> None:
                    result = await client.call_tool("echo", {"message": message}, read_timeout_seconds=30)
                    got[message] = result.content[0].text  # type: ignore[union-attr]

                auth = {"authorization": f"Bearer {token}"}
                async with anyio.create_task_group() as tg:
                    tg.start_soon(call, "bp-edit")
                    pid = await _pending_id(api, control, token)
                    edited = {"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                              "params": {"name": "echo", "arguments": {"message": "edited by the user"}}}  # fmt: skip
                    state = (await api.get(f"{control}/state", headers=auth)).json()
                    edited["id"] = json.loads(state["pending"][0]["raw"])["id"]  # the same request, changed
                    r = await api.post(f"{control}/pending/{pid}", headers=auth,
                                       json={"action": "edit", "raw": json.dumps(edited)})  # fmt: skip
                    assert r.status_code == 200, r.text
                async with anyio.create_task_group() as tg:
                    tg.start_soon(call, "bp-answer")
                    pid = await _pending_id(api, control, token)
                    answer = {"content": [{"type": "text", "text": "answered by the user"}]}
                    r = await api.post(f"{control}/pending/{pid}", headers=auth,
                                       json={"action": "respond", "result": answer})  # fmt: skip
                    assert r.status_code == 200, r.text
                # The TypeScript SDK client's call, edited at its breakpoint likewise.
                calls = [{"tool": "echo", "args": {"message": "bp-ts"}, "timeout": 30000}]
                node = await anyio.open_process(
                    ["node", str(PEERS / "intercept_http_client.mjs"), url, json.dumps(calls)]
                )
                pid = await _pending_id(api, control, token)
                state = (await api.get(f"{control}/state", headers=auth)).json()
                paused = json.loads(state["pending"][0]["raw"])
                paused["params"]["arguments"]["message"] = "edited for ts"
                r = await api.post(f"{control}/pending/{pid}", headers=auth,
                                   json={"action": "edit", "raw": json.dumps(paused)})  # fmt: skip
                assert r.status_code == 200, r.text
                assert node.stdout is not None
                out = b""
                async for chunk in node.stdout:
                    out += chunk
                assert await node.wait() == 0
                ts = json.loads(out.decode().splitlines()[-1])
                got["bp-ts"] = ts["result"]["content"][0]["text"]
    # The server received the edited calls (its echo says so); the answered one never reached it.
    assert got == {
        "bp-edit": "Echo: edited by the user",
        "bp-answer": "answered by the user",
        "bp-ts": "Echo: edited for ts",
    }
    rows = _rows(db)
    edits = [m for m in rows if ((m.meta or {}).get("intercept") or {}).get("action") == "edit"]
    assert [b'"bp-edit"' in m.raw or b'"bp-ts"' in m.raw for m in edits] == [True, True]
    for edit in edits:
        assert edit.meta["intercept"]["by"] == "user" and edit.meta["intercept"]["delivered"] is False
        assert [m.direction for m in _injected(rows, edit.meta["intercept"]["n"])] == ["c2s"]
    (respond,) = [m for m in rows if ((m.meta or {}).get("intercept") or {}).get("action") == "respond"]
    (reply,) = _injected(rows, respond.meta["intercept"]["n"])
    assert reply.direction == "s2c" and b"answered by the user" in reply.raw
    assert not any(b"Echo: bp-answer" in m.raw for m in rows)


def test_a_seeded_probabilistic_rule_gives_the_same_sequence_twice(everything: str, tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "rules:\n  - {name: coin, match: {method: ping}, action: http_error, status: 503, probability: 0.5}\n"
    )
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    dbs = [tmp_path / "run0.db", tmp_path / "run1.db"]
    runs = []
    for db in dbs:  # one proxy after the other: the second draws from a generator seeded afresh
        with (
            proxy_in_process(everything, db, "--faults", str(rules), "--seed", "5") as (url, _proc),
            httpx.Client(timeout=10) as client,
        ):
            # Not initialised: what server-everything answers is a 400; the rule's answer is a 503.
            runs.append([client.post(url, json={"jsonrpc": "2.0", "id": i, "method": "ping"},
                                     headers=headers).status_code for i in range(24)])  # fmt: skip
    for db in dbs:
        engine = open_engine(db)
        facts = [s.facts for s in list_sessions(engine)]
        engine.dispose()
        assert facts and all(f["intercept"]["seed"] == 5 for f in facts)
    assert runs[0] == runs[1]
    assert set(runs[0]) == {400, 503}


def test_rules_that_can_never_act_leave_the_plain_proxy_with_the_facts(
    everything: str, tmp_path: Path
) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules:\n  - {name: hold, match: {}, action: pause}\n")  # a pause needs --intercept
    db = tmp_path / "rec.db"
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    with proxy_in_process(everything, db, "--faults", str(rules)) as (url, proc):
        r = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers, timeout=10)
    assert r.status_code == 400  # server-everything's own answer to a ping outside a session
    assert any(
        "no rule is active (1 in the file): forwarding as a plain proxy" in line for line in proc.output
    )
    engine = open_engine(db)
    (session,) = list_sessions(engine)
    rows = messages(engine, session.id)  # type: ignore[arg-type]
    engine.dispose()
    assert session.facts["intercept"]["rules"] == ["hold"]
    assert not any((m.meta or {}).get("intercept") for m in rows) and len(rows) == 2
