"""Single-use capability ids for App view documents.

The view document is served outside `/api` (an iframe navigation carries no
token header, and the view must not hold the token), so the URL itself is
the capability, as the OAuth UI callback's `state` is: 192 random bits bound
to one view, handed out only through the token-guarded API, valid once and
for `TTL` seconds. A guessed or replayed id gets a 404 and nothing else.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field

__all__ = ["TTL", "ViewGrant", "ViewGrants"]

TTL = 60.0
_MAX = 256  # grants kept at most (the oldest go first)


@dataclass(frozen=True)
class ViewGrant:
    html: str
    csp: str
    created: float = field(default_factory=time.monotonic)


class ViewGrants:
    """The pending view documents by capability id."""

    def __init__(self, ttl: float = TTL) -> None:
        self.ttl = ttl
        self._grants: dict[str, ViewGrant] = {}
        self._lock = threading.Lock()

    def add(self, grant: ViewGrant) -> str:
        cap = secrets.token_urlsafe(24)
        with self._lock:
            self._expire()
            while len(self._grants) >= _MAX:
                del self._grants[next(iter(self._grants))]
            self._grants[cap] = grant
        return cap

    def take(self, cap: str) -> ViewGrant | None:
        """The grant of `cap`, removed (single use); None when unknown, used or expired."""
        with self._lock:
            self._expire()
            return self._grants.pop(cap, None)

    def _expire(self) -> None:
        now = time.monotonic()
        for cap in [c for c, g in self._grants.items() if now - g.created > self.ttl]:
            del self._grants[cap]
