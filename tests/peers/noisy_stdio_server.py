"""A stdio MCP server that breaks the stdio rules the common ways (issue 37, item 3).

Usage: python noisy_stdio_server.py

No SDK: it writes its stdout by hand. It prints a banner before any JSON, a log line (timestamp and
level) while answering initialize, a pretty-printed (multi-line) log notification before its
tools/list answer, and on tools/call `explode` raises an uncaught exception: Python writes the
traceback on stderr and the process exits with the request unanswered. Other answers are one line.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def send(message: dict[str, Any], indent: int | None = None) -> None:
    sys.stdout.write(json.dumps(message, indent=indent) + "\n")
    sys.stdout.flush()


def main() -> None:
    print("== noisy weather server 0.1 ==", flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        method, rpc_id = message.get("method"), message.get("id")
        if method == "initialize":
            print("2025-06-01 12:00:00,001 INFO handling initialize", flush=True)
            version = message["params"]["protocolVersion"]
            info = {"name": "noisy", "version": "0.1"}
            send(
                {
                    "jsonrpc": "2.0",
                    "id": rpc_id,
                    "result": {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info},
                }
            )
        elif method == "tools/list":
            note = {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "listing"},
            }
            send(note, indent=2)
            tool = {"name": "explode", "inputSchema": {"type": "object"}}
            send({"jsonrpc": "2.0", "id": rpc_id, "result": {"tools": [tool]}})
        elif method == "tools/call":
            raise ValueError(f"cannot {message['params']['name']}")
        elif rpc_id is not None:
            send({"jsonrpc": "2.0", "id": rpc_id, "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()
