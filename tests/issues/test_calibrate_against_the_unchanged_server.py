"""`replay --calibrate` against the unchanged reference server exited 1.

server-everything's `demo://resource/dynamic/text/1` says "created at 3:56:38 PM": the two
calibration runs fall in the same second, match each other, and both differ from the recording,
so calibration learned nothing and the replay failed. Strings that differ only in clock-like
parts (times, dates, UUIDs, numbers inside otherwise equal text) are now "volatile": listed in the
report, not failing unless `--strict-volatile`. A real change (a word) still fails.
Run over stdio, Streamable HTTP and legacy SSE (the issue's "done when"). `wrap`, `proxy` and the
clock server are processes forked from the warm server (tests/warm_peers.py); `replay` runs in this
process.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp.client.sse import sse_client

from inspector.store import list_sessions, open_engine
from tests.cli_in_process import Ran
from tests.http_peers import everything_http_server, inspector_proxy
from tests.shim_process import ended_named
from tests.warm_peers import peer_argv, warm_wrap_argv

DYNAMIC = "demo://resource/dynamic/text/1"
CLOCK = peer_argv("tests.peers.clock_server")  # an SDK server: forked warm, not 2 s of imports a start


async def _session(target: Any, mode: str = "auto") -> str:
    async with mcp.Client(target, cache=None, mode=mode) as client:
        await client.list_tools()
        await client.call_tool("echo", {"message": "calibrate"})
        read = await client.read_resource(DYNAMIC)
        return str(read.contents[0])


@pytest.fixture
def _replay(mcp_inspect: Callable[..., Ran]) -> Callable[..., tuple[int, str]]:
    """`mcp-inspect replay SESSION --db DB ARGS` (in-process): its exit status and stdout."""

    def replay(db: Path, session: int, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
        out = mcp_inspect("replay", str(session), "--db", str(db), *args, env=env, timeout=240)
        assert out.returncode in (0, 1), out.stderr
        return out.returncode, out.stdout

    return replay


def _next_second(recorded_at: int) -> None:
    """Poll the clock (deadline 30 s) until the second of the recording is over: a replay is never
    in the same second as its recording in real use, and the server's text carries the seconds."""
    deadline = time.monotonic() + 30
    while int(time.time()) == recorded_at and time.monotonic() < deadline:
        time.sleep(0.01)
    assert int(time.time()) != recorded_at


def _record_http(db: Path, url: str, mode: str) -> int:
    with inspector_proxy(url, db, warm=True) as (proxied, _proc):
        target = proxied if mode == "streamableHttp" else sse_client(proxied)
        text = anyio.run(lambda: _session(target))
    assert "created" in text.lower() or "dynamic" in text.lower(), text
    engine = open_engine(db)
    main = max(list_sessions(engine), key=lambda s: s.message_count)
    assert main.id is not None
    return main.id


@pytest.mark.parametrize("mode", ["stdio", "streamableHttp", "sse"])
def test_calibrated_replay_of_the_unchanged_server_passes(
    db_path: Path, everything_cmd: list[str], mode: str, _replay: Callable[..., tuple[int, str]]
) -> None:
    if mode == "stdio":
        argv = warm_wrap_argv(db_path, *everything_cmd, extra=("--quiet", "--name", "rec"))
        anyio.run(lambda: _session(mcp.StdioServerParameters(command=argv[0], args=argv[1:]), "legacy"))
        original = ended_named(db_path, "rec").id  # see tests/shim_process.py
        assert original is not None
        _next_second(int(time.time()))
        code, out = _replay(db_path, original, "--calibrate", "--", *everything_cmd)
    else:
        with everything_http_server(mode) as url:
            original = _record_http(db_path, url, mode)
            _next_second(int(time.time()))
            code, out = _replay(db_path, original, "--calibrate", "--url", url)
    assert code == 0, out
    assert "behaviour unchanged" in out


def test_a_changed_word_still_fails_and_a_clock_is_volatile(
    db_path: Path, _replay: Callable[..., tuple[int, str]]
) -> None:
    argv = warm_wrap_argv(db_path, *CLOCK, extra=("--quiet", "--name", "clock"))

    async def record() -> None:
        async with mcp.Client(
            mcp.StdioServerParameters(command=argv[0], args=argv[1:]), cache=None, mode="legacy"
        ) as client:
            await client.call_tool("greet", {"name": "Ada"})

    anyio.run(record)
    original = ended_named(db_path, "clock").id
    assert original is not None
    same, out = _replay(db_path, original, "--calibrate", "--json", "--", *CLOCK)
    report = json.loads(out)
    assert same == 0, out
    assert report["counts"]["volatile"] == 1  # the clock moved (nanoseconds always do): shown
    strict, _ = _replay(db_path, original, "--strict-volatile", "--", *CLOCK)
    assert strict == 1
    changed, out = _replay(db_path, original, "--calibrate", "--", *CLOCK, env={"GREETING": "Goodbye"})
    assert changed == 1, out
    assert "Goodbye" in out and "behaviour changed" in out
