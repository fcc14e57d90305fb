"""The typed pieces the authorization flow is made of: HTTP requests and responses, steps, failures.

A `Step` is one leg of the flow (a request to make, or a local decision such
as PKCE) with what the spec expects there; when the expectation is not met the
flow raises `AuthFailure` naming it (`expectation`), the spec section and
the step, so a debugger can show which expectation failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

__all__ = ["HttpRequest", "HttpResponse", "Step"]


@dataclass(frozen=True)
class HttpRequest:
    """A request the flow wants made (the runner sends it exactly so, redirects not followed)."""

    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


@dataclass(frozen=True)
class HttpResponse:
    """What came back for a `HttpRequest` (`status` 0: the request could not be made)."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)  # names in lower case
    body: bytes = b""

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def json(self) -> dict[str, Any] | None:
        """The body as a JSON object, or None when it is not one."""
        try:
            value = orjson.loads(self.body)
        except orjson.JSONDecodeError:
            return None
        return value if isinstance(value, dict) else None


@dataclass(frozen=True)
class Step:
    """One leg of the flow: its name (`meta.auth_step`), what the spec expects, and the request if any."""

    name: str
    expects: str
    request: HttpRequest | None = None
    spec: str = ""  # the spec section, e.g. "2025-11-25 basic/authorization#..."
