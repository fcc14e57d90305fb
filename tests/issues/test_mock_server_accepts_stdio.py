"""`mcp-inspect mock-server SESSION --stdio` was refused ("No such option: --stdio").

`serve --stdio` exists, so the same words in a host's config for a mock from a recording made the
command exit 2 at once, and the client only saw "Connection closed". Now `--stdio` is accepted
(stdio stays the default) and `--stdio` with `--http` is a clear error (exit 2, no traceback).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import mcp
import pytest

from tests.conftest import PEERS, wrap_argv


def _params(argv: list[str]) -> mcp.StdioServerParameters:
    return mcp.StdioServerParameters(command=argv[0], args=argv[1:])


def _mock_argv(db: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "inspector", "mock-server", "1", "--db", str(db), *extra]


async def _record(db: Path) -> None:
    """Session 1: a real SDK client calls a real SDK server's tool through wrap."""
    argv = wrap_argv(db, sys.executable, str(PEERS / "exiting_server.py"), extra=("--quiet",))
    with anyio.fail_after(60):
        async with mcp.Client(_params(argv), mode="legacy") as client:
            await client.call_tool("echo", {"text": "recorded"})


@pytest.mark.anyio
async def test_mock_server_serves_an_sdk_client_with_stdio_option(db_path: Path) -> None:
    await _record(db_path)
    with anyio.fail_after(60):
        async with mcp.Client(_params(_mock_argv(db_path, "--stdio")), mode="legacy") as client:
            answer = await client.call_tool("echo", {"text": "recorded"})
    assert answer.content[0].text == "recorded"  # type: ignore[union-attr]


def test_stdio_with_http_is_a_clear_error(db_path: Path) -> None:
    out = subprocess.run(
        _mock_argv(db_path, "--stdio", "--http", "127.0.0.1:0"), capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2, out.stderr
    assert "either --stdio or --http" in out.stderr and "Traceback" not in out.stderr
