"""A scripted HTTP peer for proxy fault tests (not an MCP implementation).

Routes:
  POST /mcp                 echo JSON-RPC requests as JSON; invalid JSON -> 400 with a parse error (id null)
  POST /big?bytes=N         a JSON-RPC result carrying N bytes of text
  GET  /stream-then-break   an SSE stream that sends two events, then breaks the connection
  GET  /slow-stream         an SSE event every 20 ms until the client goes away
  POST /raw-sse             answers a JSON-RPC request with SSE framed by CRLF: the answer (event id
                            not UTF-8), then an event whose data is not UTF-8 (RAW_SSE_TAIL)
  POST /quirky              MCP-ish, stateless: initialize answered (JSON, spaced as written here);
                            tools/call answered HTTP 500 with a JSON-RPC error whose id is null
  GET  /stats               {"disconnects": n}: slow-stream clients seen to go away
  GET  /abs-sse             a legacy SSE stream whose endpoint event is an absolute URL
  GET  /.well-known/oauth-authorization-server   a JSON document
  GET  /.well-known/oauth-protected-resource/mcp  resource metadata naming this origin (gzip-encoded)
  POST /protected           401 with a WWW-Authenticate challenge naming this origin's resource metadata
  POST /cancel-races        MCP-ish: initialize answered; tools/call streams (SSE) until the call is
                            cancelled, then answers -32800 at once; notifications/cancelled is
                            acknowledged (202) only 0.5 s later, so the answer always arrives first
Prints "scripted http server listening on http://127.0.0.1:PORT" on stderr when ready.
"""

import asyncio
import gzip
import json
import socket
import sys

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

STATS = {"disconnects": 0}
RAW_SSE_TAIL = b"event: note\r\ndata: caf\xe9 \xff\r\ndata: second line\r\n\r\n"


async def raw_sse(request: Request) -> Response:
    msg = json.loads(await request.body())
    answer = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"echo": msg.get("method")}}).encode()
    body = b"event: message\r\nid: \xfe1\r\ndata: " + answer + b"\r\n\r\n" + RAW_SSE_TAIL
    return Response(body, media_type="text/event-stream")


async def mcp(request: Request) -> Response:
    body = await request.body()
    try:
        msg = json.loads(body)
    except ValueError:
        error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
        return JSONResponse(error, status_code=400)
    if "id" not in msg:
        return Response(status_code=202)
    return JSONResponse({"jsonrpc": "2.0", "id": msg["id"], "result": {"echo": msg.get("method")}})


async def quirky(request: Request) -> Response:
    msg = json.loads(await request.body())
    if "id" not in msg:
        return Response(status_code=202)
    if msg.get("method") == "tools/call":
        error = b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32603, "message": "boom"}}'
        return Response(error, 500, {"x-quirk": "yes"}, media_type="application/json")
    result = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "serverInfo": {"name": "quirky", "version": "1"},
    }
    body = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}, indent=1).encode()
    return Response(body, media_type="application/json")


CANCELLED: dict[object, asyncio.Event] = {}


async def cancel_races(request: Request) -> Response:
    msg = json.loads(await request.body())
    method = msg.get("method")
    if method == "initialize":
        result = {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "cancel-races", "version": "1"},
        }
        return JSONResponse({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    if method == "notifications/cancelled":
        CANCELLED.setdefault(msg["params"]["requestId"], asyncio.Event()).set()
        await asyncio.sleep(0.5)
        return Response(status_code=202)
    if "id" not in msg:
        return Response(status_code=202)

    async def events():
        cancelled = CANCELLED.setdefault(msg["id"], asyncio.Event())
        token = ((msg.get("params") or {}).get("_meta") or {}).get("progressToken")
        if token is not None:
            progress = {"progressToken": token, "progress": 1, "total": 2}
            note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": progress}
            yield f"data: {json.dumps(note)}\n\n".encode()
        await cancelled.wait()
        error = {"code": -32800, "message": "Request cancelled"}
        yield f"data: {json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'error': error})}\n\n".encode()

    return StreamingResponse(events(), media_type="text/event-stream")


async def big(request: Request) -> Response:
    size = int(request.query_params.get("bytes", "10485760"))
    msg = json.loads(await request.body())
    return JSONResponse({"jsonrpc": "2.0", "id": msg["id"], "result": {"blob": "y" * size}})


def _event(n: int) -> bytes:
    data = json.dumps(
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": n}}
    )
    return f"id: {n}\ndata: {data}\n\n".encode()


async def stream_then_break(request: Request) -> Response:
    async def events():
        yield _event(1)
        yield _event(2)
        await asyncio.sleep(0.05)
        raise RuntimeError("scripted server: breaking the stream on purpose")

    return StreamingResponse(events(), media_type="text/event-stream")


async def slow_stream(request: Request) -> Response:
    async def events():
        n = 0
        try:
            while True:
                n += 1
                yield _event(n)
                await asyncio.sleep(0.02)
        finally:
            STATS["disconnects"] += 1

    return StreamingResponse(events(), media_type="text/event-stream")


async def absolute_endpoint(request: Request) -> Response:
    """A legacy HTTP+SSE stream whose endpoint event names the server's absolute URL."""
    base = f"{request.url.scheme}://{request.url.netloc}"

    async def events():
        yield f"event: endpoint\ndata: {base}/messages?session_id=abc123\n\n".encode()
        yield _event(1)

    return StreamingResponse(events(), media_type="text/event-stream")


async def stats(request: Request) -> Response:
    return JSONResponse(STATS)


async def oauth(request: Request) -> Response:
    return JSONResponse(
        {"issuer": "http://127.0.0.1", "authorization_endpoint": "http://127.0.0.1/authorize"}
    )


async def protected_resource(request: Request) -> Response:
    base = f"http://{request.headers['host']}"
    doc = {"resource": f"{base}/mcp", "authorization_servers": [f"{base}/", "https://idp.example/"]}
    body = gzip.compress(json.dumps(doc).encode())
    return Response(body, media_type="application/json", headers={"content-encoding": "gzip"})


async def protected(request: Request) -> Response:
    base = f"http://{request.headers['host']}"
    challenge = (
        f'Bearer error="invalid_token", resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
    )
    return JSONResponse({"error": "invalid_token"}, status_code=401, headers={"www-authenticate": challenge})


app = Starlette(
    routes=[
        Route("/mcp", mcp, methods=["POST"]),
        Route("/big", big, methods=["POST"]),
        Route("/raw-sse", raw_sse, methods=["POST"]),
        Route("/cancel-races", cancel_races, methods=["POST"]),
        Route("/quirky", quirky, methods=["POST"]),
        Route("/stream-then-break", stream_then_break),
        Route("/slow-stream", slow_stream),
        Route("/stats", stats),
        Route("/abs-sse", absolute_endpoint),
        Route("/.well-known/oauth-authorization-server", oauth),
        Route("/.well-known/oauth-protected-resource/mcp", protected_resource),
        Route("/protected", protected, methods=["POST"]),
    ]
)


def main() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="critical")
    server = uvicorn.Server(config)
    original = server.startup

    async def startup(sockets=None):
        await original(sockets=sockets)
        print(f"scripted http server listening on http://127.0.0.1:{port}", file=sys.stderr, flush=True)

    server.startup = startup
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
