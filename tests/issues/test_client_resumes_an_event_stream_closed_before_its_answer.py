"""Issue #38 (conformance `sse-retry`, SEP-1699): a server may close a request's event stream before
the answer, after giving its events ids and a `retry`; the client is to wait `retry` milliseconds and
resume with a GET carrying `Last-Event-ID`, where the answer then comes. Our client waited for the
answer on the closed stream until its timeout (`call` failed after --timeout).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.cli_in_process import Ran
from tests.conformance.json_peer import json_peer

RETRY_MS = 300


def _post(message: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any] | None:
    if "id" not in message:
        return None
    if message["method"] == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "peer", "version": "1"}}  # fmt: skip
        return 200, {"jsonrpc": "2.0", "id": message["id"], "result": result}
    # tools/call: a primed stream, closed before the answer
    return 200, f"id: e1\nretry: {RETRY_MS}\ndata: \n\n".encode()


def _get(headers: dict[str, str], closed: list[float], pending: list[Any]) -> tuple[int, Any] | None:
    if headers.get("last-event-id") != "e1" or not pending:
        return None
    answer = {
        "jsonrpc": "2.0",
        "id": pending[0],
        "result": {"content": [{"type": "text", "text": "resumed"}]},
    }
    return 200, f"id: e2\ndata: {json.dumps(answer)}\n\n".encode()


def test_a_closed_stream_is_resumed_with_last_event_id(mcp_inspect: Any, tmp_path: Path) -> None:
    pending: list[Any] = []
    closed: list[float] = []

    def post(message: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any] | None:
        if message.get("method") == "tools/call":
            pending.append(message["id"])
            closed.append(time.monotonic())
        return _post(message, headers)

    with json_peer(post, lambda h: _get(h, closed, pending)) as peer:
        done: Ran = mcp_inspect(
            "call", "tools/call", "--params", '{"name": "slow", "arguments": {}}', "--url", peer.url,
            "--timeout", "8", "--db", str(tmp_path / "rec.db"),
        )  # fmt: skip
        resumed_at = time.monotonic()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "resumed" in done.stdout
    resumes = [g for g in peer.gets if g.get("last-event-id")]
    assert [g["last-event-id"] for g in resumes] == ["e1"]
    assert resumed_at - closed[0] >= RETRY_MS / 1000  # waited the server's retry first
