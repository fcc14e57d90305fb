"""`mcp-inspect mock-server`: the official SDK client against a recording played back (stdio and HTTP).

The demo is recorded through `wrap` once for the file (`recorded_demo`: the recording and what the
SDK client saw), copied into each test's own store; where only the recording is needed, the
checked-in demo session (tests/data/sessions/demo.jsonl, recorded so) is imported. The mock
server, `wrap` and the demo are processes forked from the warm server (tests/warm_peers.py): the SDK
client's stdio or HTTP peer, without Python's start-up and the libraries' imports each time.
"""

from __future__ import annotations

import shlex
import sqlite3
from pathlib import Path

import anyio
import mcp
import pytest

from inspector.demo.driver import SAMPLING_REPLY, drive_demo
from inspector.demo.report import DemoReport
from inspector.store import list_sessions, open_engine
from tests.cli_in_process import run
from tests.http_peers import LineProcess
from tests.sessions import load
from tests.shim_process import ended_count, ended_named, messages
from tests.warm_peers import demo_argv, inspector_argv, warm_wrap_argv

DEMO = demo_argv()


def _mock_argv(db: Path, ref: str, *extra: str) -> list[str]:
    return inspector_argv("mock-server", ref, "--db", str(db), *extra)


def _params(argv: list[str]) -> mcp.StdioServerParameters:
    return mcp.StdioServerParameters(command=argv[0], args=argv[1:])


async def _record_demo(db: Path, name: str = "demo-cassette") -> DemoReport:
    argv = warm_wrap_argv(db, *DEMO, extra=("--quiet", "--name", name))
    before = ended_count(db, name)
    with anyio.fail_after(90):
        report = await drive_demo(_params(argv), mode="legacy")
    await anyio.to_thread.run_sync(
        lambda: ended_named(db, name, count=before + 1)
    )  # see tests/shim_process.py
    return report


@pytest.fixture(scope="module")
def recorded_demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, DemoReport]:
    """The demo recorded through `wrap` as `demo-cassette`, and the report of the client that drove it."""
    db = tmp_path_factory.mktemp("mock-demo") / "rec.db"
    return db, anyio.run(_record_demo, db)


def _copy_of(recorded: tuple[Path, DemoReport], db: Path) -> DemoReport:
    """The recording into `db` (SQLite's backup: a consistent copy); the original client's report."""
    with sqlite3.connect(recorded[0]) as source, sqlite3.connect(db) as target:
        source.backup(target)
    return recorded[1]


def _same_behaviour(original: DemoReport, mocked: DemoReport) -> None:
    assert mocked.tool_results == original.tool_results
    assert mocked.resource_texts == original.resource_texts
    assert mocked.resource_errors == original.resource_errors
    assert mocked.prompt_messages == original.prompt_messages
    assert mocked.completions == original.completions
    assert [(p.tool, p.progress) for p in mocked.progress] == [
        (p.tool, p.progress) for p in original.progress
    ]
    assert [r.method for r in mocked.server_requests] == [r.method for r in original.server_requests]
    assert SAMPLING_REPLY in mocked.tool_results["ask_llm"].text


@pytest.mark.anyio
async def test_sdk_client_gets_the_recorded_results_over_stdio(
    db_path: Path, recorded_demo: tuple[Path, DemoReport]
) -> None:
    original = _copy_of(recorded_demo, db_path)
    with anyio.fail_after(90):
        mocked = await drive_demo(_params(_mock_argv(db_path, "demo-cassette")), mode="legacy")
    _same_behaviour(original, mocked)
    engine = open_engine(db_path)
    mock = next(s for s in list_sessions(engine) if s.kind == "mock-server")
    assert mock.parent_id is not None and mock.message_count > 40
    rows = messages(engine, mock.id)
    sampling = [m for m in rows if m.method == "sampling/createMessage" and m.kind == "request"]
    assert sampling and sampling[0].direction == "s2c"
    answer = next(m for m in rows if m.answers_seq == sampling[0].seq)
    assert answer.direction == "c2s" and SAMPLING_REPLY.encode() in answer.raw


@pytest.mark.anyio
async def test_sdk_client_gets_the_recorded_results_over_http(
    db_path: Path, recorded_demo: tuple[Path, DemoReport]
) -> None:
    original = _copy_of(recorded_demo, db_path)
    server = LineProcess(_mock_argv(db_path, "demo-cassette", "--http", "127.0.0.1:0"))
    try:
        url = server.wait_for(r"mock server at (\S+);").group(1)
        with anyio.fail_after(90):
            mocked = await drive_demo(url, mode="legacy")
    finally:
        server.stop()
    _same_behaviour(original, mocked)


@pytest.mark.anyio
async def test_unmatched_request_gets_the_documented_error(db_path: Path) -> None:
    load(db_path, "demo", name="demo-cassette")
    with anyio.fail_after(60):
        async with mcp.Client(_params(_mock_argv(db_path, "demo-cassette")), mode="legacy") as client:
            with pytest.raises(mcp.MCPError) as caught:
                await client.call_tool("echo", {"text": "never recorded"})
            # The connection keeps working after a miss.
            again = await client.call_tool("echo", {"text": "hello inspector"})
    error = caught.value.error
    assert error.code == -32050
    assert "nearest recorded params" in error.message and "params.arguments.text" in error.message
    assert error.data["differences"] == ["params.arguments.text"]
    assert error.data["nearestParams"]["arguments"] == {"text": "hello inspector"}
    assert again.content[0].text == "hello inspector"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_record_mode_once_records_then_plays(db_path: Path) -> None:
    forward = shlex.join(DEMO)
    first_argv = _mock_argv(db_path, "fresh-cassette", "--record-mode", "once", "--forward-cmd", forward)
    with anyio.fail_after(90):
        recorded = await drive_demo(_params(first_argv), mode="legacy")
    # Second run: the cassette exists, so it is played; a broken forward command proves nothing is forwarded.
    second_argv = _mock_argv(
        db_path, "fresh-cassette", "--record-mode", "once", "--forward-cmd", "/nonexistent/server"
    )
    with anyio.fail_after(90):
        played = await drive_demo(_params(second_argv), mode="legacy")
    _same_behaviour(recorded, played)
    kinds = [s.kind for s in list_sessions(open_engine(db_path))]
    assert kinds.count("mock-server") == 2 and kinds.count("mock-client") == 1  # one forward connection


@pytest.mark.anyio
async def test_record_mode_new_forwards_what_does_not_match(db_path: Path) -> None:
    load(db_path, "demo", name="demo-cassette")
    argv = _mock_argv(db_path, "demo-cassette", "--record-mode", "new", "--forward-cmd", shlex.join(DEMO))
    with anyio.fail_after(60):
        async with mcp.Client(_params(argv), mode="legacy") as client:
            played = await client.call_tool("echo", {"text": "hello inspector"})
            forwarded = await client.call_tool("echo", {"text": "only the real server knows"})
    assert played.content[0].text == "hello inspector"  # type: ignore[union-attr]
    assert forwarded.content[0].text == "only the real server knows"  # type: ignore[union-attr]


def test_bad_options_are_clear_errors(db_path: Path) -> None:
    out = run("mock-server", "nothing-here", "--db", str(db_path))
    assert out.returncode == 2 and "not a session id" in out.stderr and "Traceback" not in out.stderr
    out = run("mock-server", "x", "--db", str(db_path), "--record-mode", "new")
    assert out.returncode == 2 and "needs a real server" in out.stderr
