"""Who may use the UI server's API: the access token (principle 8).

Host and Origin are checked before this by the shared listener guard
(`inspector.guard.ListenerGuard`, wrapped around this in `app.create_app`).
Every `/api` request needs the token: an `Authorization: Bearer` header
(what the web UI sends), the `?token=` query (for scripts), or, on the
websocket, a `bearer.<token>` subprotocol next to `mcp-inspector` (browsers
cannot set headers on a websocket; the server echoes only `mcp-inspector`).

No cookie: cookies ignore ports, so a browser would send one to every other
server on 127.0.0.1. The page URL carries the token in its fragment
(`/#token=...`, which browsers never send); the page keeps it in
sessionStorage, whose origin includes the port. A page opened with the old
`?token=` form is redirected to the fragment form.
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["SUBPROTOCOL", "Guard", "new_token"]

Message = dict[str, Any]

# The websocket subprotocol of the live feed; `bearer.<token>` rides next to it.
SUBPROTOCOL = "mcp-inspector"
_BEARER_PROTOCOL = "bearer."


def new_token() -> str:
    """A fresh random access token."""
    return secrets.token_urlsafe(24)


class Guard:
    """ASGI middleware: refuse requests without the token under /api."""

    def __init__(self, app: ASGIApp, *, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        given = query.get("token")
        path: str = scope["path"]
        if scope["type"] == "http" and given is not None and not path.startswith("/api"):
            # A page opened with ?token=: move the token into the fragment, which is never sent.
            await self._login(scope, send, query, given)
            return
        if path.startswith("/api") and not self._authorised(headers, given, scope):
            await _refuse(
                scope, receive, send, 401, "missing or wrong access token: open the URL printed at start"
            )
            return
        await self.app(scope, receive, send)

    def _authorised(self, headers: dict[str, str], given: str | None, scope: Scope) -> bool:
        candidates = [given]
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            candidates.append(auth[7:].strip())
        if scope["type"] == "websocket":
            candidates += [
                p[len(_BEARER_PROTOCOL) :]
                for p in scope.get("subprotocols", [])
                if p.startswith(_BEARER_PROTOCOL)
            ]
        return any(c is not None and _same(c, self.token) for c in candidates)

    async def _login(self, scope: Scope, send: Send, query: dict[str, str], given: str) -> None:
        if not _same(given, self.token):
            await _send_json(send, 401, {"detail": "wrong access token: open the URL printed at start"})
            return
        rest = {k: v for k, v in query.items() if k != "token"}
        location = (
            _local(scope["path"]) + (f"?{urlencode(rest)}" if rest else "") + f"#token={quote(self.token)}"
        )
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", location.encode()),
                    (b"cache-control", b"no-store"),
                    (b"content-length", b"0"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})


def _local(path: str) -> str:
    """`path` as a path on this server, for a `Location`: one leading slash (`//host`, `/\\host` and
    `///host` are other sites to a browser, and the token would go with them) and percent-encoded
    (a decoded `%23` or `%3F` would otherwise start a fragment or a query)."""
    return quote("/" + path.lstrip("/\\"), safe="/:@!$&'()*+,;=~")


def _same(given: str, token: str) -> bool:
    """Constant-time token comparison; on bytes, as `compare_digest` refuses non-ASCII str (a 500)."""
    return secrets.compare_digest(given.encode("utf-8", "surrogateescape"), token.encode())


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
