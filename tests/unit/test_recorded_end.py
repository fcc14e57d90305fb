"""`mock.script.recorded_ends` and the `end` action in a recorded script (pure, hand-made rows)."""

from __future__ import annotations

from typing import Any

from inspector.mock.script import RecordedScript, recorded_ends
from inspector.store import Message
from tests.lint_recordings import Http, Stdio, request, result


def _messages(rows: list[dict[str, Any]]) -> list[Message]:
    return [Message(session_id=1, **{k: v for k, v in r.items() if k != "session_id"}) for r in rows]


def _stdio() -> tuple[list[Message], int]:
    s = Stdio().handshake()
    s.send("c2s", request(1, "tools/list"))
    s.send("s2c", result(1, {"tools": []}))
    last = s.send("c2s", request(2, "tools/call", {"name": "crash", "arguments": {}}))
    return _messages(s.rows), last


def test_a_server_exit_ends_the_reaction_to_the_clients_last_message() -> None:
    rows, last = _stdio()
    ends = recorded_ends(rows, 3, "server-exit")
    assert list(ends) == [last] and ends[last].payload["exit_status"] == 3
    assert ends[last].payload["scope"] == "connection"
    script = RecordedScript.from_rows(rows, ends=ends)
    reaction, _miss = script.react(
        {"id": 9, "method": "tools/call", "params": {"name": "crash", "arguments": {}}}
    )
    assert reaction is not None and [a.kind for a in reaction.actions] == ["end"]


def test_a_client_that_left_is_not_the_servers_end() -> None:
    rows, _last = _stdio()
    assert recorded_ends(rows, 0, "client-eof") == {}
    assert recorded_ends(rows, -15, "client-eof, server terminated") == {}


def test_an_upstream_failure_over_http_ends_that_request() -> None:
    h = Http().handshake()
    headers = {"mcp-session-id": "sid-1", "mcp-protocol-version": "2025-11-25"}
    broken = h.post(request(5, "tools/call", {"name": "x", "arguments": {}}), headers, status=502)
    rows = _messages(h.rows)
    ends = recorded_ends(rows, None, "proxy stopped")
    assert list(ends) == [broken]
    assert ends[broken].payload["http_status"] == 502
    assert ends[broken].payload["scope"] == "exchange"  # the proxy's session went on
