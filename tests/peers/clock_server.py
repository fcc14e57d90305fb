"""A small SDK server whose answers carry the time: `greet` says hello and when, `now` only when;
`$GREETING` changes the greeting word (a real change), the time changes on its own (volatile)."""

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


@server.tool()
def now() -> str:
    """The time, to the nanosecond (it differs in every call)."""
    return f"The time is {time.strftime('%H:%M:%S')} ({time.time_ns()} ns)."


if __name__ == "__main__":
    server.run("stdio")
