"""A proxy session whose client went quiet shows as idle, with when it will be ended.

What was wrong: a client that leaves without `DELETE` left its session `recording` for up to
`--idle-end` (300 s) with nothing saying why or for how long. The proxy now gives a session quiet
for a while the `idle` fact (since when, when it ends unless the client returns), clears it when
traffic resumes, and `sessions`, `show` and `sessions --json` (the API has it in `facts`) say so.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import anyio
import httpx
import pytest
from typer.testing import CliRunner

from inspector.capture import Recorder
from inspector.capture.sessions import create_session
from inspector.cli import app as cli_app
from inspector.store import StoreWriter, list_sessions, open_engine
from inspector.transports.http_proxy import HttpProxy
from tests.http_peers import scripted_http_server

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def _facts(db: Path) -> dict:  # type: ignore[type-arg]
    engine = open_engine(db)
    try:
        sessions = list_sessions(engine)  # the row is created on the recorder's thread: maybe not yet
        return dict(sessions[0].facts or {}) if sessions else {}
    finally:
        engine.dispose()


async def _until(db: Path, idle: bool) -> dict:  # type: ignore[type-arg]
    with anyio.fail_after(30):
        while ((facts := _facts(db)).get("idle") is not None) != idle:
            await anyio.sleep(0.05)
    return facts


@pytest.mark.anyio
async def test_quiet_session_is_idle_until_the_client_returns(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    engine = open_engine(db)
    recorder = Recorder([StoreWriter(engine)], flush_interval=0.01).start()
    runner = CliRunner()
    with scripted_http_server() as base:
        target = f"{base}/mcp"
        proxy = HttpProxy(
            target,
            recorder,
            lambda _hint: create_session(engine, kind="http-proxy", target=target),
            idle_after=300,
            idle_shown=0.3,
        )
        transport = httpx.ASGITransport(app=proxy)
        try:
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
                sent = time.time_ns()
                assert (await http.post("/mcp", json=PING)).status_code == 200
                facts = await _until(db, idle=True)
                seen = time.time_ns()
                idle = facts["idle"]
                # Idle since the exchange (its end may be stamped just after the client has the answer).
                assert sent <= idle["since_ns"] <= seen
                # Ended by --idle-end (300 s) after its last traffic, unless the client returns.
                assert 290e9 < idle["ends_ns"] - idle["since_ns"] <= 301e9

                listed = runner.invoke(cli_app, ["sessions", "--db", str(db)])
                assert "idle, ends " in listed.output, listed.output
                shown = runner.invoke(cli_app, ["show", "1", "--db", str(db)])
                assert ", status idle" in shown.output and "\nidle since " in shown.output, shown.output
                assert "unless the client returns" in shown.output
                docs = json.loads(runner.invoke(cli_app, ["sessions", "--json", "--db", str(db)]).output)
                assert docs[0]["state"] == "recording" and docs[0]["idle"] == idle

                assert (await http.post("/mcp", json=PING)).status_code == 200  # the client is back
                await _until(db, idle=False)
                listed = runner.invoke(cli_app, ["sessions", "--db", str(db)])
                assert "idle" not in listed.output and "recording" in listed.output
        finally:
            await proxy.stop()
            recorder.stop("test")
            engine.dispose()
