"""Regression (issue 33, finding 1): the terminal printed recorded bytes raw.

A server whose `serverInfo.name`, tool names, stderr lines or notification methods held
`ESC ]52;c;...ESC \\` (a clipboard write), `ESC [2J` (clear the screen), `ESC ]0;...BEL` (the
window title) or a C1 CSI (U+009B) had them executed by the user's terminal through `show`,
`search`, `lint`, `diff`, `versions`, `intercept list`, `sessions` and `import` (Rich strips BEL
but keeps ESC); a session file someone sends does the same. Every recorded or imported string
now reaches the terminal through `inspector.terminal_text.visible`: the escapes are shown, not
run. And a recorded value inside Rich markup is escaped: `intercept forward` on a tool named
`x[/]` ended in a `MarkupError` traceback.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from inspector.cli import app
from inspector.control.server import ControlHandle, start_control
from inspector.intercept import Interceptor, Rule, RuleSet, Seen
from tests.conftest import PEERS

HOSTILE = "evil\x1b]52;c;aGk=\x1b\\ \x1b[2J \x1b]0;pwned\x07 \x9b31m \x7f"
SHOWN = "evil\\x1b]52;c;aGk=\\x1b\\ \\x1b[2J \\x1b]0;pwned\\x07 \\x9b31m \\x7f"  # what the user sees
RAW = ("\x1b", "\x07", "\x9b", "\x7f")
SERVER = [sys.executable, str(PEERS / "hostile_names_server.py")]
T0 = 1_700_000_000_000_000_000


def _message(seq: int, direction: str, channel: str, kind: str, body: object, **extra: object) -> dict:
    raw = body if isinstance(body, str) else json.dumps(body) + "\n"
    line = {"type": "message", "session": 1, "seq": seq, "ts_ns": T0 + seq * 1000, "direction": direction}
    line |= {"channel": channel, "raw": raw, "size": len(raw.encode()), "parse_status": "ok", "kind": kind}
    return line | extra


def _session_file(path: Path, answer: str) -> Path:
    """A session file as someone could send it: every name in it is hostile."""
    info = {"name": HOSTILE, "version": "1"}
    init = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": info}
    tool = {"name": HOSTILE, "inputSchema": {"type": "object"}}
    call = {"name": HOSTILE, "arguments": {}}
    lines = [
        {"format": "mcp-inspector-session", "version": 1},
        {
            "type": "session",
            "ref": 1,
            "name": HOSTILE,
            "kind": "stdio-wrap",
            "target": ["srv", HOSTILE],
            "started_ns": T0,
            "ended_ns": T0 + 10**9,
            "protocol_version": "2025-06-18",
            "era": "initialize",
            "client_info": info,
            "server_info": info,
            "message_count": 9,
        },  # fmt: skip
        _message(
            1,
            "c2s",
            "stdin",
            "request",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info},
            },
            method="initialize",
            rpc_id="1",
        ),  # fmt: skip
        _message(
            2,
            "s2c",
            "stdout",
            "response",
            {"jsonrpc": "2.0", "id": 1, "result": init},
            method="initialize",
            rpc_id="1",
            answers_seq=1,
        ),  # fmt: skip
        _message(
            3,
            "c2s",
            "stdin",
            "notification",
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            method="notifications/initialized",
        ),  # fmt: skip
        _message(
            4,
            "c2s",
            "stdin",
            "request",
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            method="tools/list",
            rpc_id="2",
        ),  # fmt: skip
        _message(
            5,
            "s2c",
            "stdout",
            "response",
            {"jsonrpc": "2.0", "id": 2, "result": {"tools": [tool]}},
            method="tools/list",
            rpc_id="2",
            answers_seq=4,
            meta={"flags": [HOSTILE]},
        ),  # fmt: skip
        _message(6, "s2c", "stderr", "log", f"starting {HOSTILE}\n", parse_status="not-jsonrpc"),
        _message(7, "s2c", "stdout", "notification", {"jsonrpc": "2.0", "method": HOSTILE}, method=HOSTILE),
        _message(
            8,
            "c2s",
            "stdin",
            "request",
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call},
            method="tools/call",
            rpc_id="3",
        ),  # fmt: skip
        _message(
            9,
            "s2c",
            "stdout",
            "response",
            {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": answer}]}},
            method="tools/call",
            rpc_id="3",
            answers_seq=8,
        ),  # fmt: skip
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _clean(result: Result, *, exit_codes: tuple[int, ...] = (0,)) -> str:
    """Everything the command printed (stdout and stderr), once it is checked to hold no control."""
    out = result.stdout + result.stderr
    assert result.exit_code in exit_codes, (result.exit_code, out, result.exception)
    for char in RAW:
        assert char not in out, f"{char!r} reached the terminal raw:\n{out!r}"
    return out


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two sessions imported from hostile session files (they differ in the tool's answer)."""
    folder = tmp_path_factory.mktemp("hostile")
    db = folder / "rec.db"
    for name, answer in (("a.mcp.jsonl", "one"), ("b.mcp.jsonl", "two")):
        imported = CliRunner().invoke(
            app, ["import", str(_session_file(folder / name, answer)), "--db", str(db)]
        )
        _clean(imported)
    return db


def _run(*args: str, columns: int = 200) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": str(columns)})


def test_import_prints_the_names_escaped(tmp_path: Path) -> None:
    done = _run("import", str(_session_file(tmp_path / "x.mcp.jsonl", "one")), "--db", str(tmp_path / "x.db"))
    assert "evil\\x1b]52" in _clean(done)


@pytest.mark.parametrize("columns", [200, 80])
def test_sessions_and_show(db: Path, columns: int) -> None:
    listed = _clean(_run("sessions", "--db", str(db), columns=columns))
    assert "evil\\x1b]52" in listed
    shown = _clean(_run("show", "1", "--db", str(db), columns=columns))
    assert f"client {SHOWN[:30]}" in shown  # the header's client and server names
    assert "starting evil\\x1b]52" in shown  # the stderr line
    assert "tools/call evil\\x1b]52" in shown  # the tool's name in the call's row
    assert "\nevil" in shown or " evil\\x1b]52" in shown  # the notification's method


def test_show_json_stays_valid_json(db: Path) -> None:
    out = _clean(_run("show", "1", "--db", str(db), "--json"))
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[6]["method"] == HOSTILE  # the same value, escaped the JSON way
    listed = _clean(_run("sessions", "--db", str(db), "--json"))
    assert json.loads(listed)[0]["name"] == HOSTILE


def test_search(db: Path) -> None:
    found = _clean(_run("search", "starting", "--db", str(db)))
    assert "starting evil\\x1b]52" in found
    as_json = _clean(_run("search", "starting", "--db", str(db), "--json"))
    assert json.loads(as_json.splitlines()[0])["raw"].startswith(f"starting {HOSTILE}")


@pytest.mark.parametrize("columns", [200, 80])
def test_lint(db: Path, columns: int) -> None:
    out = _clean(_run("lint", "1", "--db", str(db), columns=columns), exit_codes=(0, 1))
    assert "evil\\x1b]52" in out  # the session's name in the heading
    as_json = _clean(_run("lint", "1", "--db", str(db), "--json"), exit_codes=(0, 1))
    json.loads(as_json)


def test_diff(db: Path) -> None:
    out = _clean(_run("diff", "1", "2", "--db", str(db), "--all"), exit_codes=(1,))
    assert "tools/call name=evil\\x1b]52" in out  # the exchange's summary line
    as_json = _clean(_run("diff", "1", "2", "--db", str(db), "--json"), exit_codes=(1,))
    json.loads(as_json)


def test_versions_and_call_against_a_hostile_server(tmp_path: Path) -> None:
    db = str(tmp_path / "live.db")
    probed = _clean(
        _run("versions", "--db", db, "--revisions", "2025-06-18", "--", *SERVER), exit_codes=(0, 1)
    )
    assert "evil\\x1b]52" in probed
    as_json = _clean(_run("versions", "--db", db, "--revisions", "2025-06-18", "--json", "--", *SERVER), exit_codes=(0, 1))  # fmt: skip
    json.loads(as_json)
    called = _clean(_run("call", "--db", db, "tools/list", "--", *SERVER))
    assert json.loads(called)["tools"][0]["name"] == HOSTILE
    shown = _clean(_run("show", "last", "--db", db))
    assert f"server {SHOWN[:30]}" in shown and "starting evil\\x1b]52" in shown


@pytest.fixture
def control(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Interceptor, ControlHandle]]:
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(tmp_path / "runtime"))
    pause = Rule.model_validate({"name": "hold", "match": {"method": ["tools/call"]}, "action": "pause"})
    interceptor = Interceptor(RuleSet(rules=[pause]), breakpoints=True)
    handle = start_control(interceptor, kind="wrap", target=["srv", HOSTILE], sessions=lambda: [7])
    yield interceptor, handle
    handle.close()


def _pause(interceptor: Interceptor, tool: str) -> str:
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": tool, "arguments": {}}}
    decision = interceptor.decide(Seen.of("c2s", json.dumps(call).encode() + b"\n", interceptor.tracker))
    assert decision.held is not None
    return decision.held.id


def test_intercept_list_show_and_forward(control: tuple[Interceptor, ControlHandle]) -> None:
    interceptor, _handle = control
    hostile = _pause(interceptor, HOSTILE)
    brackets = _pause(interceptor, "x[/]")
    listed = _clean(_run("intercept", "list"))
    assert (
        f"pid {os.getpid()}" in listed and "tools/call evil\\x1b]52" in listed and "tools/call x[/]" in listed
    )
    state = _clean(_run("intercept", "show"))
    assert "srv 'evil\\x1b]52" in state or "srv evil\\x1b]52" in state
    _clean(_run("intercept", "show", hostile))
    assert "tools/call x[/]" in _clean(_run("intercept", "forward", brackets))
    assert "tools/call evil\\x1b]52" in _clean(_run("intercept", "forward", hostile))
