"""`mcp-inspect serve` against the official Python SDK client, over stdio and Streamable HTTP.

The scenario's sampling, roots and elicitation requests must reach the client's callbacks (as
standalone requests under the handshake revisions, as `input_required` results under 2026-07-28),
and the client's answers must be in the recorded `mock-server` session.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp import types

from inspector.store import list_sessions, open_engine
from tests.integration.serve_helpers import client_answers, mock_rows, serve_argv, serve_http_in_process

SAMPLED = "hello from the python sdk"
ROOT = "file:///work/python-project"


class Callbacks:
    def __init__(self) -> None:
        self.seen: list[str] = []
        self.logs: list[Any] = []
        self.log_event = anyio.Event()

    async def sampling(self, ctx: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.seen.append("sampling")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=SAMPLED), model="py-model"
        )

    async def roots(self, ctx: Any) -> types.ListRootsResult:
        self.seen.append("roots")
        return types.ListRootsResult(roots=[types.Root(uri=ROOT, name="project")])  # type: ignore[arg-type]

    async def elicitation(self, ctx: Any, params: Any) -> types.ElicitResult:
        self.seen.append(f"elicitation:{getattr(params, 'mode', None) or 'form'}")
        if getattr(params, "mode", None) == "url":
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async def logging(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params.data)
        self.log_event.set()

    def client(self, target: Any, mode: str) -> mcp.Client:
        return mcp.Client(
            target,
            mode=mode,  # type: ignore[arg-type]
            sampling_callback=self.sampling,
            list_roots_callback=self.roots,
            elicitation_callback=self.elicitation,
            logging_callback=self.logging,
        )


def _text(result: Any) -> str:
    return result.content[0].text


async def _exercise(client: mcp.Client) -> dict[str, str]:
    return {
        "ask_llm": _text(await client.call_tool("ask_llm", {"prompt": "hi?"})),
        "list_roots": _text(await client.call_tool("list_roots", {})),
        "fill_form": _text(await client.call_tool("fill_form", {})),
        "open_url": _text(await client.call_tool("open_url", {})),
        "weather": (await client.call_tool("weather", {"city": "Oslo"})).structured_content,  # type: ignore[dict-item]
    }


def _check(results: dict[str, Any], callbacks: Callbacks, db: Path) -> None:
    assert results["ask_llm"] == f"The model said: {SAMPLED}"
    assert ROOT in results["list_roots"]
    assert '"name":"Ada"' in results["fill_form"] and results["open_url"] == "action: accept"
    assert results["weather"] == {"city": "Oslo", "temperature": 21, "sky": "clear"}
    assert callbacks.seen == ["sampling", "roots", "elicitation:form", "elicitation:url"]
    answers = client_answers(db)
    assert answers["sampling/createMessage"][0]["content"]["text"] == SAMPLED
    assert answers["roots/list"][0]["roots"][0]["uri"] == ROOT
    assert answers["elicitation/create"][0] == {"action": "accept", "content": {"name": "Ada", "age": 36}}


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_python_client_over_stdio(db_path: Path, mode: str) -> None:
    argv = serve_argv(db_path, warm=True)
    callbacks = Callbacks()
    with anyio.fail_after(90):
        async with callbacks.client(
            mcp.StdioServerParameters(command=argv[0], args=argv[1:]), mode
        ) as client:
            results = await _exercise(client)
    _check(results, callbacks, db_path)
    session = next(s for s in list_sessions(open_engine(db_path)) if s.kind == "mock-server")
    assert session.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    methods = [r.method for r in mock_rows(db_path) if r.direction == "s2c" and r.kind == "notification"]
    if mode == "legacy":  # URL-mode elicitation is completed by a notification
        assert "notifications/elicitation/complete" in methods


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_python_client_over_http(db_path: Path, mode: str) -> None:
    callbacks = Callbacks()
    with serve_http_in_process(db_path) as url, anyio.fail_after(90):
        async with callbacks.client(url, mode) as client:
            results = await _exercise(client)
            if mode == "legacy":
                # The timer's log notification (0.5 s after `initialized`) comes on the GET stream.
                await callbacks.log_event.wait()
    _check(results, callbacks, db_path)
    if mode == "legacy":
        assert callbacks.logs == ["the mock server is ready"]


@pytest.mark.anyio
async def test_restricted_versions_make_the_client_fall_back(db_path: Path) -> None:
    argv = serve_argv(db_path, "--protocol-version", "2025-06-18", warm=True)
    with anyio.fail_after(60):
        async with Callbacks().client(mcp.StdioServerParameters(command=argv[0], args=argv[1:]), "auto") as c:
            assert _text(await c.call_tool("echo", {"text": "fallback"})) == "fallback"
    rows = [r for r in mock_rows(db_path) if r.kind in ("request", "response", "error")]
    discover = next(r for r in rows if r.method == "server/discover" and r.direction == "s2c")
    assert discover.kind == "error" and discover.error_code == -32022
    init = next(r for r in rows if r.method == "initialize" and r.direction == "s2c")
    assert b'"protocolVersion":"2025-06-18"' in init.raw
    session = next(s for s in list_sessions(open_engine(db_path)) if s.kind == "mock-server")
    assert session.protocol_version == "2025-06-18"


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["http", "stdio"])
async def test_python_client_listens_at_2026(db_path: Path, transport: str) -> None:
    """`subscriptions/listen` (the SDK's default 2026-07-28 mode): the `change_lists` tool's `after`
    steps reach the client on its listen stream, filtered to what it asked for."""
    from mcp.client.subscriptions import ResourceUpdated, ToolsListChanged

    events: list[Any] = []
    async with contextlib.AsyncExitStack() as stack:
        stack.enter_context(anyio.fail_after(90))
        if transport == "http":
            target: Any = stack.enter_context(serve_http_in_process(db_path))
        else:
            argv = serve_argv(db_path, warm=True)
            target = mcp.StdioServerParameters(command=argv[0], args=argv[1:])
        client = await stack.enter_async_context(Callbacks().client(target, "auto"))
        wanted = {"tools_list_changed": True, "resource_subscriptions": ["mock://readme"]}
        async with client.listen(**wanted) as sub:  # type: ignore[arg-type]
            assert sub.honored.tools_list_changed and sub.honored.resource_subscriptions == ["mock://readme"]
            assert _text(await client.call_tool("change_lists", {})) == "changed"
            async for event in sub:
                events.append(event)
                if len(events) == 2:
                    break
    assert events == [ToolsListChanged(), ResourceUpdated(uri="mock://readme")]
    rows = mock_rows(db_path)
    bodies = [b for r in rows for b in _frames(r)]
    (listen,) = [b for b in bodies if b.get("method") == "subscriptions/listen" and "id" in b]
    stamped = [
        b["method"]
        for b in bodies
        if (b.get("params") or {}).get("_meta", {}).get("io.modelcontextprotocol/subscriptionId")
        == listen["id"]
    ]
    # Acknowledged first; the prompts and resources list changes were not asked for and were not sent.
    assert stamped == [
        "notifications/subscriptions/acknowledged",
        "notifications/tools/list_changed",
        "notifications/resources/updated",
    ]
    session = next(s for s in list_sessions(open_engine(db_path)) if s.kind == "mock-server")
    assert session.protocol_version == "2026-07-28"


def _frames(row: Any) -> list[dict[str, Any]]:
    try:
        body = json.loads(row.body)
    except ValueError:
        return []
    return [b for b in (body if isinstance(body, list) else [body]) if isinstance(b, dict)]
