"""A real MCP server (the official Python SDK's MCPServer, stdio) that can exit in the middle of a session.

Usage: python exiting_server.py

Tools: `echo` answers with its text; `crash` writes a line on stderr and exits the process with
the given status (`os._exit`: no answer, no clean shutdown), as a server that dies on a request.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("exiting", version="1.0.0", log_level="WARNING")


@server.tool(structured_output=False, description="Echo the text.")
def echo(text: str) -> str:
    return text


@server.tool(structured_output=False, description="Exit the server process with this status, unanswered.")
def crash(status: int = 3) -> str:
    sys.stderr.write(f"crashing with status {status}\n")
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    server.run("stdio")
