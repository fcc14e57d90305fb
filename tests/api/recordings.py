"""Recordings for the API and browser tests: the demo through the real shim, generated sessions, HTTP rows.

`record_demo` runs the SDK demo client against `mcp-inspect wrap -- python -m
inspector.demo` (real subprocesses); `record_clock` calls the clock peer (answers
that carry the time) the same way. `generate_session` writes a long session
straight through `MessageBuilder` + `SessionWriter` (the recorder's own code
path, without processes), fast enough for 100,000 messages.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import mcp

from bench.ui_data import generate
from inspector.capture import MessageBuilder
from inspector.capture.redact import active
from inspector.capture.sessions import create_session
from inspector.demo.driver import drive_demo
from inspector.store import SessionWriter, open_engine
from tests.shim_process import ended_count, ended_named


def record_demo(db: Path, name: str = "demo") -> None:
    """Record the demo session through the real `wrap` shim (SDK client, demo server)."""
    wrapped = [sys.executable, "-m", "inspector", "wrap", "--quiet", "--db", str(db), "--name", name, "--"]
    params = mcp.StdioServerParameters(
        command=wrapped[0], args=[*wrapped[1:], sys.executable, "-m", "inspector.demo"]
    )

    async def drive() -> None:
        with anyio.fail_after(90):
            await drive_demo(params, mode="legacy")

    before = ended_count(db, name)
    # Its own thread: the caller may already run an event loop (Playwright's sync API does).
    with ThreadPoolExecutor(1) as pool:
        pool.submit(anyio.run, drive).result()
    ended_named(db, name, count=before + 1)  # recorded, even when a finishing process does it


CLOCK = [sys.executable, str(Path(__file__).resolve().parents[1] / "peers" / "clock_server.py")]


def record_clock(db: Path, name: str = "clock") -> int:
    """Record `greet Ada`, then `now` twice, from tests/peers/clock_server.py through the real `wrap`
    shim; returns the session id (the shim has exited, so every row is stored)."""
    wrapped = [sys.executable, "-m", "inspector", "wrap", "--quiet", "--db", str(db), "--name", name, "--"]
    params = mcp.StdioServerParameters(command=wrapped[0], args=[*wrapped[1:], *CLOCK])

    async def drive() -> None:
        with anyio.fail_after(90):
            async with mcp.Client(params, cache=None, mode="legacy") as client:
                await client.call_tool("greet", {"name": "Ada"})
                await client.call_tool("now", {})
                await client.call_tool("now", {})

    before = ended_count(db, name)
    with ThreadPoolExecutor(1) as pool:
        pool.submit(anyio.run, drive).result()
    found = ended_named(db, name, count=before + 1).id
    assert found is not None
    return found


def generate_session(db: Path, messages: int, *, name: str = "generated", batch: int = 20_000) -> int:
    """A finished stdio session of `messages` rows (the benchmark's generator, shared)."""
    return generate(db, messages, name=name, batch=batch)


def http_session(db: Path) -> int:
    """An HTTP-proxy session written by hand: the rows an HTTP proxy records (channels http-*/sse)."""
    engine = open_engine(db)
    sid = create_session(engine, kind="http-proxy", target="http://127.0.0.1:9/mcp", name="http by hand")
    builder = MessageBuilder(sid)
    t = 1_700_000_000_000_000_000
    auth = {"content-type": "application/json", "authorization": "Bearer s3cret", "mcp-session-id": "abc"}
    rows = [
        # Exchange 1: POST initialize answered with JSON.
        builder.message(
            t,
            "c2s",
            "http-request",
            b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
            http_method="POST",
            http_path="/mcp",
            http_headers=auth,
            meta={"exchange": 1},
        ),
        builder.message(
            t + 5_000_000,
            "s2c",
            "http-response",
            b'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}',
            http_status=200,
            http_headers={"content-type": "application/json", "set-cookie": "sid=1"},
            meta={"exchange": 1},
        ),
        # Exchange 2: POST tools/call answered by an SSE stream (a progress event, then the result).
        builder.message(
            t + 10_000_000,
            "c2s",
            "http-request",
            b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}',
            http_method="POST",
            http_path="/mcp",
            http_headers=auth,
            meta={"exchange": 2},
        ),
        builder.message(
            t + 12_000_000,
            "s2c",
            "sse",
            b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1}}',
            http_status=200,
            http_headers={"content-type": "text/event-stream"},
            sse_event_id="ev-1",
            meta={"exchange": 2},
        ),
        builder.message(
            t + 20_000_000,
            "s2c",
            "sse",
            b'{"jsonrpc":"2.0","id":2,"result":{"content":[]}}',
            sse_event_id="ev-2",
            meta={"exchange": 2},
        ),
        # No exchange number: a GET stream and its event are grouped by path.
        builder.message(
            t + 30_000_000,
            "c2s",
            "http-request",
            b"",
            http_method="GET",
            http_path="/mcp/stream",
            http_headers={"accept": "text/event-stream", "cookie": "a=b"},
        ),
        builder.message(
            t + 31_000_000,
            "s2c",
            "sse",
            b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}',
            http_status=200,
            http_path="/mcp/stream",
            sse_event_id="ev-9",
        ),
    ]
    for row in rows:  # what the recorder does to every row before it is stored
        active().row(row)
    writer = SessionWriter(engine, sid)
    writer.on_batch(rows, builder.facts.snapshot())
    writer.on_end(None, "proxy stopped", builder.facts.snapshot())
    engine.dispose()
    return sid


def out_of_order_session(db: Path) -> int:
    """Two requests answered in reverse order, and a server-to-client request in between."""
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["server"], name="out of order")
    builder = MessageBuilder(sid)
    t = 1_700_000_000_000_000_000
    lines = [
        ("c2s", "stdin", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}\n'),
        ("c2s", "stdin", b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'),
        ("s2c", "stdout", b'{"jsonrpc":"2.0","id":"s1","method":"roots/list"}\n'),
        ("c2s", "stdin", b'{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}\n'),
        ("s2c", "stdout", b'{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}\n'),
        ("s2c", "stdout", b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n'),
    ]
    rows: list[dict[str, Any]] = []
    for i, (direction, channel, line) in enumerate(lines):
        rows += builder.feed(t + i * 1_000_000, direction, channel, line)
    writer = SessionWriter(engine, sid)
    writer.on_batch(rows, builder.facts.snapshot())
    writer.on_end(0, "client-eof", builder.facts.snapshot())
    engine.dispose()
    return sid


APPS = [sys.executable, str(Path(__file__).resolve().parents[1] / "peers" / "apps_server.py")]


def record_apps(db: Path, probe: str = "", name: str = "apps") -> int:
    """Record tests/peers/apps_server.py (an SDK server exposing an App) through the real `wrap`:
    tools/list, resources/list, resources/read of the view, `show_weather` for Paris (input with
    `probe`, a URL the view will try to fetch) and `forecast` for Paris; returns the session id."""
    wrapped = [sys.executable, "-m", "inspector", "wrap", "--quiet", "--db", str(db), "--name", name, "--"]
    params = mcp.StdioServerParameters(command=wrapped[0], args=[*wrapped[1:], *APPS])
    before = ended_count(db, name)

    async def drive() -> None:
        with anyio.fail_after(90):
            async with mcp.Client(params, cache=None, mode="legacy") as client:
                await client.list_tools()
                await client.list_resources()
                await client.read_resource("ui://weather/view.html")
                await client.call_tool("show_weather", {"city": "Paris", "probe": probe})
                await client.call_tool("forecast", {"city": "Paris"})

    with ThreadPoolExecutor(1) as pool:
        pool.submit(anyio.run, drive).result()
    # Recorded, even when a finishing process does it after the client is gone.
    return int(ended_named(db, name, count=before + 1).id)
