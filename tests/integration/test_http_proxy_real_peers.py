"""Real MCP peers through `mcp-inspect proxy`: SDK clients, the SDK demo server and server-everything,
over Streamable HTTP and legacy HTTP+SSE."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp.client.sse import sse_client

from inspector.demo.driver import BOOKING, DEMO_ROOT, SAMPLING_REPLY, drive_demo
from inspector.store import Message, list_sessions, open_engine
from tests.everything_client import ELICITED_NAME, ROOT, SAMPLED, everything_session
from tests.http_peers import demo_http_server, everything_http_server, proxy_in_process
from tests.shim_process import messages


def _jsonrpc(rows: list[Message]) -> list[Message]:
    return [m for m in rows if m.kind not in ("http", "log")]


def _methods(rows: list[Message], direction: str, kind: str = "request") -> set[str]:
    return {m.method for m in rows if m.direction == direction and m.kind == kind and m.method}


def _assert_all_paired(rows: list[Message]) -> None:
    answered = {m.answers_seq for m in rows if m.answers_seq is not None}
    requests = [m for m in rows if m.kind == "request"]
    assert requests, "no requests recorded"
    unanswered = [(m.seq, m.method) for m in requests if m.seq not in answered]
    assert unanswered == []


def _demo_session(db: Path):  # type: ignore[no-untyped-def]
    engine = open_engine(db)
    found = [s for s in list_sessions(engine) if s.message_count]
    assert len(found) == 1, [(s.id, s.message_count) for s in found]
    return found[0], messages(engine, found[0].id)


@pytest.mark.anyio
async def test_sdk_streamable_http_demo_server_through_proxy(db_path: Path) -> None:
    with (
        demo_http_server("streamable-http", warm=True) as target,
        proxy_in_process(target, db_path) as (url, _proxy),
    ):
        with anyio.fail_after(90):
            report = await drive_demo(url, mode="legacy")
    assert report.tool_results["echo"].text == "hello inspector"
    assert SAMPLING_REPLY in report.tool_results["ask_llm"].text
    session, rows = _demo_session(db_path)
    assert session.kind == "http-proxy" and session.protocol_version == "2025-11-25"
    assert session.server_info["name"] == "inspector-demo"
    assert {"initialize", "tools/list", "tools/call", "resources/read", "prompts/get"} <= _methods(
        rows, "c2s"
    )
    # Server-to-client requests travel on SSE streams; the client's answers come back as POSTs.
    server_requests = [m for m in rows if m.direction == "s2c" and m.kind == "request"]
    assert {m.method for m in server_requests} >= {
        "sampling/createMessage",
        "elicitation/create",
        "roots/list",
    }
    assert all(m.channel == "sse" for m in server_requests)
    _assert_all_paired(rows)
    answers = {m.answers_seq: m for m in rows if m.answers_seq}
    by_method = {m.method: m for m in server_requests}
    assert str(BOOKING["name"]).encode() in answers[by_method["elicitation/create"].seq].raw
    assert DEMO_ROOT.encode() in answers[by_method["roots/list"].seq].raw
    # Every HTTP request is recorded with its metadata; the session id header ties them together.
    posts = [m for m in rows if m.channel == "http-request" and m.http_method == "POST" and m.raw]
    assert posts and all(m.http_path == "/mcp" for m in posts)
    assert any(h[0].lower() == "mcp-session-id" for h in posts[-1].http_headers)
    assert any(m.http_method == "DELETE" for m in rows), "the SDK client ends the session with DELETE"
    assert session.status == "ended" and session.end_reason.startswith("DELETE answered")


@pytest.mark.anyio
async def test_sdk_legacy_sse_demo_server_through_proxy(db_path: Path) -> None:
    with demo_http_server("sse", warm=True) as target, proxy_in_process(target, db_path) as (url, _proxy):
        assert url.endswith("/sse")
        with anyio.fail_after(90):
            report = await drive_demo(sse_client(url), mode="legacy")
    assert report.tool_results["echo"].text == "hello inspector"
    assert SAMPLING_REPLY in report.tool_results["ask_llm"].text
    session, rows = _demo_session(db_path)
    endpoint = next(m for m in rows if m.channel == "sse" and (m.meta or {}).get("event") == "endpoint")
    assert endpoint.kind == "http" and b"session_id=" in endpoint.raw
    assert "rewritten_to" not in (endpoint.meta or {}), "a relative endpoint needs no rewrite"
    # Both directions of the legacy transport land in the one session: POSTs and the GET stream.
    assert {"initialize", "tools/call"} <= _methods(rows, "c2s")
    assert {"sampling/createMessage", "roots/list"} <= _methods(rows, "s2c")
    assert all(m.channel == "sse" for m in _jsonrpc(rows) if m.direction == "s2c")
    _assert_all_paired(rows)
    assert session.protocol_version == "2025-11-25"


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["streamableHttp", "sse"])
async def test_sdk_client_server_everything_through_proxy(
    db_path: Path, mode: str, everything_cmd: list[str]
) -> None:
    with everything_http_server(mode) as target, proxy_in_process(target, db_path) as (url, _proxy):
        with anyio.fail_after(120):
            out = await everything_session(url if mode == "streamableHttp" else sse_client(url), "via proxy")
    assert "via proxy" in out["echo"]
    assert SAMPLED in out["sampling"] and "42" in out["sum"]
    assert ROOT in out["roots"] and ELICITED_NAME in out["elicitation"]
    engine = open_engine(db_path)
    sessions = [s for s in list_sessions(engine) if s.message_count]
    rows = [m for s in sessions for m in messages(engine, s.id)]
    assert {"tools/call", "resources/read", "prompts/get"} <= _methods(rows, "c2s")
    assert {"sampling/createMessage", "roots/list", "elicitation/create"} <= _methods(rows, "s2c")
    main = max(sessions, key=lambda s: s.message_count)
    assert main.server_info and "everything" in main.server_info["name"]
    _assert_all_paired(messages(engine, main.id))
