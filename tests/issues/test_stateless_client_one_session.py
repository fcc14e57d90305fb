"""A 2026-07-28 client without a session id is one recorded session, whatever its connections.

What was wrong: the proxy keyed a request without `Mcp-Session-Id` by the client connection. The
Python SDK's httpx pool opens another connection while one holds an SSE answer, so one run of the
demo driver was recorded as two sessions (the lint test said "a stateless HTTP run may be recorded
as several sessions"). Now such requests are grouped by the client identity they declare in
`_meta` (real peers: tests/integration/test_conversations.py); this is the router's rule alone.
"""

from __future__ import annotations

import json

from inspector.protocol.client_identity import client_identity
from inspector.protocol.http_exchange import CLIENT_GRACE, SessionRouter


def _body(name: str) -> bytes:
    meta = {"io.modelcontextprotocol/clientInfo": {"name": name, "version": "2.0"}}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}).encode()


def test_one_client_over_two_connections_is_one_session() -> None:
    made: list[str] = []
    router = SessionRouter(lambda hint: made.append(hint) or len(made), idle_after=300)
    who = client_identity(_body("sdk"), None)
    first, _ = router.route(None, "", "127.0.0.1:5001", who)
    router.begin(first, 0.0)
    second, _ = router.route(None, "", "127.0.0.1:5002", who)  # while the first holds a stream
    assert first == second and made == ["client sdk 2.0"]
    assert router.grouping(first) == {
        "by": "client-identity", "client": "sdk 2.0", "auth": None, "connections": [1, 2],
        "idle_gap_s": 300, "closed_gap_s": CLIENT_GRACE,
    }  # fmt: skip
    router.finish(first, 1.0)
    # Another client, or the same one with another Authorization, is another session.
    other, _ = router.route(None, "", "127.0.0.1:5003", client_identity(_body("other"), None))
    token, _ = router.route(None, "", "127.0.0.1:5004", client_identity(_body("sdk"), b"Bearer secret"))
    assert len({first, other, token}) == 3
    assert router.grouping(token)["auth"].startswith("sha256:")  # type: ignore[index]
    assert "secret" not in json.dumps(router.grouping(token))
    # Over once none of its connections has been open for CLIENT_GRACE seconds.
    assert router.connection_closed("127.0.0.1:5001") is None
    assert first not in router.idle(2.0 + CLIENT_GRACE)
    assert router.connection_closed("127.0.0.1:5002") is None
    assert first in router.idle(1.0 + CLIENT_GRACE)
