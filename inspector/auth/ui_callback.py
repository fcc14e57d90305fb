"""The UI server's redirect URI: authorizations started from the web UI come back to `/oauth/callback`.

`PendingAuthorizations` holds the authorizations waiting for the browser,
keyed by the `state` each authorization request carries. The callback route
hands the redirect to the pending authorization whose state it names and
forgets it (single use); a redirect naming no pending state is refused. The
state, a 192-bit random value bound to one pending flow, is what
authenticates the callback: the route cannot ask for the UI token, because
the request is the browser's top-level navigation from the authorization
server's page (docs/security.md, "Listeners": `/oauth/callback`).

`UiListener` is the runner's callback listener for a UI connection: instead
of a loopback listener of its own it registers with `PendingAuthorizations`
(the runner calls `announce` with the authorization URL, which the UI lists
for the person to open) and waits for the callback route.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import anyio

from inspector.auth.callback import CallbackListener, state_of

__all__ = ["CALLBACK_PATH", "Pending", "PendingAuthorizations", "UiListener", "state_of"]

CALLBACK_PATH = "/oauth/callback"
_ids = itertools.count(1)


@dataclass(eq=False)
class Pending:
    """One authorization waiting for the browser to come back."""

    state: str
    url: str  # the authorization request, for the person to open
    server_url: str
    purpose: str  # "connect" or "guided"
    redirect_uri: str
    id: str = field(default_factory=lambda: f"a{next(_ids)}")
    created: float = field(default_factory=time.time)
    received: str | None = None  # the full callback URL, once it came
    arrived: anyio.Event = field(default_factory=anyio.Event)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "url": self.url,
            "server_url": self.server_url,
            "purpose": self.purpose,
            "created": self.created,
        }


class PendingAuthorizations:
    """The UI process's authorizations waiting for the browser, by state."""

    def __init__(self) -> None:
        self._by_state: dict[str, Pending] = {}

    def add(self, pending: Pending) -> None:
        self._by_state[pending.state] = pending

    def discard(self, pending: Pending) -> None:
        if self._by_state.get(pending.state) is pending:
            del self._by_state[pending.state]

    def items(self) -> list[Pending]:
        return list(self._by_state.values())

    def deliver(self, query: str) -> Pending | None:
        """Give the callback's query to the authorization its state names (once); None: no such state."""
        values = parse_qs(query)
        state = (values.get("state") or [""])[0]
        pending = self._by_state.pop(state, None) if state else None
        if pending is None:
            return None
        pending.received = pending.redirect_uri + (f"?{query}" if query else "")
        pending.arrived.set()
        return pending


class UiListener(CallbackListener):
    """A runner's listener whose redirect URI is the UI server's callback route."""

    def __init__(
        self, registry: PendingAuthorizations, redirect_uri: str, server_url: str, purpose: str = "connect"
    ) -> None:
        self.redirect_uri = redirect_uri
        self.received = None
        self.arrived = anyio.Event()
        self.expected_state = None
        self.registry = registry
        self.server_url = server_url
        self.purpose = purpose
        self.pending: Pending | None = None

    def announce(self, url: str) -> None:
        """The authorization request is ready: list it for the person (the UI opens it in a new tab)."""
        state = state_of(url) or ""
        self.pending = Pending(state, url, self.server_url, self.purpose, self.redirect_uri)
        self.registry.add(self.pending)

    async def wait(self, timeout: float) -> str | None:
        pending = self.pending
        if pending is None:
            return None
        try:
            with anyio.move_on_after(timeout):
                await pending.arrived.wait()
        finally:
            self.registry.discard(pending)  # single use: answered, timed out or cancelled
            self.pending = None
        self.received = pending.received
        return pending.received
