"""2026-07-28 routing headers on real traffic: the official Python SDK client and the SDK demo server
(plus a tool whose `region` is mirrored into `Mcp-Param-Region`) through `mcp-inspect proxy`.

The SDK's own requests are recorded with their headers, decoded (a non-ASCII region travels as
`=?base64?...?=`) and lint clean; hand-made requests (httpx through the proxy), each with one
violation, give exactly one finding each, of the expected rule.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp
import orjson
import pytest

from inspector.lint import lint_session
from inspector.protocol.http_groups import group_exchanges
from inspector.protocol.routing_headers import encode_value
from inspector.store import iter_messages, list_sessions, open_engine
from inspector.store.queries import iter_rows
from tests.http_peers import LineProcess, proxy_in_process

PEER = Path(__file__).parents[1] / "peers" / "routing_demo_server.py"
REGION = "Zürich 東京"
REV = "2026-07-28"


def _meta(client: str) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": REV,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"},
    }


def _headers(method: str, name: str | None = None, **extra: str) -> dict[str, str]:
    out = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": REV,
        "mcp-method": method,
    }
    if name is not None:
        out["mcp-name"] = name
    return {**out, **extra}


def _forecast(region: str = "north") -> tuple[str, dict[str, Any]]:
    return "tools/call", {"name": "forecast", "arguments": {"region": region}}


# case -> (method, params, headers, expected rule)
CASES: dict[str, tuple[str, dict[str, Any], dict[str, str], str]] = {
    "mcp-method": ("tools/list", {}, _headers("prompts/list"), "routing-header-mismatch"),
    "mcp-name": (
        "tools/call",
        {"name": "echo", "arguments": {"text": "x"}},
        _headers("tools/call", "weather"),
        "routing-header-mismatch",
    ),
    "mcp-param": (
        *_forecast("north"),
        _headers("tools/call", "forecast", **{"mcp-param-region": "south"}),
        "routing-header-mismatch",
    ),
    "bad-base64": (
        "tools/call",
        {"name": "echo", "arguments": {"text": "x"}},
        _headers("tools/call", "=?base64?!!not-base64?="),
        "routing-header-invalid",
    ),
    "version-header": (
        "tools/list",
        {},
        _headers("tools/list", **{"mcp-protocol-version": "2025-11-25"}),
        "protocol-version-header-mismatch",
    ),
    "session-id": (
        "tools/list",
        {},
        _headers("tools/list", **{"mcp-session-id": "left-over-session"}),
        "session-id-in-2026",
    ),
    "removed-ping": ("ping", {}, _headers("ping"), "method-removed"),
    "missing-name": (
        "resources/read",
        {"uri": "demo://readme"},
        _headers("resources/read"),
        "routing-header-missing",
    ),
}


# What the server's answer adds, beside the request's one finding: told with a 2025-11-25 header, the
# SDK server takes the header's word and answers as a handshake-era server would (no session yet: an
# error with id null, and a freshly minted Mcp-Session-Id), both true findings about that answer.
SERVER_ANSWER = {"version-header": [("error-id-null", 1), ("session-id-in-2026", 1)]}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    db = tmp_path_factory.mktemp("routing") / "routing.db"
    server = LineProcess([sys.executable, str(PEER)])
    try:
        target = server.wait_for(r"listening on (\S+)").group(1)
        with proxy_in_process(target, db, "--name", "routing") as (url, _proxy):

            async def sdk() -> None:
                with anyio.fail_after(60):
                    async with mcp.Client(url, mode="auto") as client:
                        assert client.protocol_version == REV
                        await client.list_tools()
                        done = await client.call_tool("forecast", {"region": REGION, "days": 2})
                        assert REGION in str(done.content)
                        await client.read_resource("demo://readme")
                        await client.get_prompt("review_code", {"code": "x = 1"})

            anyio.run(sdk)
            with httpx.Client(timeout=30) as http:
                for n, (case, (method, params, headers, _rule)) in enumerate(CASES.items(), start=100):
                    marker = f"hand-{case}-{uuid.uuid4().hex[:6]}"
                    if case == "mcp-param":  # the tool's schema is recorded beside the call
                        body = {"jsonrpc": "2.0", "id": n + 1000, "method": "tools/list"}
                        body["params"] = {"_meta": _meta(marker)}
                        http.post(url, content=orjson.dumps(body), headers=_headers("tools/list"))
                    body = {
                        "jsonrpc": "2.0",
                        "id": n,
                        "method": method,
                        "params": {**params, "_meta": _meta(marker)},
                    }
                    http.post(url, content=orjson.dumps(body), headers=headers)
        yield db
    finally:
        server.stop()


def _rows(db: Path) -> list[tuple[int, Any]]:
    engine = open_engine(db)
    out = []
    for session in list_sessions(engine, limit=1000):
        assert session.id is not None
        out += [(session.id, m) for m in iter_messages(engine, session.id)]
    return out


def test_sdk_traffic_routing_headers_are_decoded_and_agree(recorded: Path) -> None:
    engine = open_engine(recorded)
    seen: dict[str, dict[str, Any]] = {}
    for session in list_sessions(engine, limit=1000):
        assert session.id is not None
        for ex in group_exchanges(list(iter_rows(engine, session.id))):
            routing = ex["routing"]
            request = next((m for m in ex["messages"] if m["channel"] == "http-request"), None)
            if routing is None or request is None or b"hand-" in bytes(request["raw"]):
                continue
            for h in routing["headers"]:
                seen[h["name"].lower()] = h
                assert h["status"] in ("agrees", "unchecked"), h
    region = seen["mcp-param-region"]
    assert region["raw"] == encode_value(REGION) and region["raw"].startswith("=?base64?")
    assert (region["decoded"], region["status"], region["encoded"]) == (REGION, "agrees", True)
    assert {"mcp-method", "mcp-name", "mcp-protocol-version"} <= set(seen)


def test_sdk_traffic_is_lint_clean_of_wire_rules(recorded: Path) -> None:
    engine = open_engine(recorded)
    hand = {(sid, m.seq) for sid, m in _rows(recorded) if m.raw is not None and b"hand-" in bytes(m.raw)}
    found = []
    for session in list_sessions(engine, limit=1000):
        assert session.id is not None
        hand_exchanges = {
            (m.meta or {}).get("exchange")
            for m in iter_messages(engine, session.id)
            if (session.id, m.seq) in hand
        }
        for f in lint_session(engine, session.id):
            row = next(m for m in iter_messages(engine, session.id, after_seq=f.seq - 1, limit=1))
            if (row.meta or {}).get("exchange") not in hand_exchanges and f.severity != "info":
                found.append((f.rule, f.explanation))
    assert found == []


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_hand_made_violation_gives_exactly_its_finding(recorded: Path, case: str) -> None:
    engine = open_engine(recorded)
    rule = CASES[case][3]
    for session in list_sessions(engine, limit=1000):
        assert session.id is not None
        rows = list(iter_messages(engine, session.id))
        mine = [m for m in rows if m.raw is not None and f"hand-{case}-".encode() in bytes(m.raw)]
        if not mine:
            continue
        request = mine[-1]
        exchange = (request.meta or {}).get("exchange")
        seqs = {m.seq for m in rows if (m.meta or {}).get("exchange") == exchange}
        findings = [f for f in lint_session(engine, session.id) if f.seq in seqs]
        assert [(f.rule, f.seq) for f in findings if f.seq == request.seq] == [(rule, request.seq)]
        answer = sorted((f.rule, f.seq - request.seq) for f in findings if f.seq != request.seq)
        assert answer == SERVER_ANSWER.get(case, [])
        return
    pytest.fail(f"the {case} request was not recorded")
