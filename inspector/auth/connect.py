"""OAuth for a command's HTTP connection: what the user asked for (`AuthRequest`) and its lifetime.

`call`, `replay` and `versions` take the same `--auth` options; each
connection they open runs inside `authorizer`, which owns the loopback
callback listener and the OAuth clients for as long as the connection lives
and hands out the factory `MockClient` / `open_connection` call with the
session's tap. The OAuth machinery (httpx, the callback listener on uvicorn) is imported by
`authorizer`: checking the options of a command that runs without `--auth` does not load it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from inspector.errors import InspectorError

if TYPE_CHECKING:
    from inspector.auth.runner import OAuth, OAuthSettings
    from inspector.capture import Tap

__all__ = ["DEFAULT_REVISION", "AuthRequest", "authorizer", "check_auth_options"]

DEFAULT_REVISION = "2025-11-25"  # the rules for a recording that never said its revision


@dataclass(frozen=True)
class AuthRequest:
    """`--auth` and its options, checked (`check`) before anything connects."""

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    scope: str | None = None
    non_interactive: bool = False
    wait: float = 300.0
    client_private_key: str | None = None  # a PEM file: private_key_jwt (call --client-private-key)

    def settings(self) -> OAuthSettings:
        from inspector.auth.registration import ClientOptions
        from inspector.auth.runner import OAuthSettings

        options = ClientOptions(
            self.client_id, self.client_secret, self.client_metadata_url, self.scope, self.client_private_key
        )
        return OAuthSettings(options, non_interactive=self.non_interactive, wait=self.wait)


def check_auth_options(auth: bool, url: str | None, request: AuthRequest) -> AuthRequest | None:
    """The request when `--auth` was given; a clear error for options that cannot go together."""
    given = (
        request.client_private_key
        or request.client_id
        or request.client_secret
        or request.client_metadata_url
        or request.scope
        or request.non_interactive
    )
    if given and not auth:
        raise InspectorError(
            "--client-id, --client-secret, --client-private-key, --client-metadata-url, --scope and "
            "--auth-non-interactive go with --auth"
        )
    if not auth:
        return None
    if not url:
        raise InspectorError("--auth needs --url (a stdio server is not authorized with OAuth)")
    if request.client_secret and not request.client_id:
        raise InspectorError("--client-secret needs --client-id")
    if request.client_private_key and not request.client_id:
        raise InspectorError("--client-private-key needs --client-id")
    if request.wait <= 0:
        raise InspectorError("--auth-wait must be a positive number of seconds")
    return request


@contextlib.asynccontextmanager
async def authorizer(
    request: AuthRequest, url: str, protocol_version: str
) -> AsyncIterator[Callable[[Tap], OAuth]]:
    """The factory of one connection's `httpx.Auth`; the listener and OAuth clients close on exit."""
    import anyio

    from inspector.auth.callback import callback_listener
    from inspector.auth.runner import OAuth

    async with contextlib.AsyncExitStack() as stack:
        own = await stack.enter_async_context(anyio.create_task_group())
        listener = await stack.enter_async_context(callback_listener(own))
        settings = request.settings()

        def make_auth(tap: Tap) -> OAuth:
            oauth = OAuth(settings, url, protocol_version, tap, listener)
            stack.push_async_callback(oauth.aclose)
            return oauth

        yield make_auth
