"""A raw NDJSON MCP server whose every name is hostile to a terminal (issue 33).

Its `serverInfo.name`, its one tool's name, a line on stderr and a notification's method hold a
clipboard write (OSC 52), a screen clear (CSI 2J), a window title (OSC 0 ... BEL), a C1 CSI
(U+009B) and DEL: what a terminal would execute if the inspector printed them raw. It answers
`initialize`, `tools/list` and `tools/call`; anything else gets method-not-found.
"""

import json
import sys

HOSTILE = "evil\x1b]52;c;aGk=\x1b\\ \x1b[2J \x1b]0;pwned\x07 \x9b31m \x7f"


def send(message: dict) -> None:
    sys.stdout.buffer.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    sys.stdout.buffer.flush()


for line in sys.stdin.buffer:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
        continue
    method, rid = msg["method"], msg["id"]
    if method == "initialize":
        sys.stderr.write(f"starting {HOSTILE}\n")
        sys.stderr.flush()
        version = (msg.get("params") or {}).get("protocolVersion", "2025-06-18")
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": HOSTILE, "version": "1.0"},
        }
        send({"jsonrpc": "2.0", "id": rid, "result": result})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "method": HOSTILE, "params": {}})
        tool = {"name": HOSTILE, "description": HOSTILE, "inputSchema": {"type": "object"}}
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [tool]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": HOSTILE}]}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no {method}"}})
