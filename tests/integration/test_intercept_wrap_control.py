"""A breakpoint on `tools/call` in a real `wrap --intercept`, edited through the control channel.

The Python SDK client calls echo; the call is held; the test (standing in for the
UI or `mcp-inspect intercept`) finds the process's announcement, reads the pending
message from `/state` and edits it; the server receives the edited call, the client
gets the answer to it, and the recording keeps both the client's bytes (not delivered)
and the edited ones (injected). Runs once the control channel (inspector/control/,
issue #17 UI part) is present.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp
import pytest

from inspector.store import open_engine
from tests.integration.test_intercept_wrap import Taps
from tests.shim_process import messages, only_session

control = pytest.importorskip("inspector.control.announce")


def _find_pending(db: Path, deadline: float) -> tuple[dict[str, Any], dict[str, Any]]:
    while time.monotonic() < deadline:
        for reg in control.announcements():
            if reg.get("db") != "sqlite:" + os.path.abspath(db):
                continue
            state = httpx.get(
                reg["url"] + "/state", headers={"authorization": f"Bearer {reg['token']}"}, trust_env=False
            ).json()
            if state["pending"]:
                return reg, state["pending"][0]
        time.sleep(0.05)
    raise AssertionError("no paused message announced")


@pytest.mark.anyio
async def test_breakpoint_edited_through_the_control_channel(
    tmp_path: Path, everything_cmd: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(runtime))
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "rules:\n  - name: hold-calls\n    match: {method: tools/call, kind: request}\n    action: pause\n"
    )
    taps = Taps(tmp_path)
    argv = taps.command(everything_cmd, "--faults", str(rules), "--intercept", "--pause-timeout", "20")
    got: dict[str, Any] = {}

    async def client() -> None:
        # An MCP host starts its servers with a trimmed environment: the runtime directory is passed on.
        params = mcp.StdioServerParameters(
            command=argv[0], args=argv[1:], env={"MCP_INSPECTOR_RUNTIME": str(runtime)}
        )
        async with mcp.Client(params, mode="legacy") as c:
            got["result"] = await c.call_tool("echo", {"message": "original"})

    def operator() -> dict[str, Any]:
        reg, pending = _find_pending(taps.db, time.monotonic() + 30)
        assert pending["method"] == "tools/call" and pending["name"] == "echo"
        edited = json.loads(pending["raw"])
        edited["params"]["arguments"]["message"] = "edited"
        answer = httpx.post(
            f"{reg['url']}/pending/{pending['id']}",
            json={"action": "edit", "raw": json.dumps(edited)},
            headers={"authorization": f"Bearer {reg['token']}"},
            trust_env=False,
        )
        assert answer.status_code == 200, answer.text
        return pending

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            tg.start_soon(client)
            pending = await anyio.to_thread.run_sync(operator)
    assert got["result"].content[0].text == "Echo: edited"
    server_received = taps.server_received.read_bytes()
    assert b'"edited"' in server_received and b'"original"' not in server_received
    engine = open_engine(taps.db)
    session = only_session(engine)
    rows = messages(engine, session.id or 0)
    (original,) = [m for m in rows if "intercept" in (m.meta or {})]
    assert original.raw.decode() == pending["raw"]
    meta = original.meta["intercept"]
    assert (meta["action"], meta["by"], meta["delivered"]) == ("edit", "user", False)
    (injected,) = [m for m in rows if (m.meta or {}).get("injected", {}).get("n") == meta["n"]]
    assert injected.direction == "c2s" and injected.raw in server_received
    assert not list(runtime.glob("intercept-*.json"))  # the announcement is gone with the process
