"""Issue #38 (conformance `http-invalid-tool-headers`, SEP-2243): a client MUST exclude a tool whose
`x-mcp-header` annotations are invalid (empty, not a header-name token, declared twice in any case,
or on a property that is not a string, integer or boolean) and keep using the valid ones. The
conformance client command called every listed tool.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspector.protocol.routing_headers import invalid_param_headers
from tests.cli_in_process import Ran
from tests.conformance.json_peer import json_peer

MODERN = "2026-07-28"


def _tool(name: str, **props: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": props, "required": list(props)}}


TOOLS = [
    _tool(
        "valid",
        region={"type": "string", "x-mcp-header": "Region"},
        n={"type": "integer", "x-mcp-header": "N"},
    ),
    _tool("empty", v={"type": "string", "x-mcp-header": ""}),
    _tool("space", v={"type": "string", "x-mcp-header": "My Region"}),
    _tool("colon", v={"type": "string", "x-mcp-header": "Region:Primary"}),
    _tool("non_ascii", v={"type": "string", "x-mcp-header": "Région"}),
    _tool("object", v={"type": "object", "x-mcp-header": "Data"}),
    _tool("number", v={"type": "number", "x-mcp-header": "Score"}),
    _tool(
        "twice", a={"type": "string", "x-mcp-header": "Field"}, b={"type": "string", "x-mcp-header": "field"}
    ),
]


def _answer(message: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any] | None:
    if "id" not in message:
        return None
    result: dict[str, Any] = {"resultType": "complete"}
    if message["method"] == "server/discover":
        result |= {"supportedVersions": [MODERN], "capabilities": {"tools": {}},
                   "serverInfo": {"name": "peer", "version": "1"}, "ttlMs": 0, "cacheScope": "private"}  # fmt: skip
    elif message["method"] == "tools/list":
        result |= {"tools": TOOLS, "ttlMs": 0, "cacheScope": "private"}
    else:
        result |= {"content": []}
    return 200, {"jsonrpc": "2.0", "id": message["id"], "result": result}


@pytest.mark.parametrize("tool", TOOLS, ids=[t["name"] for t in TOOLS])
def test_each_annotation_is_judged(tool: dict[str, Any]) -> None:
    assert (invalid_param_headers(tool["inputSchema"]) is None) == (tool["name"] == "valid")


def test_only_the_valid_tool_is_called(mcp_inspect: Any, tmp_path: Path) -> None:
    with json_peer(_answer) as peer:
        done: Ran = mcp_inspect(
            "conformance", "client", peer.url, "--scenario", "http-invalid-tool-headers",
            "--protocol-version", MODERN, "--no-auth", "--timeout", "10", "--db", str(tmp_path / "rec.db"),
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    called = [m["params"]["name"] for m, _ in peer.requests if m.get("method") == "tools/call"]
    assert called == ["valid"], done.stdout
    call = next(h for m, h in peer.requests if m.get("method") == "tools/call")
    assert call["mcp-name"] == "valid" and call["mcp-param-region"] == "test" and call["mcp-param-n"] == "1"
