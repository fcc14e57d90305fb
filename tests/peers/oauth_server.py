"""An authorization-protected MCP server built with the official Python SDK's server auth support.

One process is both the authorization server (the SDK's auth routes over an
in-memory provider that approves every authorization request at once, as test
servers do) and the resource server (`/mcp`, Bearer tokens checked by the
SDK; `--audience URL` adds a resource the server also accepts tokens for, as
a server behind `mcp-inspect proxy --rewrite-auth-metadata` must be told the
proxy's URL; `--fault NAME` breaks it for the lint tests: `no-resource-metadata`
drops `resource_metadata` from 401 challenges, `incomplete-as-metadata` drops
`response_types_supported`, `wrong-issuer` names another issuer). Access
tokens live `--expires` seconds (default 3600) and come with a refresh token. Tools: `whoami`, `forget_tokens` (drops the access tokens: the next
request gets a 401, as after expiry).

`--approval-page`: the authorization endpoint shows a page with an "Approve"
link (a person's consent) instead of redirecting back at once.
`--wrong-issuer`: the authorization server metadata names another issuer (the
fault RFC 8414 section 3.3 tells clients to refuse).

Prints "oauth server listening on http://127.0.0.1:PORT/mcp" on stderr when ready.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import secrets
import socket
import sys
import time
from typing import Any

import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route


class Provider:
    """In-memory clients, codes and tokens; every authorization is approved."""

    def __init__(
        self,
        expires: int,
        approval_page: str | None = None,
        resource: str = "",
        audiences: tuple[str, ...] = (),
    ) -> None:
        self.expires = expires
        self.approval_page = approval_page
        self.resource = resource  # the server's own resource URL
        self.audiences = {a.rstrip("/") for a in audiences}  # other resources its tokens may name
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.refresh_tokens: dict[str, RefreshToken] = {}
        self.access_tokens: dict[str, AccessToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        back = construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)
        if self.approval_page:
            return construct_redirect_uri(self.approval_page, next=back)
        return back

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        expires_at = int(time.time()) + self.expires
        self.access_tokens[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires_at, resource=resource
        )
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=self.expires,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(
            authorization_code.client_id, authorization_code.scopes, authorization_code.resource
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh_tokens.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh_tokens.pop(refresh_token.token, None)
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access_tokens.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        if found.resource and found.resource.rstrip("/") in self.audiences:
            # An audience this server was configured to accept: issued for this resource.
            return found.model_copy(update={"resource": self.resource})
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access_tokens.pop(token.token, None)
        self.refresh_tokens.pop(token.token, None)


async def approve(request: Request) -> HTMLResponse:
    """The consent page: a link back to the client with the code (the provider made it already)."""
    target = html.escape(request.query_params.get("next", ""), quote=True)
    return HTMLResponse(
        f"<!doctype html><title>Approve access</title><h1>oauth-peer wants to know</h1>"
        f'<p>Let this client use the MCP server?</p><a id=approve href="{target}">Approve</a>'
    )


class WrongIssuer:
    """ASGI wrapper: the authorization server metadata's `issuer` says another URL."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/.well-known/oauth-authorization-server"):
            await self.app(scope, receive, send)
            return
        parts: list[Any] = []

        async def keep(message: Any) -> None:
            parts.append(message)

        await self.app(scope, receive, keep)
        start, body = parts[0], b"".join(p.get("body", b"") for p in parts[1:])
        doc = json.loads(body)
        doc["issuer"] = doc["issuer"].rstrip("/") + "/elsewhere"
        data = json.dumps(doc).encode()
        headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data})


class Faults:
    """ASGI middleware that breaks what the spec asks of the server, as `--fault` says."""

    def __init__(self, app: object, faults: set[str]) -> None:
        self.app = app
        self.faults = faults

    async def __call__(self, scope: dict, receive: object, send: object) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)  # type: ignore[operator]
        as_metadata = scope["path"].startswith("/.well-known/oauth-authorization-server")
        held: dict = {}

        async def patched(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = []
                for name, value in message.get("headers", []):
                    if name.lower() == b"www-authenticate" and "no-resource-metadata" in self.faults:
                        value = re.sub(rb',?\s*resource_metadata="[^"]*"', b"", value)
                    if as_metadata and name.lower() == b"content-length":
                        continue
                    headers.append((name, value))
                message = {**message, "headers": headers}
                if as_metadata:
                    held["start"] = message
                    return
            elif message["type"] == "http.response.body" and as_metadata:
                held["body"] = held.get("body", b"") + message.get("body", b"")
                if message.get("more_body"):
                    return
                doc = json.loads(held["body"])
                if "incomplete-as-metadata" in self.faults:
                    doc.pop("response_types_supported", None)
                if "wrong-issuer" in self.faults:
                    doc["issuer"] = "http://127.0.0.1:1/other-issuer"
                body = json.dumps(doc).encode()
                start = held["start"]
                start["headers"].append((b"content-length", str(len(body)).encode()))
                await send(start)  # type: ignore[operator]
                message = {"type": "http.response.body", "body": body, "more_body": False}
            await send(message)  # type: ignore[operator]

        return await self.app(scope, receive, patched)  # type: ignore[operator]


def build(argv: list[str] | None = None) -> tuple[Any, socket.socket, str]:
    """The peer's ASGI app for these arguments, its socket (bound, not yet listening) and its MCP
    URL (tests/e2e serves it on a thread of the test process: tests/e2e/in_thread.py)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--expires", type=int, default=3600)
    parser.add_argument("--approval-page", action="store_true")
    parser.add_argument("--wrong-issuer", action="store_true")
    parser.add_argument("--audience", action="append", default=[])
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        choices=["no-resource-metadata", "incomplete-as-metadata", "wrong-issuer"],
    )
    args = parser.parse_args(argv)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    provider = Provider(
        args.expires, f"{base}/approve" if args.approval_page else None, f"{base}/mcp", tuple(args.audience)
    )
    server = MCPServer(
        "oauth-peer",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=["mcp"], default_scopes=["mcp"]
            ),
            required_scopes=["mcp"],
            validate_token_resource=True,
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Say hello."""
        return "hello, authorized client"

    @server.tool()
    def forget_tokens() -> str:
        """Drop every access token (refresh tokens stay): the next request gets a 401."""
        provider.access_tokens.clear()
        return "forgotten"

    app = server.streamable_http_app()
    app.router.routes.insert(0, Route("/approve", approve))
    if args.fault:
        app = Faults(app, set(args.fault))  # type: ignore[assignment]
    return (WrongIssuer(app) if args.wrong_issuer else app), sock, f"{base}/mcp"


def main() -> None:
    app, sock, url = build()
    config = uvicorn.Config(app, log_level="warning")
    # Listening before saying so: connections made before uvicorn has started wait in the backlog
    # (it used to be only bound here: a client quick enough, or a loaded machine, got "connection
    # refused"; tests/issues/test_oauth_peer_listens_before_it_says_so.py).
    sock.listen(128)
    print(f"oauth server listening on {url}", file=sys.stderr, flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
