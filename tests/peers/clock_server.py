"""A small SDK server whose answers carry the time: `greet` says hello and when; `$GREETING`
changes the greeting word (a real change), the time changes on its own (volatile)."""

from __future__ import annotations

import os
import time

from mcp.server.mcpserver import MCPServer

server = MCPServer("clock")


@server.tool()
def greet(name: str) -> str:
    """Greet `name`, saying when."""
    word = os.environ.get("GREETING", "Hello")
    return f"{word}, {name}! It is {time.strftime('%H:%M:%S')} ({time.time_ns()} ns)."


if __name__ == "__main__":
    server.run("stdio")
