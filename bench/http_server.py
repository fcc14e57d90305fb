"""The HTTP bench's MCP server: the official Python SDK (`mcp` 2.x `MCPServer`) over Streamable HTTP.

    python bench/http_server.py --mode json|sse [--port 0]

server-everything cannot answer a POST with `application/json` (its
streamableHttp transport never sets the TS SDK's `enableJsonResponse`), so
the bench runs this server twice, once per response mode, to measure both
against the same code: `--mode json` is `streamable_http_app(json_response=True)`,
`--mode sse` the SDK's default (every POST answered with a `text/event-stream`).

Tools:
- `echo(message)`: returns `message` as text, like server-everything's `echo`.
- `stream(count, interval_ms)`: sends `count` `notifications/progress` on the
  request's SSE stream, `interval_ms` apart, each with `message` = the server's
  `time.time_ns()` taken just before the notification is handed to the SDK;
  then returns. The client subtracts that from its own receive time (one
  machine, one clock) while the stream is still open. The caller must send a
  `progressToken` in the request's `_meta`.

Uvicorn with uvloop + httptools (as the proxy), bound before announcing
`bench http server listening on URL` on stderr.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: `inspector` importable

from mcp.server.mcpserver import Context, MCPServer  # noqa: E402

from inspector.transports.serve import bind, serve  # noqa: E402

HOST = "127.0.0.1"


def build_server() -> MCPServer:
    server = MCPServer(name="mcp-inspector-bench", version="0", log_level="WARNING")

    @server.tool(structured_output=False, description="Return the message unchanged.")
    def echo(message: str) -> str:
        return message

    @server.tool(
        structured_output=False,
        description="Send `count` progress notifications `interval_ms` apart, each carrying time.time_ns().",
    )
    async def stream(ctx: Context, count: int = 10, interval_ms: float = 5.0) -> str:
        for i in range(1, count + 1):
            if i > 1:
                await anyio.sleep(interval_ms / 1000)
            await ctx.report_progress(i, count, str(time.time_ns()))
        return f"sent {count}"

    return server


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="bench/http_server.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=("json", "sse"), required=True)
    p.add_argument("--port", type=int, default=0)
    args = p.parse_args(argv)
    server = build_server()
    sock = bind(HOST, args.port)
    url = f"http://{HOST}:{sock.getsockname()[1]}/mcp"
    app = server.streamable_http_app(json_response=args.mode == "json")
    serve(
        app,
        sock,
        on_ready=lambda: print(f"bench http server listening on {url}", file=sys.stderr, flush=True),
    )


if __name__ == "__main__":
    main()
