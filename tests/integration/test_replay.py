"""`mcp-inspect replay` and `diff` against real servers: unchanged, changed, transport change, failure.

The recordings replayed are the checked-in demo sessions (tests/data/sessions/demo.jsonl and
demo-variant.jsonl: the demo and `--variant` driven by the SDK client through `mcp-inspect wrap`),
imported; the commands run in this process (tests/cli_in_process.py) against real servers (the demo
forked from a warm server: tests/warm_peers.py). The everything recording is made here, through a
wrap forked from the warm server (its stdio recording replayed over HTTP is the point)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import mcp

from inspector.store import get_session, iter_messages, list_sessions, open_engine
from tests.cli_in_process import run
from tests.everything_client import everything_session
from tests.http_peers import demo_http_server, everything_http_server
from tests.sessions import load
from tests.shim_process import ended_named
from tests.warm_peers import demo_argv, warm_wrap_argv

DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)
CLI = [sys.executable, "-m", "inspector"]


def _record(db: Path, server: list[str], name: str) -> int:
    """The demo (`server` DEMO, or DEMO --variant) as the SDK client drove it through wrap: imported."""
    return load(db, "demo-variant" if "--variant" in server else "demo", name=name)


def _replay(db: Path, session: int, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    out = run("replay", str(session), "--db", str(db), "--json", *args)
    assert out.returncode in (0, 1), out.stderr
    return out.returncode, json.loads(out.stdout)


def _changed(report: dict) -> dict[str, list[str]]:  # type: ignore[type-arg]
    return {
        e["summary"]: [c["path"] for c in e["changes"]] for e in report["exchanges"] if e["status"] != "equal"
    }


def test_replay_against_the_same_server_is_unchanged_after_calibration(db_path: Path) -> None:
    original = _record(db_path, DEMO, "demo")
    code, report = _replay(db_path, original, "--calibrate", "--", *DEMO)
    assert code == 0, _changed(report)
    assert _changed(report) == {}
    assert report["original"] == original
    replay = get_session(open_engine(db_path), report["replay"])
    assert replay.kind == "replay" and replay.parent_id == original and replay.message_count > 40
    assert [s.kind for s in list_sessions(open_engine(db_path))].count("replay") == 2  # calibration ran twice


def test_replay_against_a_changed_server_names_exactly_the_changes(db_path: Path) -> None:
    original = _record(db_path, DEMO, "demo")
    code, report = _replay(db_path, original, "--", *DEMO, "--variant")
    assert code == 1
    changed = _changed(report)
    assert set(changed) == {"tools/list", "tools/call name=weather", "tools/call name=fail"}, changed
    assert any("tools[name=fail]" in p for p in changed["tools/list"])
    assert any(p.endswith("temperature_c") for p in changed["tools/call name=weather"])
    text = run("replay", str(original), "--db", str(db_path), "--", *DEMO, "--variant")
    assert text.returncode == 1 and "temperature_c" in text.stdout and "tools[name=fail]" in text.stdout


def test_diff_of_two_recorded_sessions(db_path: Path) -> None:
    _record(db_path, DEMO, "build-a")
    b = _record(db_path, [*DEMO, "--variant"], "build-b")
    same = run("diff", str(b), str(b), "--db", str(db_path))
    assert same.returncode == 0
    differ = run("diff", "build-a", "build-b", "--db", str(db_path), "--json")
    assert differ.returncode == 1
    assert "tools/call name=weather" in _changed(json.loads(differ.stdout))


def test_stdio_recording_replayed_over_streamable_http_shows_no_difference(
    db_path: Path, everything_cmd: list[str]
) -> None:
    argv = warm_wrap_argv(db_path, *everything_cmd, extra=("--quiet", "--name", "everything-stdio"))
    params = mcp.StdioServerParameters(command=argv[0], args=argv[1:])
    anyio.run(lambda: everything_session(params, "transport change", mode="legacy"))
    original = ended_named(db_path, "everything-stdio").id
    assert original is not None
    with everything_http_server("streamableHttp") as url:
        # server-everything announces its tools with list_changed while the session starts: over stdio
        # they arrive, over Streamable HTTP they go to a GET stream no client has opened yet. That is
        # the transport, not the server's behaviour, so it is the one thing ignored here.
        ignore = "notifications/tools/list_changed:"
        code, report = _replay(db_path, original, "--url", url, "--calibrate", "--ignore", ignore)
    assert code == 0, _changed(report)
    assert report["timeouts"] == [] and report["unmatched_server_requests"] == []


def test_replay_that_cannot_run_exits_2(db_path: Path) -> None:
    original = _record(db_path, DEMO, "demo")
    out = run("replay", str(original), "--db", str(db_path), "--", "/nonexistent/server")
    assert out.returncode == 2 and "could not run" in out.stderr and "Traceback" not in out.stderr


def test_replay_needs_a_target(db_path: Path) -> None:
    # Through the console script: its exit status for a user error.
    out = subprocess.run(
        [*CLI, "replay", "1", "--db", str(db_path)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2 and "needs a target" in out.stderr


def test_stdio_recording_replayed_over_legacy_sse_shows_no_difference(db_path: Path) -> None:
    original = _record(db_path, DEMO, "demo")
    with demo_http_server("sse", warm=True) as url:
        assert url.endswith("/sse")
        code, report = _replay(db_path, original, "--url", url)
    assert code == 0, _changed(report)
    rows = list(iter_messages(open_engine(db_path), report["replay"]))
    assert any((m.meta or {}).get("event") == "endpoint" for m in rows), (
        "the legacy endpoint event is recorded"
    )
    assert any(m.method == "sampling/createMessage" and m.channel == "sse" for m in rows)
