"""A real MCP server (the official Python SDK's MCPServer, Streamable HTTP at /mcp) that deals in secrets.

Usage: python secrets_server.py LOG.jsonl   (prints "secrets server listening on URL" on stderr)
       python secrets_server.py --stdio     (the same tool over stdio)

Every HTTP request it receives is appended to LOG.jsonl (method, path, query, headers, body), so a
test can see what went over the wire (e.g. that a replay put the real secrets back). Besides MCP:
- every response sets a session cookie (`Set-Cookie: sid=COOKIE; Path=/; HttpOnly`);
- `POST /token` (an OAuth token endpoint): a JSON answer with access, refresh and id tokens;
- `GET /authorize`: a 302 to the client's callback with `code` and `state` in the query;
- `POST /register` (dynamic client registration): `client_secret` and `registration_access_token`.
The secret values are the constants below (letters and digits only, so each is one full-text token).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

COOKIE = "CookieSecret5e1b2"
ACCESS = "AccessSecret9c77d"
REFRESH = "RefreshSecret41aa0"
ID_TOKEN = "IdTokenSecret0d3f9"
CODE = "AuthCodeSecret8e2c"
CLIENT_SECRET = "ClientSecret77b1e"
REGISTRATION = "RegistrationSecret3a9f"
SERVER_SECRETS = (COOKIE, ACCESS, REFRESH, ID_TOKEN, CODE, CLIENT_SECRET, REGISTRATION)

server = MCPServer("secrets", version="1.0.0", log_level="WARNING")


@server.tool(structured_output=False, description="Echo the text; the key is checked, never echoed.")
def echo(text: str, api_key: str = "", note: str = "") -> str:
    return f"{text} (key given: {bool(api_key)}, note given: {bool(note)})"


async def _body(receive: Any) -> tuple[bytes, list[dict[str, Any]]]:
    chunks, messages = [], []
    while True:
        message = await receive()
        messages.append(message)
        chunks.append(message.get("body", b""))
        if message["type"] != "http.request" or not message.get("more_body"):
            return b"".join(chunks), messages


async def _json(send: Any, status: int, doc: dict[str, Any], extra: list[tuple[bytes, bytes]] = ()) -> None:  # type: ignore[assignment]
    body = json.dumps(doc).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def observed(app: Any, log: Path) -> Any:
    """The MCP app behind a recorder of requests, the cookie and the OAuth routes."""

    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        body, messages = await _body(receive)
        entry = {
            "method": scope["method"],
            "path": scope["path"],
            "query": scope["query_string"].decode(),
            "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]],
            "body": body.decode("utf-8", "replace"),
        }
        with log.open("a") as f:
            f.write(json.dumps(entry) + "\n")
        cookie = (b"set-cookie", f"sid={COOKIE}; Path=/; HttpOnly".encode())
        path = scope["path"]
        if path == "/token":
            tokens = {
                "access_token": ACCESS,
                "token_type": "Bearer",
                "expires_in": 3600,
                "refresh_token": REFRESH,
                "id_token": ID_TOKEN,
            }
            await _json(send, 200, tokens, [cookie])
            return
        if path == "/register":
            await _json(
                send,
                201,
                {
                    "client_id": "c1",
                    "client_secret": CLIENT_SECRET,
                    "registration_access_token": REGISTRATION,
                },
            )
            return
        if path == "/authorize":
            location = f"http://127.0.0.1:9/callback?code={CODE}&state=st4te".encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 302,
                    "headers": [(b"location", location), (b"content-length", b"0")],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        pending = list(messages)

        async def replay_receive() -> dict[str, Any]:
            return pending.pop(0) if pending else await receive()

        async def send_with_cookie(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), cookie]}
            await send(message)

        await app(scope, replay_receive, send_with_cookie)

    return asgi


def main() -> None:
    from inspector.transports.serve import bind, serve

    if sys.argv[1] == "--stdio":
        server.run("stdio")
        return
    log = Path(sys.argv[1])
    sock = bind("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    app = observed(server.streamable_http_app(), log)
    serve(
        app, sock, on_ready=lambda: print(f"secrets server listening on {url}", file=sys.stderr, flush=True)
    )


if __name__ == "__main__":
    main()
