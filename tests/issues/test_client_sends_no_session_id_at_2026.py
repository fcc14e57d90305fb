"""Issue #38 (lint `session-id-in-2026` on the sessions of the conformance `http-*` scenarios):
2026-07-28 has no sessions, yet a server may still answer with an `Mcp-Session-Id` header; our
client kept it and sent it back on every later request (and a DELETE at the end).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.cli_in_process import Ran
from tests.conformance.json_peer import json_peer

MODERN = "2026-07-28"


def _answer(message: dict[str, Any], headers: dict[str, str]) -> tuple[Any, ...] | None:
    if "id" not in message:
        return None
    result: dict[str, Any] = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
    if message["method"] == "server/discover":
        result |= {"supportedVersions": [MODERN], "capabilities": {"tools": {}},
                   "serverInfo": {"name": "peer", "version": "1"}}  # fmt: skip
    else:
        result |= {"tools": []}
    return 200, {"jsonrpc": "2.0", "id": message["id"], "result": result}, {"mcp-session-id": "s-1"}


def test_no_session_id_is_sent_back(mcp_inspect: Any, tmp_path: Path) -> None:
    with json_peer(_answer) as peer:
        done: Ran = mcp_inspect(
            "call", "tools/list", "--url", peer.url, "--protocol-version", MODERN,
            "--timeout", "10", "--db", str(tmp_path / "rec.db"),
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert peer.methods() == ["server/discover", "tools/list"]
    assert [h.get("mcp-session-id") for _, h in peer.requests] == [None, None]
    lint = mcp_inspect("lint", "last", "--db", str(tmp_path / "rec.db"))
    assert "the client sent an Mcp-Session-Id" not in lint.stdout, lint.stdout
