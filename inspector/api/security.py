"""Who may use the UI server's API: the access token (principle 8).

Host and Origin are checked before this by the shared listener guard
(`inspector.guard.ListenerGuard`, wrapped around this in `app.create_app`).
Every `/api` request needs the token: the `?token=` query, an
`Authorization: Bearer` header, or the cookie set when a page was first
opened with `?token=` (that visit is redirected to the same URL without it).
"""

from __future__ import annotations

import secrets
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["Guard", "cookie_name", "new_token"]

Message = dict[str, Any]


def new_token() -> str:
    """A fresh random access token."""
    return secrets.token_urlsafe(24)


def cookie_name(port: int) -> str:
    """The token cookie's name; cookies ignore ports, so servers on two ports must not share one."""
    return f"mcp_inspector_token_{port}"


class Guard:
    """ASGI middleware: refuse requests without the token under /api."""

    def __init__(self, app: ASGIApp, *, token: str, port: int) -> None:
        self.app = app
        self.token = token
        self.cookie = cookie_name(port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        given = query.get("token")
        path: str = scope["path"]
        if scope["type"] == "http" and given is not None and not path.startswith("/api"):
            # A page opened with ?token=: keep the token in a cookie and drop it from the address bar.
            await self._login(scope, send, query, given)
            return
        if path.startswith("/api") and not self._authorised(headers, given):
            await _refuse(
                scope, receive, send, 401, "missing or wrong access token: open the URL printed at start"
            )
            return
        await self.app(scope, receive, send)

    def _authorised(self, headers: dict[str, str], given: str | None) -> bool:
        candidates = [given]
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            candidates.append(auth[7:].strip())
        if "cookie" in headers:
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(headers["cookie"])
            except Exception:  # a malformed cookie header is just no token
                jar = SimpleCookie()
            if self.cookie in jar:
                candidates.append(jar[self.cookie].value)
        return any(c is not None and secrets.compare_digest(c, self.token) for c in candidates)

    async def _login(self, scope: Scope, send: Send, query: dict[str, str], given: str) -> None:
        if not secrets.compare_digest(given, self.token):
            await _send_json(send, 401, {"detail": "wrong access token: open the URL printed at start"})
            return
        rest = {k: v for k, v in query.items() if k != "token"}
        location = scope["path"] + (f"?{urlencode(rest)}" if rest else "")
        cookie = f"{self.cookie}={self.token}; Path=/; HttpOnly; SameSite=Strict"
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", location.encode()),
                    (b"set-cookie", cookie.encode()),
                    (b"cache-control", b"no-store"),
                    (b"content-length", b"0"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, detail: str) -> None:
    if scope["type"] == "websocket":
        # Closing before accepting makes the server answer the handshake with 403.
        await receive()
        await send({"type": "websocket.close", "code": 1008, "reason": detail[:120]})
        return
    await _send_json(send, status, {"detail": detail})


async def _send_json(send: Send, status: int, body: dict[str, Any]) -> None:
    import orjson

    data = orjson.dumps(body)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": data})
