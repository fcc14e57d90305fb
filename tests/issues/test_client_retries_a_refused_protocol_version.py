"""Issue #38 (conformance 0.2.0-alpha.12, `request-metadata`): a 2026-07-28 server may refuse a
request with UnsupportedProtocolVersion (-32022) naming the revisions it speaks (`data.supported`).
Our client stopped there (`call` printed the error, exit 1); it now retries `server/discover` once
with a revision both speak, and carries on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.cli_in_process import Ran
from tests.conformance.json_peer import json_peer

MODERN = "2026-07-28"


def _refuse_first(
    message: dict[str, Any], headers: dict[str, str], refused: list[bool]
) -> tuple[int, Any] | None:
    if "id" not in message:
        return None
    if message["method"] == "server/discover" and not refused:
        refused.append(True)
        error = {"code": -32022, "message": "Unsupported protocol version",
                 "data": {"supported": [MODERN], "requested": headers.get("mcp-protocol-version")}}  # fmt: skip
        return 400, {"jsonrpc": "2.0", "id": message["id"], "error": error}
    if message["method"] == "server/discover":
        result = {"resultType": "complete", "supportedVersions": [MODERN], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "peer", "version": "1"}, "ttlMs": 0, "cacheScope": "private"}  # fmt: skip
        return 200, {"jsonrpc": "2.0", "id": message["id"], "result": result}
    result = {"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "private"}
    return 200, {"jsonrpc": "2.0", "id": message["id"], "result": result}


def test_a_refused_discover_is_retried_with_a_supported_revision(mcp_inspect: Any, tmp_path: Path) -> None:
    refused: list[bool] = []
    with json_peer(lambda m, h: _refuse_first(m, h, refused)) as peer:
        done: Ran = mcp_inspect(
            "call", "tools/list", "--url", peer.url, "--protocol-version", MODERN,
            "--timeout", "10", "--db", str(tmp_path / "rec.db"),
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"tools": []' in done.stdout
    assert peer.methods() == ["server/discover", "server/discover", "tools/list"]
    retry = peer.requests[1]
    assert retry[1]["mcp-protocol-version"] == MODERN
    assert retry[0]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == MODERN
