"""A real MCP server (the official Python SDK's MCPServer, stdio) that shows the command line it was given.

Usage: python argv_server.py [ANY ARGS...]   (the arguments are not parsed: they are the point)

Its tool `argv` answers with the arguments (after the script's path), one per line. When
$ARGV_LOG is set, the arguments are also appended to that file as one JSON list per start, so a
test can see what a replay or a mock client really ran, without it passing through a recording.
"""

from __future__ import annotations

import json
import os
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("argv", version="1.0.0", log_level="WARNING")


@server.tool(structured_output=False, description="The server's command-line arguments, one per line.")
def argv() -> str:
    return "\n".join(sys.argv[1:])


if __name__ == "__main__":
    log = os.environ.get("ARGV_LOG")
    if log:
        with open(log, "a") as f:
            f.write(json.dumps(sys.argv[1:]) + "\n")
    server.run("stdio")
