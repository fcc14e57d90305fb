"""Why a stdio server broke (issue 37, item 3), end to end: a real misbehaving stdio server
(tests/peers/noisy_stdio_server.py: a banner, a log line, pretty-printed JSON, then a traceback
in the middle of a tools/call) wrapped by `wrap` and driven by the official Python SDK client.
`show` labels each of those lines with its class (and, with --json, what clients do and the fix);
`lint` gives a rule per class and names the request the server crashed on."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import mcp
import orjson
import pytest
from mcp.shared.exceptions import MCPError

from tests.cli_in_process import run
from tests.conftest import PEERS
from tests.lint_recordings import Stdio, request, store
from tests.shim_process import ended_named
from tests.warm_peers import warm_wrap_argv


async def _drive(db: Path) -> None:
    argv = warm_wrap_argv(db, sys.executable, str(PEERS / "noisy_stdio_server.py"), extra=("--name", "noisy"))
    params = mcp.StdioServerParameters(command=argv[0], args=argv[1:])
    with anyio.fail_after(60):
        async with mcp.Client(params, cache=None, mode="legacy") as client:
            tools = await client.list_tools()
            assert [t.name for t in tools.tools] == ["explode"]
            with pytest.raises(MCPError):  # the server died: the connection closed unanswered
                await client.call_tool("explode", {})


def test_show_and_lint_name_each_class_and_the_crashed_request(tmp_path: Path) -> None:
    db = tmp_path / "noisy.db"
    anyio.run(_drive, db)
    ended_named(db, "noisy")  # recorded to its end (see tests/shim_process.py)

    shown = run("show", "noisy", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert any("== noisy weather server" in ln and "[banner]" in ln for ln in lines), shown.stdout
    assert any("2025-06-01 12:00:00,001" in ln and "[log line]" in ln for ln in lines), shown.stdout
    assert sum("[pretty JSON]" in ln for ln in lines) == 8, shown.stdout  # the notification's 8 lines
    assert any("tools/call explode" in ln and "[crashed]" in ln for ln in lines), shown.stdout
    # (the SDK client numbers initialize 1, tools/list 2, tools/call 3)
    crashed = (
        "the server crashed while handling request id 3 (tools/call explode): ValueError: cannot explode"
    )
    assert crashed in shown.stdout

    as_json = run("show", "noisy", "--db", str(db), "--json")
    notes = [n for row in map(orjson.loads, as_json.stdout.splitlines()) for n in row.get("stdio", [])]
    by_class = {n["class"]: n for n in notes}
    assert set(by_class) == {"banner", "log-line", "pretty-json", "server-crashed"}
    assert "write logs to stderr" in by_class["log-line"]["fix"]
    assert "print JSON on one line" in by_class["pretty-json"]["fix"]
    assert "Python SDK" in by_class["banner"]["clients"] and "TypeScript SDK" in by_class["banner"]["clients"]

    linted = run("lint", "noisy", "--db", str(db), "--json")
    assert linted.returncode == 1  # errors
    findings = orjson.loads(linted.stdout)["findings"]
    rules = [f["rule"] for f in findings]
    assert {"stdout-banner", "stdout-log-line", "stdout-pretty-json", "server-crashed"} <= set(rules), rules
    assert rules.count("stdout-pretty-json") == 1  # one message, one finding
    assert "malformed-json" not in rules  # each of those lines is told by its class
    crash = next(f for f in findings if f["rule"] == "server-crashed")
    assert crash["explanation"].startswith(crashed)


def test_a_hostile_crash_line_is_shown_escaped(tmp_path: Path) -> None:
    """The traceback's last line is the server's text: `show` prints its control characters as escapes."""
    s = Stdio().handshake()
    s.send("c2s", request(1, "ping"))
    stderr = (
        b'Traceback (most recent call last):\n  File "s.py", line 1\nValueError: \x1b]0;pwned\x07\x1b[2J\n'
    )
    s.rows += [dict(r) for r in s.builder.feed(s.t + 1, "s2c", "stderr", stderr)]
    db = tmp_path / "hostile.db"
    store(db, s, name="hostile")
    shown = run("show", "hostile", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    assert (
        "the server crashed while handling request id 1 (ping): ValueError: \\x1b]0;pwned\\x07"
        in shown.stdout
    )
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
