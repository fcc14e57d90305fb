"""Helpers for the `mcp-inspect serve` tests: start it, read what the client answered from the DB."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio

from inspector.store import Message, list_sessions, open_engine
from tests.http_peers import LineProcess
from tests.shim_process import messages
from tests.warm_peers import inspector_argv

INPUT_METHODS = ("sampling/createMessage", "elicitation/create", "roots/list")


def serve_argv(db: Path, *extra: str, warm: bool = False) -> list[str]:
    """`mcp-inspect serve`; `warm`: forked from the warm server (tests/warm_peers.py)."""
    args = ("serve", "--db", str(db), *extra)
    return inspector_argv(*args, warm=warm)


@contextmanager
def serve_http(db: Path, *extra: str, warm: bool = False) -> Iterator[str]:
    """`mcp-inspect serve --http` on a free loopback port; yields the MCP URL."""
    server = LineProcess(serve_argv(db, *extra, "--http", "127.0.0.1:0", warm=warm))
    try:
        yield server.wait_for(r"at (http://\S+/mcp)").group(1)
    finally:
        server.stop()


@asynccontextmanager
async def serving(db: Path, options: Any = None) -> AsyncIterator[str]:
    """`mcp-inspect serve --http 127.0.0.1:0` in this process (`run_serve`, its composition root, in a
    task of the caller's event loop; a `ServeOptions`, the default scenario by default): a real
    socket, without a Python process of its own (1-2 s of imports). Yields the MCP URL, read from
    the serve's registration in the runtime directory (written once its socket listens). Stopped by
    cancelling it, as Ctrl-C stops the command: its sessions end and its recorder has written every
    row when the block is left."""
    from inspector.scenario.control import registrations
    from inspector.scenario.runner import ServeOptions, run_serve

    engine = open_engine(db)
    before = {r["url"] for r in registrations(engine)}
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: run_serve(engine, options or ServeOptions(), http=("127.0.0.1", 0)))
            with anyio.fail_after(60):
                while not (found := [r for r in registrations(engine) if r["url"] not in before]):
                    await anyio.sleep(0.01)
            try:
                yield found[0]["url"].removesuffix("/control") + "/mcp"
            finally:
                tg.cancel_scope.cancel()
    finally:
        engine.dispose()


@contextmanager
def serve_http_in_process(db: Path, options: Any = None) -> Iterator[str]:
    """`serving` for a synchronous test: on an event loop in a thread of this process."""
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal() as portal, portal.wrap_async_context_manager(serving(db, options)) as url:
        yield url


def mock_rows(db: Path) -> list[Message]:
    """The rows of every `mock-server` session, in session then seq order."""
    engine = open_engine(db)
    sessions = sorted((s for s in list_sessions(engine) if s.kind == "mock-server"), key=lambda s: s.id or 0)
    return [row for s in sessions for row in messages(engine, s.id)]


def _body(row: Message) -> Any:
    try:
        return json.loads(row.body)
    except ValueError:
        return None


def _events(row: Message) -> list[Any]:
    """JSON-RPC payloads of a row (a line, a POST body, or an SSE event)."""
    if row.channel == "sse" or row.channel in ("stdin", "stdout", "http-request"):
        body = _body(row)
        return body if isinstance(body, list) else [body] if body is not None else []
    return []


def client_answers(db: Path) -> dict[str, list[Any]]:
    """What the client answered to each server-to-client request method, from the recorded rows.

    Handshake era: the client's responses to our requests. 2026-07-28: the `inputResponses` of the
    client's retries, keyed back to the `inputRequests` of the `input_required` result before them.
    """
    answers: dict[str, list[Any]] = {m: [] for m in INPUT_METHODS}
    asked: dict[str, str] = {}
    for row in mock_rows(db):
        for event in _events(row):
            if not isinstance(event, dict):
                continue
            if row.direction == "s2c" and event.get("method") in INPUT_METHODS and "id" in event:
                asked[json.dumps(event["id"])] = event["method"]
            result = event.get("result")
            if (
                row.direction == "s2c"
                and isinstance(result, dict)
                and result.get("resultType") == "input_required"
            ):
                for key, req in (result.get("inputRequests") or {}).items():
                    asked[f"input:{key}"] = req["method"]
            if row.direction != "c2s":
                continue
            if "method" not in event and json.dumps(event.get("id")) in asked:
                answers[asked[json.dumps(event["id"])]].append(event.get("result", event.get("error")))
            for key, value in ((event.get("params") or {}).get("inputResponses") or {}).items():
                answers[asked[f"input:{key}"]].append(value)
    return answers
