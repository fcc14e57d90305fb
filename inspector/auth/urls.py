"""The one check of a URL an MCP or authorization server names, before anything opens or fetches it.

The resource metadata URL (WWW-Authenticate `resource_metadata`), each authorization server,
and the authorization, token and registration endpoints come from the server: whoever runs it
controls every byte. `check_url` accepts only

- `https`, or `http` to a loopback host (the MCP spec asks HTTPS of every authorization
  endpoint; loopback is for servers on this machine) or on the MCP server's own origin (the
  user named that one, e.g. the 2025-03-26 default endpoints): `file:`, `javascript:`, `data:`
  and the rest never reach the system browser (xdg-open, ShellExecute) or httpx;
- a host at all, no control characters or spaces;
- a loopback host only when the MCP server is on this machine too (a server elsewhere cannot
  point this client at this machine's own services), and, where `origins` is given, only on one
  of those origins (a resource metadata URL on the MCP server's; an endpoint on the MCP server's
  or the authorization server's): a URL on another local port would be a request, chosen by the
  server, to another local service.

A refused URL raises `AuthFailure` (expectation `unsafe-url`) naming the field that held it
and the URL with its control characters escaped (`terminal_text.visible`). `origin_of` is the
comparable origin (scheme, lower-case host, port with defaults) the runner's redirect rule and
the "metadata on another origin" notice use. Pure functions.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from inspector.errors import AuthFailure
from inspector.guard import is_loopback
from inspector.terminal_text import visible

__all__ = ["check_url", "origin_of", "same_origin"]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_UNSAFE_CHARS = re.compile(r"[\x00-\x20\x7f-\x9f]")


def origin_of(url: str) -> str | None:
    """`scheme://host:port` with a lower-case host and the default port written out; None when
    the URL has no http(s) origin."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{port if port is not None else _DEFAULT_PORTS[scheme]}"


def same_origin(a: str, b: str) -> bool:
    """Whether two URLs share an http(s) origin."""
    first = origin_of(a)
    return first is not None and first == origin_of(b)


def _local(host: str) -> bool:
    """Loopback, or the unspecified address (0.0.0.0 and :: reach this machine's listeners too)."""
    if is_loopback(host):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def check_url(
    url: object,
    field: str,
    step: str,
    *,
    server_url: str,
    origins: Iterable[str] | None = None,
    plain: bool = False,
) -> str:
    """`url` when it may be opened or fetched; else `AuthFailure(step, "unsafe-url")` naming `field`.

    `server_url` is the MCP server's URL (the user's choice). `origins`: the only origins a
    loopback URL may have (None: any, for an authorization server named by resource metadata,
    fetched only at its well-known paths). `plain`: no query or fragment (an issuer, RFC 8414 2)."""
    shown = visible(url if isinstance(url, str) else repr(url))

    def refuse(why: str) -> AuthFailure:
        return AuthFailure(step, "unsafe-url", f"{field} is '{shown}': {why}; nothing was opened or fetched")

    if not isinstance(url, str) or not url:
        raise refuse("not a URL")
    if _UNSAFE_CHARS.search(url):
        raise refuse("a URL holds no spaces or control characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError:
        raise refuse("not a URL") from None
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    if scheme not in ("https", "http") or not host:
        raise refuse("only https, or http to a loopback host, is accepted")
    local = _local(host)
    if scheme == "http" and not local and not same_origin(url, server_url):
        raise refuse("only https, or http to a loopback host, is accepted")
    if plain and (parts.query or parts.fragment):
        raise refuse("an issuer has no query or fragment (RFC 8414 section 2)")
    if local:
        server_host = urlsplit(server_url).hostname or ""
        if not _local(server_host):
            raise refuse(f"it names this machine, and the MCP server ({visible(server_host)}) is not on it")
        allowed = {o for o in (origin_of(u) for u in origins or ()) if o}
        if origins is not None and origin_of(url) not in allowed:
            raise refuse(
                "a loopback URL must be on "
                + " or ".join(sorted(visible(o) for o in allowed))
                + " (another local port is another service)"
            )
    return url
