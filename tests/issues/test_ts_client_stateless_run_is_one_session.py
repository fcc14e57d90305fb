"""One run of the TypeScript SDK client against a stateless server is one recorded session.

What was wrong: a request without `Mcp-Session-Id` and without a 2026-07-28 client identity was
keyed by its client connection. The TypeScript SDK's fetch pool sends sequential requests over
alternating keep-alive connections, so one run against a stateless Python SDK server
(`stateless_http=True, json_response=True`) became 3 sessions, two without the handshake
(`client ? <-> server ?`), and `mock-server` of the first answered that same client `-32050 no
recorded request with method 'tools/list'`. Now such requests are grouped by their peer (the
client's address without the port, User-Agent, Authorization fingerprint) across connections, a
new `initialize` starting the peer's next run, and the session ends once none of its connections
has been open for `--peer-gap` seconds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from inspector.protocol.client_identity import opens_session, peer_key
from inspector.protocol.http_exchange import SessionRouter
from inspector.store import iter_messages, list_sessions, open_engine
from tests.conftest import PEERS
from tests.http_peers import LineProcess, inspector_proxy
from tests.listeners import mock_server_http
from tests.warm_peers import peer_argv

CLIENT = PEERS / "ts_run_client.mjs"


@contextmanager
def _stateless_json_server() -> Iterator[str]:
    server = LineProcess(peer_argv("tests.peers.stateless_json_server"))  # the demo's SDK: forked warm
    try:
        yield server.wait_for(r"listening on (\S+)").group(1)
    finally:
        server.stop()


def _ts_run(url: str) -> dict:  # type: ignore[type-arg]
    if shutil.which("node") is None or not (PEERS / "node_modules" / "@modelcontextprotocol").exists():
        pytest.fail("node and the TS SDK are needed: run `make peers`")
    done = subprocess.run(["node", str(CLIENT), url], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_ts_client_run_is_one_session_and_its_mock_serves_it_whole(db_path: Path) -> None:
    with _stateless_json_server() as target, inspector_proxy(target, db_path, warm=True) as (url, _proxy):
        direct = _ts_run(url)
    assert direct["echo"] == "hello" and direct["session"] is None  # a stateless server: no session id
    engine = open_engine(db_path)
    sessions = [s for s in list_sessions(engine) if s.message_count]
    assert len(sessions) == 1, [(s.id, s.message_count, s.client_info) for s in sessions]
    session = sessions[0]
    assert session.client_info == {"name": "ts-run-client", "version": "1.2.3"}
    assert session.server_info and session.server_info["name"] == "inspector-demo"
    assert session.protocol_version == "2025-11-25"
    grouping = (session.facts or {}).get("grouping")
    assert grouping and grouping["by"] == "peer" and len(grouping["connections"]) >= 2, grouping
    methods = [m.method for m in iter_messages(engine, session.id) if m.kind == "request"]
    assert methods == ["initialize", "tools/list", "tools/call", "resources/list", "prompts/list"]
    engine.dispose()

    with mock_server_http(db_path, str(session.id), warm=True) as mock_url:
        mocked = _ts_run(mock_url)
    assert {k: v for k, v in mocked.items() if k != "session"} == {
        k: v for k, v in direct.items() if k != "session"
    }


def _post(method: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {}}).encode()


def test_router_groups_a_peer_across_connections_and_splits_runs_at_initialize() -> None:
    made: list[str] = []
    router = SessionRouter(lambda hint: made.append(hint) or len(made), idle_after=300, peer_gap=30)
    node = peer_key("127.0.0.1", b"node", None)
    first, _ = router.route(None, "", "127.0.0.1:5001", peer=node, opening=opens_session(_post("initialize")))
    router.begin(first, 0.0)
    router.finish(first, 0.1)
    for conn in ("127.0.0.1:5002", "127.0.0.1:5001", "127.0.0.1:5002"):  # the pool alternates
        sid, _ = router.route(None, "", conn, peer=node, opening=opens_session(_post("tools/list")))
        assert sid == first
    assert router.grouping(first)["connections"] == [1, 2]  # type: ignore[index]
    # Another User-Agent on the same address is another peer.
    other, _ = router.route(None, "", "127.0.0.1:5003", peer=peer_key("127.0.0.1", b"python-httpx", None))
    assert other != first
    # A connection closing does not end the run; none open for peer_gap seconds does.
    assert router.connection_closed("127.0.0.1:5001") is None
    assert router.connection_closed("127.0.0.1:5002") is None
    assert first not in router.idle(0.1 + 29)
    assert first in router.idle(0.1 + 30)
    # The peer's next initialize (even on a kept-alive connection) is its next run.
    again, _ = router.route(None, "", "127.0.0.1:5004", peer=node, opening=True)
    assert again not in (first, other)
    # A stateful server's session id takes over: the peer's next request elsewhere is not pulled in.
    router.bind_mcp_session(("conn", "127.0.0.1:5004"), "abc")
    assert router.route("abc", "", "127.0.0.1:5005", peer=node)[0] == again
    assert router.route(None, "", "127.0.0.1:5006", peer=node)[0] not in (first, other, again)
