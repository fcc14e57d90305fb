"""A mock server from a recording in which the server exited before answering kept the connection open.

Recorded: a real SDK server (tests/peers/exiting_server.py) whose `crash` tool exits the process
with status 3 without answering. Played by `mock-server` over stdio, the same call got no answer
and the process stayed up: the client waited for its own timeout. Over HTTP the request's stream
closed, but the MCP session went on as if the server were alive. Now the recorded end is played at
its point: over stdio stdout is closed and the mock exits with the recorded status (3); over HTTP
the event stream closes without an answer and the session ends (its id is then unknown). The mock's
own session records that end (exit status, reason).
"""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp
import pytest

from inspector.store import list_sessions, open_engine
from tests.http_peers import LineProcess
from tests.sessions import load
from tests.shim_process import ShimProcess, ended_session, messages
from tests.warm_peers import inspector_argv


def _params(argv: list[str]) -> mcp.StdioServerParameters:
    return mcp.StdioServerParameters(command=argv[0], args=argv[1:])


def _mock_args(db: Path, *extra: str) -> list[str]:
    return ["mock-server", "1", "--db", str(db), *extra]


def _mock_argv(db: Path, *extra: str) -> list[str]:
    """`mcp-inspect mock-server 1 ...`, forked from the warm server (tests/warm_peers.py)."""
    return inspector_argv(*_mock_args(db, *extra))


def _record(db: Path) -> None:
    """Session 1: echo is answered, then crash exits the real server with status 3. Recorded through
    `wrap` (an SDK client in legacy mode, tests/peers/exiting_server.py) and checked in as
    tests/data/sessions/echo_then_crash.jsonl."""
    load(db, "echo_then_crash")
    engine = open_engine(db)
    original = ended_session(engine)
    engine.dispose()
    assert original.exit_status == 3 and original.end_reason == "server-exit"


def _mock_session(db: Path):  # type: ignore[no-untyped-def]
    engine = open_engine(db, create=False)
    mocks = [s for s in list_sessions(engine) if s.kind == "mock-server"]
    engine.dispose()
    assert len(mocks) == 1, mocks
    return mocks[0]


@pytest.mark.anyio
async def test_stdio_mock_closes_and_exits_with_the_recorded_status(db_path: Path) -> None:
    _record(db_path)
    # An SDK client learns at once that the server is gone (not after its own timeout).
    with anyio.fail_after(30):
        async with mcp.Client(_params(_mock_argv(db_path, "--stdio")), mode="legacy") as client:
            answer = await client.call_tool("echo", {"text": "before"})
            assert answer.content[0].text == "before"  # type: ignore[union-attr]
            with pytest.raises(mcp.MCPError, match="[Cc]onnection closed"):
                await client.call_tool("crash", {"status": 3})
    mock = _mock_session(db_path)
    assert mock.status == "ended" and mock.exit_status == 3
    assert "exited with status 3" in (mock.end_reason or "")


def test_stdio_mock_process_exit_status_is_the_recorded_one(db_path: Path) -> None:
    _record(db_path)
    engine = open_engine(db_path, create=False)
    sent = [m.raw for m in messages(engine, 1) if m.direction == "c2s" and m.channel == "stdin"]
    engine.dispose()
    mock = ShimProcess(_mock_argv(db_path))
    for raw in sent:  # the recorded client's bytes, as they were
        mock.send(raw)
    lines = []
    while line := mock.read_line(timeout=30):  # b"" at EOF: stdout closed by the mock
        lines.append(line)
    assert mock.wait(timeout=30) == 3, mock.stderr_bytes
    assert len(lines) == 3  # initialize, echo and tools/list answered; crash not
    assert b"Traceback" not in mock.stderr_bytes


@pytest.mark.anyio
async def test_http_mock_closes_the_stream_and_ends_the_session(db_path: Path) -> None:
    _record(db_path)
    server = LineProcess(_mock_argv(db_path, "--http", "127.0.0.1:0"))
    try:
        url = server.wait_for(r"mock server at (\S+);").group(1)
        with anyio.fail_after(30):
            async with mcp.Client(url, mode="legacy") as client:
                await client.call_tool("echo", {"text": "before"})
                with pytest.raises(mcp.MCPError):
                    await client.call_tool("crash", {"status": 3})
            # The session ended with the recorded status while the server still runs (the end is
            # written by the mock's recorder thread: wait for it, up to the test's deadline).
            mock = _mock_session(db_path)
            while mock.status != "ended":
                await anyio.sleep(0.1)
                mock = _mock_session(db_path)
            assert mock.status == "ended" and mock.exit_status == 3
            assert "exited with status 3" in (mock.end_reason or "")
    finally:
        server.stop()
    assert "Traceback" not in "".join(server.output)
