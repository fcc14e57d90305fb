"""The official Python SDK's OAuth client (`mcp.client.auth.OAuthClientProvider`) against an MCP URL.

Registers, authorizes (the authorization URL is fetched without following
redirects, as a browser would open it against a server that approves at
once; the code comes back in the `Location`), calls the `whoami` tool and
prints one JSON line: the tool's text and the tokens it got (for the test's
secrets scan). Usage: python oauth_sdk_client.py URL
"""

from __future__ import annotations

import json
import sys
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import mcp
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

REDIRECT = "http://127.0.0.1:9/callback"  # never reached: the Location is read instead


class Memory:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class Provider(OAuthClientProvider):
    """The SDK's provider, keeping the PKCE verifier it used (for the secrets scan only)."""

    verifier = ""

    async def _exchange_token_authorization_code(self, auth_code: str, code_verifier: str) -> httpx2.Request:
        Provider.verifier = code_verifier
        return await super()._exchange_token_authorization_code(auth_code, code_verifier)


async def main(url: str) -> None:
    store = Memory()
    seen: dict[str, str] = {}

    async def redirect(authorization_url: str) -> None:
        seen["authorization_url"] = authorization_url
        async with httpx2.AsyncClient(follow_redirects=False) as http:
            response = await http.get(authorization_url)
        seen["location"] = response.headers["location"]

    async def callback() -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(seen["location"]).query)
        iss = query.get("iss", [None])[0]
        return AuthorizationCodeResult(code=query["code"][0], state=query.get("state", [None])[0], iss=iss)

    auth = Provider(
        url,
        OAuthClientMetadata(
            client_name="python-sdk-oauth-client",
            redirect_uris=[AnyUrl(REDIRECT)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        ),
        store,
        redirect_handler=redirect,
        callback_handler=callback,
    )
    async with (
        httpx2.AsyncClient(auth=auth, timeout=20) as http,
        mcp.Client(streamable_http_client(url, http_client=http)) as client,
    ):
        result = await client.call_tool("whoami", {})
    text = result.content[0].text  # type: ignore[union-attr]
    assert store.tokens is not None and store.client is not None
    code = parse_qs(urlsplit(seen["location"]).query)["code"][0]
    print(
        json.dumps(
            {
                "text": text,
                "secrets": [
                    store.tokens.access_token,
                    store.tokens.refresh_token,
                    store.client.client_secret,
                    code,
                    Provider.verifier,
                ],
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])
