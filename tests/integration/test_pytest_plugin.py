"""The pytest plugin (inspector/share/pytest_plugin.py), run through pytester in this process (a new
pytest session each time, `runpytest_inprocess`), as a user's test suite would load it: the
`pytest11` entry point of the installed package. The peers it starts (the demo server, the
plugin's `mcp-inspect mock-server`, the TypeScript client) are still processes of their own; the
demo and the mock server are forked from a warm server (tests/warm_peers.py: the same command line's
behaviour without a Python start-up each), the plugin's `mcp-inspect` command line pointed at it.

Client side: an official Python SDK client (and the TypeScript SDK client) talk to `mcp_server`,
which records the demo server once and plays it afterwards; each record mode does what its name
says; a client that skips a recorded call, or makes one the recording lacks, fails. Server side:
`mcp_replay` replays the recording against the demo (passes) and against its changed variant
(fails with the changed paths and the old and new values).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from pathlib import Path

import _pytest.pytester
import mcp.client.stdio  # noqa: F401  (imported here, not first in a run: see _KeepLibraries)
import pytest
from _pytest.pytester import SysModulesSnapshot

from inspector.share import pytest_plugin
from tests.conftest import PEERS
from tests.warm_peers import demo_argv, inspector_argv

pytest_plugins = ["pytester"]

CLIENT_TEST = """
import os, sys
import anyio, mcp, pytest

REAL = os.environ.get("REAL_SERVER", sys.executable + " -m inspector.demo")

@pytest.mark.mcp_recording(server=REAL)
def test_weather(mcp_server):
    async def main():
        cmd = mcp_server.command
        params = mcp.StdioServerParameters(command=cmd[0], args=cmd[1:])
        with anyio.fail_after(60):
            async with mcp.Client(params, cache=None, mode="legacy") as client:
                if not os.environ.get("SKIP_WEATHER"):
                    result = await client.call_tool("weather", {"city": "Paris"})
                    assert result.structured_content["city"] == "Paris"
                if os.environ.get("EXTRA_CALL"):
                    result = await client.call_tool("echo", {"text": "extra"})
                    assert result.content[0].text == "extra"
    anyio.run(main)
"""

SERVER_TEST = """
import os, shlex, sys
import pytest

DEMO = shlex.split(os.environ.get("REAL_SERVER", sys.executable + " -m inspector.demo"))

@pytest.mark.mcp_recording(path="recordings/test_client/test_weather.mcp.jsonl")
def test_demo_unchanged(mcp_replay):
    mcp_replay(DEMO)

@pytest.mark.mcp_recording(path="recordings/test_client/test_weather.mcp.jsonl")
def test_demo_variant(mcp_replay):
    mcp_replay([*DEMO, "--variant"])
"""

TS_TEST = f"""
import json, os, subprocess, sys
import pytest

REAL = os.environ.get("REAL_SERVER", sys.executable + " -m inspector.demo")

@pytest.mark.mcp_recording(server=REAL)
def test_ts_client(mcp_server):
    out = subprocess.run(
        ["node", {str(PEERS / "serve_client.mjs")!r}, "stdio", *mcp_server.command, "--", "echo"],
        capture_output=True, text=True, timeout=60,
    )
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{{")]
    assert lines[0]["connected"]["name"] == "inspector-demo", out.stderr
    assert lines[1]["result"]["content"][0]["text"] == "hi", lines
"""

RECORDING = Path("recordings/test_client/test_weather.mcp.jsonl")
# The real server of the inner suites: the demo, forked from the warm server (`python -m inspector.demo`).
WARM_DEMO = shlex.join(demo_argv())


class _KeepLibraries(SysModulesSnapshot):
    """Pytester's snapshot of `sys.modules`, restored after each in-process run, keeping the modules
    that run imported but its test files (`test_*`, `conftest`): a library imported anew after its
    half was dropped breaks (SQLAlchemy's compiled parts: "'InternalTraversal' object is not
    callable"). Each inner run still imports its own test files afresh. A library that binds
    `sys.stderr` at import (the SDK's `stdio_client(errlog=sys.stderr)`) is imported by this module
    first: imported in a run, it would keep that run's captured stream, closed after it."""

    def __init__(self, preserve: Callable[[str], bool] | None = None) -> None:
        super().__init__(preserve=lambda name: not name.startswith(("test_", "conftest")))


@pytest.fixture(autouse=True)
def keep_libraries(monkeypatch: pytest.MonkeyPatch) -> None:
    """(autouse: in place before `pytester` takes its own snapshot.)"""
    monkeypatch.setattr(_pytest.pytester, "SysModulesSnapshot", _KeepLibraries)


@pytest.fixture(autouse=True)
def warm_mock_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin starts `python -m inspector mock-server ...`: here the same command forked from the
    warm server (tests/warm_peers.py), ~1 s of imports less each of the ~20 starts."""
    monkeypatch.setattr(pytest_plugin, "_cli", inspector_argv)


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(test_client=CLIENT_TEST)
    for name in ("SKIP_WEATHER", "EXTRA_CALL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REAL_SERVER", WARM_DEMO)
    return pytester


# This environment's heavy pytest plugins that have nothing to do with ours (schemathesis and
# hypothesis: their set-up at every start of a session; the suite starts pytest ~20 times here).
# Ours still loads through its entry point, as in a user's suite.
UNRELATED = ("-p", "no:schemathesis", "-p", "no:hypothesispytest")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", *UNRELATED, "-q", *args)


def _requests(path: Path) -> list[str]:
    import json

    found = []
    for line in path.read_text().splitlines():
        item = json.loads(line)
        if item.get("type") == "message" and item.get("direction") == "c2s" and item.get("kind") == "request":
            found.append(item["method"] + ("" if item["method"] != "tools/call" else " " + item["raw"]))
    return found


@pytest.mark.timeout(600)
def test_client_side_record_modes(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    recording = suite.path / RECORDING
    missing = _run(suite, "test_client.py")
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["*no MCP recording at*test_weather.mcp.jsonl*--mcp-record-mode once*"])

    _run(suite, "test_client.py", "--mcp-record-mode", "once").assert_outcomes(passed=1)
    assert recording.exists()
    first = recording.read_bytes()
    assert any("weather" in r for r in _requests(recording))

    # Played, not recorded: the real server is not even runnable now, and the file is untouched.
    monkeypatch.setenv("REAL_SERVER", "/nonexistent/server")
    _run(suite, "test_client.py").assert_outcomes(passed=1)
    _run(suite, "test_client.py", "--mcp-record-mode", "once").assert_outcomes(passed=1)
    assert recording.read_bytes() == first

    monkeypatch.setenv("SKIP_WEATHER", "1")
    skipped = _run(suite, "test_client.py")
    skipped.assert_outcomes(failed=1)
    skipped.stdout.fnmatch_lines(["*the client did not send 2 recorded request*", "*tools/call*weather*"])
    monkeypatch.delenv("SKIP_WEATHER")

    monkeypatch.setenv("EXTRA_CALL", "1")
    extra = _run(suite, "test_client.py")
    extra.assert_outcomes(failed=1)
    extra.stdout.fnmatch_lines(["*mcp-inspect mock: no recorded tools/call matches these params*"])
    # new_episodes: the recorded call is played, the new one goes to the real server and is added.
    monkeypatch.setenv("REAL_SERVER", WARM_DEMO)
    _run(suite, "test_client.py", "--mcp-record-mode", "new_episodes").assert_outcomes(passed=1)
    calls = [r for r in _requests(recording) if r.startswith("tools/call")]
    assert any("weather" in c for c in calls) and any("extra" in c for c in calls)
    monkeypatch.setenv("REAL_SERVER", "/nonexistent/server")
    _run(suite, "test_client.py").assert_outcomes(passed=1)  # both now play from the recording
    monkeypatch.delenv("EXTRA_CALL")

    # all: talks to the real server (which cannot start now): fails, and keeps the old recording.
    kept = recording.read_bytes()
    _run(suite, "test_client.py", "--mcp-record-mode", "all").assert_outcomes(failed=1)
    assert recording.read_bytes() == kept
    # rewrite: deletes the recording first.
    _run(suite, "test_client.py", "--mcp-record-mode", "rewrite").assert_outcomes(failed=1)
    assert not recording.exists()
    monkeypatch.setenv("REAL_SERVER", WARM_DEMO)
    _run(suite, "test_client.py", "--mcp-record-mode", "all").assert_outcomes(passed=1)
    calls = [r for r in _requests(recording) if r.startswith("tools/call")]
    assert len(calls) == 1 and "weather" in calls[0]  # recorded afresh: no extra call this time


@pytest.mark.timeout(300)
def test_server_side_replay_and_ts_client(suite: pytest.Pytester) -> None:
    _run(suite, "test_client.py", "--mcp-record-mode", "once").assert_outcomes(passed=1)
    suite.makepyfile(test_server=SERVER_TEST)
    replayed = _run(suite, "test_server.py")
    replayed.assert_outcomes(passed=1, failed=1)
    replayed.stdout.fnmatch_lines(
        ["*test_demo_variant*", "*behaviour changed against test_weather.mcp.jsonl*", "*tools/call*"]
    )
    # The changed path with its old and new values, in pytest's own output.
    text = replayed.stdout.str()
    assert "result.structuredContent.temperature_c: 16.1 => 17.1" in text
    assert "result.tools[name=fail]: removed" in text

    suite.makepyfile(test_ts=TS_TEST)
    _run(suite, "test_ts.py", "--mcp-record-mode", "once").assert_outcomes(passed=1)
    assert (suite.path / "recordings" / "test_ts" / "test_ts_client.mcp.jsonl").exists()
    os.environ["REAL_SERVER"] = "/nonexistent/server"
    try:
        _run(suite, "test_ts.py").assert_outcomes(passed=1)  # played from the recording
    finally:
        os.environ["REAL_SERVER"] = WARM_DEMO


def test_plugin_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(*UNRELATED, "--help")
    result.stdout.fnmatch_lines(["*--mcp-record-mode*"])
    markers = pytester.runpytest_inprocess(*UNRELATED, "--markers")
    markers.stdout.fnmatch_lines(["*mcp_recording(path=None, server=None, url=None*"])


HTTP_TEST = """
import os
import anyio, mcp, pytest

@pytest.mark.mcp_recording(url=os.environ["REAL_URL"])
def test_echo_over_http(mcp_server):
    async def main():
        with anyio.fail_after(60):
            async with mcp.Client(mcp_server.url, cache=None, mode="legacy") as client:
                result = await client.call_tool("echo", {"text": "over http"})
                assert result.content[0].text == "over http"
    anyio.run(main)
"""


@pytest.mark.timeout(300)
def test_http_client_side(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.http_peers import demo_http_server

    pytester.makepyfile(test_http=HTTP_TEST)
    with demo_http_server(warm=True) as url:
        monkeypatch.setenv("REAL_URL", url)
        _run(pytester, "test_http.py", "--mcp-record-mode", "once").assert_outcomes(passed=1)
    recording = pytester.path / "recordings" / "test_http" / "test_echo_over_http.mcp.jsonl"
    assert any("over http" in r for r in _requests(recording))
    # The real server is gone: the test passes from the recording alone.
    _run(pytester, "test_http.py").assert_outcomes(passed=1)
