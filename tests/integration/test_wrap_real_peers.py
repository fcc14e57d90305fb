"""Real MCP peers through `mcp-inspect wrap`: the SDK client and demo server, and server-everything.

Byte faithfulness is proven with `tee` on both sides of the shim: what the
client wrote, what the server read, what the server wrote and what the
client read are captured outside the inspector and compared with the
recorded rows. The wrap and the demo are processes forked from a warm server (tests/warm_peers.py):
the same pipes, without a Python start-up each.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import anyio
import mcp
import pytest

from inspector.demo.driver import BOOKING, DEMO_ROOT, SAMPLING_REPLY, drive_demo
from inspector.store import Message, Session, open_engine
from tests.everything_client import ELICITED_NAME, ROOT, SAMPLED, everything_session
from tests.shim_process import ended_session, messages
from tests.warm_peers import demo_argv, warm_wrap_argv


class Taps:
    """tee files on both sides of the shim."""

    def __init__(self, tmp: Path) -> None:
        self.client_sent = tmp / "client_sent.bin"
        self.client_received = tmp / "client_received.bin"
        self.server_received = tmp / "server_received.bin"
        self.server_sent = tmp / "server_sent.bin"

    def client_params(self, db: Path, server: list[str]) -> mcp.StdioServerParameters:
        inner = f"tee {self.server_received} | {shlex.join(server)} | tee {self.server_sent}"
        shim = shlex.join(warm_wrap_argv(db, "sh", "-c", inner, extra=("--quiet",)))
        outer = f"tee {self.client_sent} | {shim} | tee {self.client_received}"
        return mcp.StdioServerParameters(command="sh", args=["-c", outer])

    def assert_faithful(self, rows: list[Message]) -> None:
        c2s = b"".join(m.raw for m in rows if m.direction == "c2s" and m.channel == "stdin")
        s2c = b"".join(m.raw for m in rows if m.direction == "s2c" and m.channel == "stdout")
        assert c2s, "nothing recorded client-to-server"
        assert c2s == self.client_sent.read_bytes() == self.server_received.read_bytes()
        assert s2c == self.server_sent.read_bytes() == self.client_received.read_bytes()


def _recorded(db: Path) -> tuple[Session, list[Message]]:
    engine = open_engine(db)
    session = ended_session(engine)
    assert session.id is not None
    return session, messages(engine, session.id)


def _pairs(rows: list[Message]) -> dict[int, Message]:
    """request seq -> its response."""
    return {m.answers_seq: m for m in rows if m.answers_seq is not None}


def _methods(rows: list[Message], direction: str, kind: str = "request") -> set[str]:
    return {m.method for m in rows if m.direction == direction and m.kind == kind and m.method}


@pytest.mark.anyio
async def test_sdk_client_and_demo_server_legacy(db_path: Path, tmp_path: Path) -> None:
    taps = Taps(tmp_path)
    demo = demo_argv()
    with anyio.fail_after(90):
        report = await drive_demo(taps.client_params(db_path, demo), mode="legacy")
    assert report.tool_results["echo"].text == "hello inspector"
    assert SAMPLING_REPLY in report.tool_results["ask_llm"].text
    session, rows = _recorded(db_path)
    taps.assert_faithful(rows)
    assert session.status == "ended" and session.exit_status == 0
    assert session.era == "handshake" and session.protocol_version == "2025-11-25"
    assert session.client_info["name"] == "inspector-demo-driver"
    assert session.server_info["name"] == "inspector-demo"
    assert "tools" in session.server_capabilities and "sampling" in session.client_capabilities
    assert {
        "initialize",
        "tools/list",
        "tools/call",
        "resources/read",
        "resources/templates/list",
        "prompts/get",
        "completion/complete",
    } <= _methods(rows, "c2s")
    assert {"sampling/createMessage", "elicitation/create", "roots/list"} <= _methods(rows, "s2c")
    pairs = _pairs(rows)
    requests = [m for m in rows if m.kind == "request"]
    assert requests and all(r.seq in pairs for r in requests), "every request was answered and paired"
    # The client's answers to the server's requests are paired in the other direction.
    sampling = next(m for m in requests if m.method == "sampling/createMessage")
    answer = pairs[sampling.seq]
    assert answer.direction == "c2s" and SAMPLING_REPLY.encode() in answer.raw
    elicit = next(m for m in requests if m.method == "elicitation/create")
    assert str(BOOKING["name"]).encode() in pairs[elicit.seq].raw
    roots = next(m for m in requests if m.method == "roots/list")
    assert DEMO_ROOT.encode() in pairs[roots.seq].raw
    progress = [m for m in rows if m.method == "notifications/progress"]
    assert progress and all(m.meta and m.meta.get("related_seq") for m in progress)
    assert session.facts["unanswered"] == []


@pytest.mark.anyio
async def test_sdk_client_and_demo_server_stateless_2026(db_path: Path, tmp_path: Path) -> None:
    taps = Taps(tmp_path)
    demo = demo_argv()
    with anyio.fail_after(90):
        report = await drive_demo(taps.client_params(db_path, demo), mode="auto")
    assert report.protocol_version == "2026-07-28"
    session, rows = _recorded(db_path)
    taps.assert_faithful(rows)
    assert session.era == "stateless" and session.protocol_version == "2026-07-28"
    assert session.facts["supported_versions"] == ["2026-07-28"]
    assert session.server_info["name"] == "inspector-demo"
    c2s = _methods(rows, "c2s")
    assert "server/discover" in c2s and "initialize" not in c2s
    first = rows[0]
    assert first.method == "server/discover" and _pairs(rows)[first.seq].kind == "response"
    # Sampling travels inside an input_required result, then the client retries with the answers.
    calls = [m for m in rows if m.kind == "response" and b'"inputRequests"' in m.raw]
    assert calls, "expected input_required results for sampling/elicitation/roots"
    assert any(SAMPLING_REPLY.encode() in m.raw for m in rows if m.direction == "c2s")


@pytest.mark.anyio
async def test_sdk_client_and_server_everything_discover_fallback(
    db_path: Path, tmp_path: Path, everything_cmd: list[str]
) -> None:
    taps = Taps(tmp_path)
    with anyio.fail_after(120):
        out = await everything_session(taps.client_params(db_path, everything_cmd), "through the shim")
    assert "through the shim" in out["echo"] and "42" in out["sum"]
    assert SAMPLED in out["sampling"]
    assert ROOT in out["roots"]
    assert ELICITED_NAME in out["elicitation"]
    session, rows = _recorded(db_path)
    taps.assert_faithful(rows)
    # SDK 2.x probes with server/discover; server-everything refuses it and the client falls back.
    assert rows[0].method == "server/discover"
    refusal = _pairs(rows)[rows[0].seq]
    assert refusal.kind == "error" and refusal.error_code == -32601
    assert "initialize" in _methods(rows, "c2s")
    assert session.era == "handshake" and session.facts["discover_fallback"] is True
    assert session.protocol_version == out["version"]
    assert session.server_info and "everything" in session.server_info["name"]
    assert {"sampling/createMessage", "roots/list", "elicitation/create"} <= _methods(rows, "s2c")
    stderr = [m for m in rows if m.channel == "stderr"]
    assert all(m.kind == "log" for m in stderr)
