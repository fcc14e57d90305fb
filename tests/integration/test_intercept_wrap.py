"""Both official SDK clients through `wrap --faults` / `--intercept` to server-everything.

An injected error reaches the client as that error (McpError with its code); a dropped
response makes the client's own request timeout fire and the next call succeeds; a
replaced result is what the client gets; a seeded probabilistic rule gives the same
decisions twice; a breakpoint nobody watches times out and applies its default action.
What the server received and what the client received are captured with `tee` outside
the inspector and compared with the recorded rows. The wraps are processes forked from a warm
server (tests/warm_peers.py): the same pipes, without a Python start-up each.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp.shared.exceptions import MCPError

from inspector.store import Message, Session, open_engine
from tests.conformance.suite import NODE
from tests.conftest import PEERS
from tests.shim_process import messages, only_session
from tests.warm_peers import warm_wrap_argv

RULES = """
rules:
  - name: boom
    match: {method: tools/call, name: echo, kind: request, where: 'params.arguments.message == "boom"'}
    action: replace
    error: {code: -32042, message: injected by rule boom}
  - name: lose
    match: {method: tools/call, name: get-sum, kind: response}
    action: drop
    count: 1
  - name: swap
    match: {method: tools/call, name: echo, kind: response, where: 'result.content[0].text == "Echo: swap"'}
    action: replace
    result: {content: [{type: text, text: swapped by the inspector}]}
"""


class Taps:
    """tee files between the shim and the server, and on the client's side of the shim."""

    def __init__(self, tmp: Path) -> None:
        self.db = tmp / "rec.db"
        self.client_received = tmp / "client_received.bin"
        self.server_received = tmp / "server_received.bin"
        self.server_sent = tmp / "server_sent.bin"

    def command(self, server: list[str], *flags: str) -> list[str]:
        inner = f"tee {self.server_received} | {shlex.join(server)} | tee {self.server_sent}"
        shim = shlex.join(warm_wrap_argv(self.db, "sh", "-c", inner, extra=("--quiet", *flags)))
        return ["sh", "-c", f"{shim} | tee {self.client_received}"]

    def recorded(self) -> tuple[Session, list[Message]]:
        engine = open_engine(self.db)
        session = only_session(engine)
        assert session.id is not None
        return session, messages(engine, session.id)


def _params(argv: list[str]) -> mcp.StdioServerParameters:
    return mcp.StdioServerParameters(command=argv[0], args=argv[1:])


def _intercepted(rows: list[Message], rule: str) -> Message:
    (row,) = [m for m in rows if (m.meta or {}).get("intercept", {}).get("rule") == rule]
    return row


@pytest.mark.anyio
async def test_python_sdk_client_gets_injected_error_timeout_and_replaced_result(
    tmp_path: Path, everything_cmd: list[str]
) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    taps = Taps(tmp_path)
    argv = taps.command(everything_cmd, "--faults", str(tmp_path / "rules.yaml"))
    with anyio.fail_after(60):
        async with mcp.Client(_params(argv), mode="legacy") as client:
            with pytest.raises(MCPError) as exc:
                await client.call_tool("echo", {"message": "boom"})
            assert exc.value.error.code == -32042 and exc.value.error.message == "injected by rule boom"
            started = time.monotonic()
            with pytest.raises(MCPError, match="timed out"):
                await client.call_tool("get-sum", {"a": 1, "b": 2}, read_timeout_seconds=1)
            assert time.monotonic() - started >= 0.9
            again = await client.call_tool("get-sum", {"a": 2, "b": 40})  # the client goes on working
            assert "42" in str(again.content[0])
            swapped = await client.call_tool("echo", {"message": "swap"})
            assert swapped.content[0].text == "swapped by the inspector"  # type: ignore[union-attr]
            plain = await client.call_tool("echo", {"message": "plain"})
            assert plain.content[0].text == "Echo: plain"  # type: ignore[union-attr]
    session, rows = taps.recorded()
    server_received = taps.server_received.read_bytes()
    server_sent = taps.server_sent.read_bytes()
    client_received = taps.client_received.read_bytes()

    boom = _intercepted(rows, "boom")
    assert boom.direction == "c2s" and boom.meta["intercept"]["delivered"] is False
    assert boom.raw not in server_received  # the server never saw the call
    (reply,) = [m for m in rows if (m.meta or {}).get("injected", {}).get("n") == boom.meta["intercept"]["n"]]
    assert reply.direction == "s2c" and reply.kind == "error" and reply.answers_seq == boom.seq
    assert reply.raw in client_received

    lost = _intercepted(rows, "lose")
    assert lost.direction == "s2c" and lost.raw in server_sent and lost.raw not in client_received

    swap = _intercepted(rows, "swap")
    assert swap.raw in server_sent and swap.raw not in client_received
    (new,) = [m for m in rows if (m.meta or {}).get("injected", {}).get("n") == swap.meta["intercept"]["n"]]
    assert b"swapped by the inspector" in new.raw and new.raw in client_received

    # Everything else passed untouched, byte for byte, both ways.
    for m in rows:
        if m.channel == "stdin" and not m.meta:
            assert m.raw in server_received
        if m.channel == "stdout" and "injected" not in (m.meta or {}) and "intercept" not in (m.meta or {}):
            assert m.raw in client_received
    assert session.facts["intercept"]["rules"] == ["boom", "lose", "swap"]


def _seeded_run(tmp: Path, everything_cmd: list[str], seed: str) -> tuple[list[bool], list[Any]]:
    tmp.mkdir()
    rules = tmp / "rules.yaml"
    rules.write_text(
        "rules:\n  - name: coin\n    match: {method: tools/call, name: echo, kind: request}\n"
        "    action: replace\n    probability: 0.5\n    error: {code: -32050, message: heads}\n"
    )
    argv = warm_wrap_argv(
        tmp / "rec.db", *everything_cmd, extra=("--quiet", "--faults", str(rules), "--seed", seed)
    )

    async def calls() -> list[bool]:
        out = []
        with anyio.fail_after(60):
            async with mcp.Client(_params(argv), mode="legacy") as client:
                for i in range(8):
                    try:
                        await client.call_tool("echo", {"message": f"m{i}"})
                        out.append(False)
                    except MCPError as exc:
                        assert exc.error.code == -32050
                        out.append(True)
        return out

    errors = anyio.run(calls)
    engine = open_engine(tmp / "rec.db")
    session = only_session(engine)
    assert session.facts["intercept"]["seed"] == int(seed)
    decided = [
        (m.raw, m.meta["intercept"]["action"])
        for m in messages(engine, session.id or 0)
        if "intercept" in (m.meta or {})
    ]
    return errors, decided


def test_seeded_probabilistic_rule_gives_the_same_sequence_twice(
    tmp_path: Path, everything_cmd: list[str]
) -> None:
    first = _seeded_run(tmp_path / "one", everything_cmd, "1234")
    second = _seeded_run(tmp_path / "two", everything_cmd, "1234")
    assert first == second
    assert 0 < sum(first[0]) < 8  # a coin, not a constant


@pytest.mark.anyio
async def test_unwatched_breakpoint_times_out_and_applies_the_default(
    tmp_path: Path, everything_cmd: list[str]
) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "rules:\n  - {name: hold-echo, match: {method: tools/call, name: echo}, action: pause}\n"
    )
    argv = warm_wrap_argv(
        tmp_path / "rec.db",
        *everything_cmd,
        extra=("--quiet", "--faults", str(rules), "--intercept", "--pause-timeout", "0.5"),
    )
    with anyio.fail_after(60):
        async with mcp.Client(_params(argv), mode="legacy") as client:
            started = time.monotonic()
            result = await client.call_tool("echo", {"message": "held"})
            assert result.content[0].text == "Echo: held"  # type: ignore[union-attr]
            assert time.monotonic() - started >= 0.45  # the request, then its response, were held
            assert (await client.call_tool("get-sum", {"a": 1, "b": 1})).content  # not held
    engine = open_engine(tmp_path / "rec.db")
    session = only_session(engine)
    held = [m for m in messages(engine, session.id or 0) if "intercept" in (m.meta or {})]
    assert [(m.direction, m.kind) for m in held] == [("c2s", "request"), ("s2c", "response")]
    for m in held:
        meta = m.meta["intercept"]
        assert (meta["action"], meta["by"], meta["delivered"], meta["rule"]) == (
            "pause",
            "timeout",
            True,
            "hold-echo",
        )
        assert meta["held_ms"] >= 450


@pytest.mark.skipif(shutil.which("node") is None and not NODE.exists(), reason="node is not installed")
def test_typescript_sdk_client_gets_injected_error_and_recovers_from_a_lost_response(
    tmp_path: Path, everything_cmd: list[str]
) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    taps = Taps(tmp_path)
    argv = taps.command(everything_cmd, "--faults", str(tmp_path / "rules.yaml"))
    calls = [
        {"tool": "echo", "args": {"message": "boom"}},
        {"tool": "get-sum", "args": {"a": 1, "b": 2}, "timeout": 1000},
        {"tool": "get-sum", "args": {"a": 2, "b": 40}},
        {"tool": "echo", "args": {"message": "swap"}},
    ]
    run = subprocess.run(
        [str(NODE), str(PEERS / "intercept_client.mjs"), json.dumps(calls), *argv],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    boom, lost, again, swap = (json.loads(x) for x in run.stdout.splitlines())
    assert boom["code"] == -32042 and "injected by rule boom" in boom["error"]
    assert lost["code"] == -32001 and "timed out" in lost["error"].lower()  # the SDK's RequestTimeout
    assert "42" in again["result"]["content"][0]["text"]
    assert swap["result"]["content"][0]["text"] == "swapped by the inspector"
    _, rows = taps.recorded()
    lost_row = _intercepted(rows, "lose")
    assert lost_row.raw in taps.server_sent.read_bytes()
    assert lost_row.raw not in taps.client_received.read_bytes()
    assert _intercepted(rows, "boom").raw not in taps.server_received.read_bytes()
