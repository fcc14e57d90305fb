"""Multi-round-trip conversations, retry pairs and sessions without a session id (issue 18).

Real peers: the official Python SDK 2.x client against the demo server at 2026-07-28 through
`mcp-inspect proxy`; a hand-made client re-issuing a request whose answer the proxy's
`disconnect` fault cut; the recorded sessions read back through the UI's API.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp
import pytest
from mcp_types import Implementation

from inspector.api.server import UiServer
from inspector.demo.driver import drive_demo
from inspector.replay.diff import diff_sessions
from inspector.store import list_sessions, open_engine
from inspector.store.queries import iter_messages
from tests.cli_in_process import run
from tests.http_peers import demo_http_server, proxy_in_process
from tests.shim_process import ended_named
from tests.warm_peers import demo_argv, inspector_argv

MRTR_TOOLS = {
    "ask_llm": "sampling/createMessage",
    "book_table": "elicitation/create",
    "list_client_roots": "roots/list",
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, httpx.Client]]:
    """Two runs of the demo driver (`auto`: server/discover first; `2026-07-28`: not, so every id
    is one lower), each through its own proxy, into one database; the UI's API over it."""
    db = tmp_path_factory.mktemp("conversations") / "rec.db"
    with demo_http_server(warm=True) as target:
        for mode in ("auto", "2026-07-28"):
            with proxy_in_process(target, db, "--name", f"demo-{mode}") as (url, _proxy):
                report = anyio.run(lambda u=url, m=mode: drive_demo(u, mode=m))
                assert report.protocol_version == "2026-07-28"
    server = UiServer(open_engine(db), port=0).start()
    with httpx.Client(base_url=server.base_url, headers={"authorization": f"Bearer {server.token}"}) as http:
        yield db, http
    server.stop()


def _sessions(db: Path, name: str) -> list[Any]:
    engine = open_engine(db)
    try:
        return [s for s in list_sessions(engine, limit=1000) if s.name == name and s.message_count]
    finally:
        engine.dispose()


def test_one_client_run_is_one_session_grouped_by_its_identity(recorded: tuple[Path, httpx.Client]) -> None:
    db, http = recorded
    for mode in ("auto", "2026-07-28"):
        (session,) = _sessions(db, f"demo-{mode}")  # the SDK's pool used several connections
        grouping = session.facts["grouping"]
        assert grouping["by"] == "client-identity"
        assert grouping["client"] == "inspector-demo-driver 0.1.0" and grouping["auth"] is None
        assert grouping["connections"] and grouping["idle_gap_s"] == 300
        doc = http.get(f"/api/sessions/{session.id}").json()
        assert doc["facts"]["grouping"] == grouping


def test_show_says_how_the_session_was_grouped(recorded: tuple[Path, httpx.Client]) -> None:
    db, _http = recorded
    (session,) = _sessions(db, "demo-auto")
    shown = run("show", str(session.id), "--db", str(db), env={"COLUMNS": "80"})
    assert shown.returncode == 0, shown.stderr
    words = " ".join(shown.stdout.split())
    assert "grouped by client identity inspector-demo-driver 0.1.0, connection" in words
    assert "idle gap 300 s" in words
    assert all(len(line) <= 80 for line in shown.stdout.splitlines())


def test_wrap_records_the_same_conversations(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    # The wrap and the demo: processes forked from the warm server (tests/warm_peers.py).
    argv = inspector_argv("wrap", "--quiet", "--db", str(db), "--name", "wrapped", "--", *demo_argv())
    command = mcp.StdioServerParameters(command=argv[0], args=argv[1:])
    assert anyio.run(lambda: drive_demo(command, mode="auto")).protocol_version == "2026-07-28"
    ended_named(db, "wrapped")  # see tests/shim_process.py
    (session,) = _sessions(db, "wrapped")
    server = UiServer(open_engine(db), port=0).start()
    try:
        with httpx.Client(
            base_url=server.base_url, headers={"authorization": f"Bearer {server.token}"}
        ) as ui:
            doc = ui.get(f"/api/sessions/{session.id}/conversations").json()
    finally:
        server.stop()
    assert {c["name"]: [r["result_type"] for r in c["rounds"]] for c in doc["conversations"]} == {
        name: ["input_required", "complete"] for name in MRTR_TOOLS
    }
    assert "grouping" not in (session.facts or {})  # one process, one session: nothing to group


def test_input_required_calls_are_conversations_with_rounds(recorded: tuple[Path, httpx.Client]) -> None:
    db, http = recorded
    (session,) = _sessions(db, "demo-auto")
    doc = http.get(f"/api/sessions/{session.id}/conversations").json()
    assert doc["retries"] == []
    by_name = {c["name"]: c for c in doc["conversations"]}
    assert set(by_name) == set(MRTR_TOOLS)
    for name, asked in MRTR_TOOLS.items():
        conv = by_name[name]
        assert conv["method"] == "tools/call" and conv["outcome"] == "complete"
        first, second = conv["rounds"]
        assert (first["n"], second["n"]) == (1, 2) and first["rpc_id"] != second["rpc_id"]
        assert first["result_type"] == "input_required" and list(first["input_requests"].values()) == [asked]
        assert (
            second["input_responses"] == list(first["input_requests"]) and second["result_type"] == "complete"
        )
        assert conv["final_seq"] == second["response_seq"] and conv["id"] == first["request_seq"]
        # Every message of the conversation is annotated, the final answer as such.
        marks = {
            s: doc["by_seq"][str(s)]["conversation"] for s in (first["request_seq"], second["response_seq"])
        }
        assert marks[first["request_seq"]] == {
            "id": conv["id"], "round": 1, "rounds": 2, "outcome": "complete", "role": "request"
        }  # fmt: skip
        assert marks[second["response_seq"]]["role"] == "final"
        # The page of messages says the same rows answered with input_required and then complete.
        rows = http.get(f"/api/sessions/{session.id}/messages/{second['request_seq']}").json()
        assert "inputResponses" in rows["message"]["raw"] and "requestState" in rows["message"]["raw"]
    # A plain call is no conversation.
    assert all(c["name"] in MRTR_TOOLS for c in doc["conversations"])
    assert http.get("/api/sessions/99999/conversations").status_code == 404


def test_diff_of_the_same_conversations_with_other_ids_is_equal(recorded: tuple[Path, httpx.Client]) -> None:
    db, _http = recorded
    (a,) = _sessions(db, "demo-auto")
    (b,) = _sessions(db, "demo-2026-07-28")
    engine = open_engine(db)
    try:
        diff = diff_sessions(list(iter_messages(engine, a.id)), list(iter_messages(engine, b.id)))
    finally:
        engine.dispose()
    rounds = [x for x in diff.exchanges if " · round " in x.summary]
    assert len(rounds) == 6 and all(x.status == "equal" for x in rounds), [x.to_json() for x in rounds]
    assert {x.summary for x in rounds} >= {"tools/call name=book_table · round 2 of 2"}
    # The only difference: run a asked server/discover first (so every later id differs by one).
    assert [(x.status, x.method) for x in diff.exchanges if x.status != "equal"] == [
        ("missing", "server/discover")
    ]


async def _client(url: str, name: str, calls: int) -> None:
    client = mcp.Client(
        url, mode="2026-07-28", client_info=Implementation(name=name, version="1.0"), cache=None
    )
    async with client:
        for i in range(calls):
            await client.call_tool("echo", {"text": f"{name} {i}"})


def test_several_clients_without_session_ids_are_told_apart(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"

    async def both(url: str) -> None:
        await asyncio.gather(_client(url, "alpha", 6), _client(url, "beta", 4))

    with demo_http_server(warm=True) as target, proxy_in_process(target, db) as (url, _proxy):
        asyncio.run(both(url))
    engine = open_engine(db)
    try:
        found = {}
        for s in list_sessions(engine):
            if not s.message_count:
                continue
            found[s.facts["grouping"]["client"]] = s
            # Every request of a session declares that session's client.
            for m in iter_messages(engine, s.id):
                if m.kind == "request":
                    info = json.loads(m.raw)["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]
                    assert f"{info['name']} {info['version']}" == s.facts["grouping"]["client"]
        assert set(found) == {"alpha 1.0", "beta 1.0"}
        calls = {k: sum(1 for m in iter_messages(engine, s.id) if m.method == "tools/call" and m.kind == "request")
                 for k, s in found.items()}  # fmt: skip
        assert calls == {"alpha 1.0": 6, "beta 1.0": 4}
    finally:
        engine.dispose()


CUT_RULES = """\
seed: 18
rules:
  - name: cut-answer
    match: {kind: response, where: ['result.content[0].text == "cut-once"']}
    action: disconnect
    count: 1
"""


def _call(rpc_id: int, text: str) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "retrying-client", "version": "0.1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": "echo", "arguments": {"text": text}, "_meta": meta}
    return {"jsonrpc": "2.0", "id": rpc_id, "method": "tools/call", "params": params}


def test_a_cut_answer_then_a_reissued_request_is_a_retry_pair(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    rules = tmp_path / "rules.yaml"
    rules.write_text(CUT_RULES)
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "echo",
    }
    with (
        demo_http_server(warm=True) as target,
        proxy_in_process(target, db, "--faults", str(rules)) as (url, _proxy),
        httpx.Client(timeout=10) as http,
    ):
        assert http.post(url, json=_call(1, "before"), headers=headers).status_code == 200
        with pytest.raises(httpx.TransportError):  # the answer never arrives: the connection drops
            http.post(url, json=_call(2, "cut-once"), headers=headers)
        again = http.post(url, json=_call(3, "cut-once"), headers=headers)  # re-issued, a new id
        assert again.json()["result"]["content"][0]["text"] == "cut-once"
    engine = open_engine(db)
    (session,) = [s for s in list_sessions(engine) if s.message_count]
    engine.dispose()
    server = UiServer(open_engine(db), port=0).start()
    try:
        with httpx.Client(
            base_url=server.base_url, headers={"authorization": f"Bearer {server.token}"}
        ) as ui:
            doc = ui.get(f"/api/sessions/{session.id}/conversations").json()
            (pair,) = doc["retries"]
            original = ui.get(f"/api/sessions/{session.id}/messages/{pair['original']}").json()["message"]
            retry = ui.get(f"/api/sessions/{session.id}/messages/{pair['retry']}").json()["message"]
    finally:
        server.stop()
    assert (original["rpc_id"], retry["rpc_id"]) == ("2", "3") and pair["method"] == "tools/call"
    assert "not delivered" in pair["broken"]
    assert doc["by_seq"][str(pair["retry"])]["retry_of"] == pair["original"]
    assert doc["by_seq"][str(pair["original"])]["retried_by"] == pair["retry"]
    assert doc["conversations"] == []
    assert session.facts["grouping"]["client"] == "retrying-client 0.1"
