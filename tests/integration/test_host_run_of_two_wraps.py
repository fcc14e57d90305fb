"""A real host run: one parent process (this test's) starts two `mcp-inspect wrap` processes, each
around a demo server that also writes a line on stderr, and talks to both through the official SDK
client at once. Both sessions record this process as their host (`facts["parent"]`), so the store
gives one host run holding both, and its timeline merges their rows, stderr lines included.

The wraps are plain processes (`sys.executable -m inspector`): a warm peer's parent is the fork
server, not the caller, and the parent is what this test is about. The servers inside are warm."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import anyio
import mcp
import pytest

from inspector.host_process import process_facts
from inspector.store import open_engine
from inspector.store.host_runs import host_run, host_runs, run_timeline
from tests.warm_peers import demo_argv


def _wrapped(db: Path, name: str) -> mcp.StdioServerParameters:
    server = f"echo '{name}: starting' >&2; exec {shlex.join(demo_argv())}"
    argv = [
        sys.executable,
        "-m",
        "inspector",
        "wrap",
        "--db",
        str(db),
        "--name",
        name,
        "--",
        "sh",
        "-c",
        server,
    ]
    return mcp.StdioServerParameters(command=argv[0], args=argv[1:])


@pytest.mark.anyio
async def test_two_wraps_of_one_parent_form_one_host_run(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    tools: dict[str, int] = {}

    async def use(name: str) -> None:
        async with mcp.Client(_wrapped(db, name), mode="legacy") as client:
            tools[name] = len((await client.list_tools()).tools)

    with anyio.fail_after(90):
        async with anyio.create_task_group() as tg:
            tg.start_soon(use, "first")
            tg.start_soon(use, "second")
        engine = open_engine(db)
        try:
            while True:  # each wrap finishes its recording after its client has gone
                runs, total = host_runs(engine)
                if total == 1 and len(runs[0].sessions) == 2 and not runs[0].live:
                    break
                await anyio.sleep(0.1)
            (run,) = runs
            assert tools["first"] == tools["second"] > 0
            assert sorted(s.name or "" for s in run.sessions) == ["first", "second"]
            assert run.pid == os.getpid()
            assert run.sessions[0].facts["parent"] == process_facts(os.getpid())
            assert host_run(engine, run.sessions[1].id or 0).id == run.id
            rows = run_timeline(engine, [s.id for s in run.sessions if s.id is not None], limit=5000)
        finally:
            engine.dispose()
    assert [r["ts_ns"] for r in rows] == sorted(r["ts_ns"] for r in rows)
    assert {r["session_id"] for r in rows} == {s.id for s in run.sessions}
    stderr = sorted(r["preview"].strip() for r in rows if r["channel"] == "stderr")
    assert stderr == ["first: starting", "second: starting"]
    assert sum(r["method"] == "tools/list" and r["kind"] == "request" for r in rows) == 2


def test_a_session_recorded_by_the_finishing_process_keeps_the_wraps_host(tmp_path: Path) -> None:
    """A short session (the server gone before the store opened) is recorded by a detached finishing
    process (`inspector/wrap_finish.py`), whose own parent is the wrap (or init): the host it records
    is the one the wrap was given, this process."""
    import subprocess

    from inspector.store import list_sessions

    db = tmp_path / "rec.db"
    server = ["sh", "-c", 'echo \'{"jsonrpc":"2.0","method":"notifications/message"}\'']
    argv = [sys.executable, "-m", "inspector", "wrap", "--db", str(db), "--name", "short", "--", *server]
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr

    async def ended() -> list:
        with anyio.fail_after(60):
            while True:
                if db.exists():
                    engine = open_engine(db)
                    try:
                        found = [s for s in list_sessions(engine) if s.status == "ended"]
                    finally:
                        engine.dispose()
                    if found:
                        return found
                await anyio.sleep(0.05)

    (session,) = anyio.run(ended)
    assert session.facts["parent"] == process_facts(os.getpid())
