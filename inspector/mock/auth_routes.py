"""The HTTP side of `serve --auth`: Starlette routes over the sans-IO `AuthServer`, and the MCP gate.

On the serve listener (so behind its guard: loopback Host, own or allowed
Origin, JSON POSTs to /mcp and /register):

- GET  /.well-known/oauth-protected-resource[/mcp]  resource metadata (RFC 9728)
- GET  /.well-known/oauth-authorization-server      AS metadata (RFC 8414)
- POST /register                                    dynamic registration (RFC 7591)
- GET  /authorize                                   code redirect, or the approval page (`--approve ui`)
- POST /authorize/decision                          the approval page's answer
- POST /token                                       authorization_code and refresh_token grants

`gate` is handed to `mock_http_app`: every request to the MCP endpoint
passes the bearer check first. Each exchange here (and each refused MCP
request) is recorded, labelled with its step (`meta.auth_step`), in a
`mock-server` session of its own, opened at the first one; the recorder's
redaction step puts placeholders where codes, tokens and secrets were.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from inspector.capture import Tap
from inspector.capture.redact import header_pairs
from inspector.mock.auth_server import (
    AS_METADATA_PATH,
    AUTHORIZE_PATH,
    DECISION_PATH,
    PRM_PATH,
    REGISTER_PATH,
    TOKEN_PATH,
    AuthServer,
    Reply,
)

__all__ = ["AuthLog", "auth_routes", "authorization", "mcp_gate"]

_BODY_LIMIT = 64 * 1024


class AuthLog:
    """Records the authorization exchanges in one session, opened when the first one happens."""

    def __init__(self, open_tap: Callable[[], Tap]) -> None:
        self._open = open_tap
        self.tap: Tap | None = None
        self._numbers = itertools.count(1)

    def record(self, request: Request, body: bytes, reply: Reply, started: int) -> None:
        if self.tap is None:
            self.tap = self._open()
        number = next(self._numbers)
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        meta: dict[str, Any] = {"exchange": number, "auth_step": reply.step}
        method = request.method
        self.tap.submit_message(
            "c2s", "http-request", body, ts_ns=started, jsonrpc=False, http_method=method, http_path=path,
            http_headers=header_pairs(request.headers.raw), meta=meta,
        )  # fmt: skip
        self.tap.submit_message(
            "s2c", "http-response", reply.body, jsonrpc=False, http_method=method, http_path=path,
            http_status=reply.status, http_headers=[[k, v] for k, v in reply.headers.items()], meta=meta,
        )  # fmt: skip

    def end(self, reason: str) -> None:
        if self.tap is not None:
            self.tap.end(None, reason)


def _origin(request: Request) -> str:
    # The guard let only this listener's own names through.
    return f"http://{request.headers.get('host', '127.0.0.1')}"


async def _body(request: Request) -> bytes | None:
    """The request body, or None when it is larger than any authorization request needs."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > _BODY_LIMIT:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _response(reply: Reply) -> Response:
    return Response(reply.body, reply.status, headers=reply.headers)


def auth_routes(server: AuthServer, log: AuthLog) -> list[Route]:
    """The authorization server's routes for the serve listener."""

    def endpoint(
        handle: Callable[[Request, bytes], Reply], step: str
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            started = time.time_ns()
            body = await _body(request)
            if body is None:
                reply = Reply.json(
                    413, {"error": "invalid_request", "error_description": "the body is too large"}, step
                )
                log.record(request, b"", reply, started)
                return _response(reply)
            reply = handle(request, body)
            log.record(request, body, reply, started)
            return _response(reply)

        return run

    def prm(request: Request, _body: bytes) -> Reply:
        return server.protected_resource_metadata(_origin(request))

    def metadata(request: Request, _body: bytes) -> Reply:
        return server.as_metadata(_origin(request))

    def register(_request: Request, body: bytes) -> Reply:
        return server.register(body, time.time())

    def authorize(request: Request, _body: bytes) -> Reply:
        return server.authorize(request.url.query, _origin(request), time.time())

    def decide(_request: Request, body: bytes) -> Reply:
        return server.decide(body, time.time())

    def token(request: Request, body: bytes) -> Reply:
        return server.token(body, request.headers.get("authorization"), _origin(request), time.time())

    return [
        Route(PRM_PATH, endpoint(prm, "resource-metadata"), methods=["GET"]),
        Route(PRM_PATH + server.mcp_path, endpoint(prm, "resource-metadata"), methods=["GET"]),
        Route(AS_METADATA_PATH, endpoint(metadata, "as-metadata"), methods=["GET"]),
        Route(REGISTER_PATH, endpoint(register, "registration"), methods=["POST"]),
        Route(AUTHORIZE_PATH, endpoint(authorize, "authorization-request"), methods=["GET"]),
        Route(DECISION_PATH, endpoint(decide, "authorization-decision"), methods=["POST"]),
        Route(TOKEN_PATH, endpoint(token, "token-request"), methods=["POST"]),
    ]


def mcp_gate(
    server: AuthServer, log: AuthLog
) -> Callable[[Request, bytes, list[dict[str, Any]]], Awaitable[Response | None]]:
    """The bearer check `mock_http_app` runs on each MCP request: None lets it through."""

    async def gate(request: Request, body: bytes, messages: list[dict[str, Any]]) -> Response | None:
        started = time.time_ns()
        methods = [m["method"] for m in messages if isinstance(m.get("method"), str)]
        reply = server.check_bearer(
            request.headers.get("authorization"), methods, _origin(request), time.time()
        )
        if reply is None:
            return None
        log.record(request, body, reply, started)
        return _response(reply)

    return gate


def authorization(
    server: AuthServer, open_tap: Callable[[], Tap]
) -> tuple[
    list[Route], Callable[[Request, bytes, list[dict[str, Any]]], Awaitable[Response | None]], AuthLog
]:
    """What `run_serve` adds for `--auth`: the routes, the MCP gate, and the log they record into."""
    log = AuthLog(open_tap)
    return auth_routes(server, log), mcp_gate(server, log), log
