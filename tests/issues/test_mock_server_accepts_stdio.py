"""`mcp-inspect mock-server SESSION --stdio` was refused ("No such option: --stdio").

`serve --stdio` exists, so the same words in a host's config for a mock from a recording made the
command exit 2 at once, and the client only saw "Connection closed". Now `--stdio` is accepted
(stdio stays the default) and `--stdio` with `--http` is a clear error (exit 2, no traceback).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import mcp
import pytest

from tests.cli_in_process import Ran
from tests.sessions import load
from tests.warm_peers import inspector_argv


def _params(argv: list[str]) -> mcp.StdioServerParameters:
    return mcp.StdioServerParameters(command=argv[0], args=argv[1:])


def _mock_args(db: Path, *extra: str) -> list[str]:
    return ["mock-server", "1", "--db", str(db), *extra]


def _mock_argv(db: Path, *extra: str) -> list[str]:
    """`mcp-inspect mock-server 1 ...`, forked from the warm server (tests/warm_peers.py)."""
    return inspector_argv(*_mock_args(db, *extra))


@pytest.mark.anyio
async def test_mock_server_serves_an_sdk_client_with_stdio_option(db_path: Path) -> None:
    load(db_path, "demo", name="demo")  # session 1: the demo recorded through `wrap` (SDK client and server)
    with anyio.fail_after(60):
        async with mcp.Client(_params(_mock_argv(db_path, "--stdio")), mode="legacy") as client:
            answer = await client.call_tool("echo", {"text": "hello inspector"})
    assert answer.content[0].text == "hello inspector"  # type: ignore[union-attr]


def test_stdio_with_http_is_a_clear_error(db_path: Path, mcp_inspect: Callable[..., Ran]) -> None:
    out = mcp_inspect(*_mock_args(db_path, "--stdio", "--http", "127.0.0.1:0"))
    assert out.returncode == 2, out.stderr
    assert "either --stdio or --http" in out.stderr and "Traceback" not in out.stderr
