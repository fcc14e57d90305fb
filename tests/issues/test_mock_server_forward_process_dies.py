"""`mock-server --unmatched forward --forward-cmd CMD` broke when the forward process died.

When the real server exited before answering (here: it prints a line on stderr and exits 3), the
mock server's handler raised an unhandled ExceptionGroup: over HTTP a traceback in the logs and a
broken chunked stream for the client (the SDK client then waited until its timeout), over stdio
the mock server itself died. Now the client gets a JSON-RPC error naming the forward command, the
exit status and the end of its stderr; the mock keeps serving (played requests still answered,
the next unmatched request tries a new forward process); everything is recorded: the error
answer in the mock session, the forward process's stderr and exit status in its own session.

The cassette is recorded once for the file (`cassette`) and copied into each test's store; the mock
server, `wrap` and its SDK server are processes forked from the warm server (tests/warm_peers.py).
"""

from __future__ import annotations

import shlex
import sqlite3
import sys
from pathlib import Path

import anyio
import mcp
import pytest

from inspector.store import list_sessions, open_engine
from tests.http_peers import LineProcess
from tests.shim_process import ended_named, messages
from tests.warm_peers import inspector_argv, peer_argv, warm_wrap_argv

DYING = [sys.executable, "-c", "import sys; print('forward boom', file=sys.stderr); sys.exit(3)"]


def _mock_argv(db: Path, *extra: str) -> list[str]:
    return inspector_argv(
        "mock-server", "cassette", "--db", str(db),
        "--unmatched", "forward", "--forward-cmd", shlex.join(DYING), *extra,
    )  # fmt: skip


def _params(argv: list[str]) -> mcp.StdioServerParameters:
    return mcp.StdioServerParameters(command=argv[0], args=argv[1:])


async def _record(db: Path) -> None:
    """The cassette: a real SDK client lists the tools of a real SDK server through wrap."""
    argv = warm_wrap_argv(db, *peer_argv("tests.peers.argv_server"), extra=("--quiet", "--name", "cassette"))
    with anyio.fail_after(60):
        async with mcp.Client(_params(argv), mode="legacy") as client:
            await client.list_tools()


@pytest.fixture(scope="module")
def cassette(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The recorded cassette, once for the file (each test gets a copy: `_copy`)."""
    db = tmp_path_factory.mktemp("cassette") / "rec.db"
    anyio.run(_record, db)
    ended_named(db, "cassette")  # recorded to its end (see tests/shim_process.py) before it is copied
    return db


def _copy(cassette: Path, db: Path) -> None:
    """The cassette into `db` (SQLite's backup: a consistent copy)."""
    with sqlite3.connect(cassette) as source, sqlite3.connect(db) as target:
        source.backup(target)


async def _drive(target: str | mcp.StdioServerParameters) -> list[mcp.MCPError]:
    """Played, forwarded (dies), played again, forwarded again: the errors of the forwarded calls."""
    errors = []
    with anyio.fail_after(60):
        async with mcp.Client(target, mode="legacy") as client:
            assert [t.name for t in (await client.list_tools()).tools] == ["argv"]
            for _ in range(2):
                with pytest.raises(mcp.MCPError) as caught:
                    await client.call_tool("argv", {})
                errors.append(caught.value)
                assert [t.name for t in (await client.list_tools()).tools] == ["argv"]  # still serving
    return errors


def _check(db: Path, errors: list[mcp.MCPError]) -> None:
    for error in errors:
        assert error.error.code == -32051
        text = error.error.message
        assert "--forward-cmd" in text and "sys.exit(3)" in text, text
        assert "exited with status 3" in text and "forward boom" in text, text
        assert error.error.data["exit_status"] == 3 and error.error.data["stderr"] == "forward boom"
    engine = open_engine(db, create=False)
    sessions = list_sessions(engine)
    (mock,) = [s for s in sessions if s.kind == "mock-server"]
    forwards = [s for s in sessions if s.kind == "mock-client" and s.parent_id == mock.id]
    assert len(forwards) == 2  # one new forward process per unmatched request
    for forward in forwards:
        assert forward.status == "ended" and forward.exit_status == 3
        assert "forward boom" in (forward.end_reason or "")
        stderr = [m.raw for m in messages(engine, forward.id) if m.channel == "stderr"]
        assert b"forward boom" in b"".join(stderr)
    answers = [m.raw for m in messages(engine, mock.id) if m.direction == "s2c"]
    assert sum(b"-32051" in raw for raw in answers) == 2
    engine.dispose()


@pytest.mark.anyio
async def test_http_mock_answers_a_clear_error_when_the_forward_process_dies(
    db_path: Path, cassette: Path
) -> None:
    _copy(cassette, db_path)
    server = LineProcess(_mock_argv(db_path, "--http", "127.0.0.1:0"))
    try:
        url = server.wait_for(r"mock server at (\S+);").group(1)
        errors = await _drive(url)
    finally:
        server.stop()
    _check(db_path, errors)
    while server.lines.get(timeout=10):  # read its stderr to the end
        pass
    log = "".join(server.output)
    assert "Traceback" not in log and "ExceptionGroup" not in log, log


@pytest.mark.anyio
async def test_stdio_mock_answers_a_clear_error_when_the_forward_process_dies(
    db_path: Path, cassette: Path
) -> None:
    _copy(cassette, db_path)
    errors = await _drive(_params(_mock_argv(db_path)))
    _check(db_path, errors)
