"""`wrap --intercept`: a SIGTERM while a message is paused at a breakpoint lost that message's row.

Named in stop 24's note. The paused line is recorded when it is resolved (with what was done
to it); a pump blocked on the hold was never woken when the server went away, so the session
ended without the line. Now, when the server has exited, every hold is resolved "by shutdown"
(a server's answer is forwarded to the client, a client's request is dropped: there is nobody
to deliver it to) and the shim waits for those rows before the session ends.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from inspector.store import list_sessions, open_engine
from tests.shim_process import messages

PEER = Path(__file__).resolve().parents[1] / "peers" / "line_echo_server.py"
HELD = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}\n'


def _pending(db: Path, deadline: float) -> list[dict]:
    from inspector.control import announce

    while time.monotonic() < deadline:
        for reg in announce.announcements():
            if reg.get("db") != "sqlite:" + os.path.abspath(db):
                continue
            state = httpx.get(
                reg["url"] + "/state",
                headers={"authorization": f"Bearer {reg['token']}"},
                trust_env=False,
            ).json()
            if state["pending"]:
                return list(state["pending"])
        time.sleep(0.05)
    raise AssertionError("no paused message announced")


def test_sigterm_while_a_request_is_paused_records_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "rec.db"
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(runtime))
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules:\n  - name: hold\n    match: {method: tools/call}\n    action: pause\n")
    wrap = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "inspector",
            "wrap",
            "--db",
            str(db),
            "--faults",
            str(rules),
            "--intercept",
            "--pause-timeout",
            "600",
            "--",
            sys.executable,
            str(PEER),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "MCP_INSPECTOR_RUNTIME": str(runtime)},
    )
    assert wrap.stdin is not None and wrap.stdout is not None
    try:
        wrap.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        wrap.stdin.flush()
        assert json.loads(wrap.stdout.readline())["id"] == 1  # the plain traffic flows
        wrap.stdin.write(HELD)
        wrap.stdin.flush()
        pending = _pending(db, time.monotonic() + 60)
        assert pending[0]["method"] == "tools/call"
        wrap.send_signal(signal.SIGTERM)  # the host stops while the call waits for a person
        wrap.wait(timeout=60)
    finally:
        if wrap.poll() is None:
            wrap.kill()
            wrap.wait()

    engine = open_engine(db)
    try:
        sessions = list_sessions(engine)
        assert len(sessions) == 1 and sessions[0].status == "ended"
        rows = [r for r in messages(engine, sessions[0].id) if r.direction == "c2s"]
    finally:
        engine.dispose()
    assert [r.raw for r in rows][-1] == HELD, "the paused request's row was lost"
    mark = rows[-1].meta["intercept"]
    assert (mark["action"], mark["by"], mark["delivered"]) == ("drop", "shutdown", False)
