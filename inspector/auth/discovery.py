"""Discovery: the 401's WWW-Authenticate, resource metadata (RFC 9728), AS metadata (RFC 8414, OIDC).

Pure functions: they parse headers and documents and list the URLs to try in
the order the spec gives; `flow` makes the requests.

- `parse_www_authenticate`: RFC 9110 challenges (several per header, quoted
  strings with escapes, token68); never raises, bad parts are skipped.
- `prm_urls`: the URL from `resource_metadata`, else the path-aware well-known
  URL, then the root one (2025-11-25: "MUST attempt ... in this order").
- `as_metadata_urls`: RFC 8414 path-inserted, OIDC path-inserted, OIDC
  path-appended for an issuer with a path; RFC 8414 then OIDC at the root
  for one without.
- `legacy_endpoints`: the 2025-03-26 fallbacks (metadata at the server's
  origin; default /authorize, /token, /register).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "Challenge",
    "as_metadata_urls",
    "bearer_challenge",
    "canonical_resource",
    "legacy_endpoints",
    "origin",
    "parse_www_authenticate",
    "prm_urls",
]

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_SCHEME = re.compile(rf"\s*({_TOKEN})")
_PARAM = re.compile(rf"\s*({_TOKEN})\s*=\s*")
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"', re.DOTALL)
_VALUE = re.compile(rf"({_TOKEN})")
_TOKEN68 = re.compile(r"\s*([A-Za-z0-9\-._~+/]+=*)\s*(?=,|$)")


@dataclass
class Challenge:
    """One challenge: its scheme (as sent) and its parameters (names in lower case)."""

    scheme: str
    params: dict[str, str] = field(default_factory=dict)
    token68: str | None = None


def parse_www_authenticate(value: str) -> list[Challenge]:
    """The challenges in a WWW-Authenticate value (RFC 9110 section 11.6.1), tolerant of junk."""
    out: list[Challenge] = []
    pos = 0
    n = len(value)
    current: Challenge | None = None
    while pos < n:
        if value[pos] in " \t,":
            pos += 1
            continue
        param = _PARAM.match(value, pos)
        if current is not None and param:
            name = param.group(1).lower()
            pos = param.end()
            quoted = _QUOTED.match(value, pos)
            if quoted:
                current.params.setdefault(name, re.sub(r"\\(.)", r"\1", quoted.group(1), flags=re.DOTALL))
                pos = quoted.end()
            else:
                plain = _VALUE.match(value, pos)
                current.params.setdefault(name, plain.group(1) if plain else "")
                pos = plain.end() if plain else pos
            continue
        scheme = _SCHEME.match(value, pos)
        if scheme is None:
            pos += 1  # not a token: skip the character
            continue
        current = Challenge(scheme.group(1))
        out.append(current)
        pos = scheme.end()
        t68 = _TOKEN68.match(value, pos)
        if t68:  # `abc==` up to a comma or the end: token68, not a parameter
            current.token68 = t68.group(1)
            pos = t68.end()
    return out


def bearer_challenge(value: str | None) -> Challenge | None:
    """The Bearer challenge of a WWW-Authenticate value, else its DPoP one (RFC 9449 7.1: the
    same parameters), if there is one."""
    challenges = parse_www_authenticate(value or "")
    for scheme in ("bearer", "dpop"):
        for challenge in challenges:
            if challenge.scheme.lower() == scheme:
                return challenge
    return None


def origin(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", ""))


def canonical_resource(url: str) -> str:
    """The server's canonical URI (RFC 8707 / MCP): no fragment, lower-case scheme and host."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, ""))


def prm_urls(server_url: str, from_header: str | None) -> list[str]:
    """Where to look for Protected Resource Metadata, in the spec's order."""
    if from_header:
        return [from_header]
    parts = urlsplit(server_url)
    root = urlunsplit((parts.scheme, parts.netloc, "/.well-known/oauth-protected-resource", "", ""))
    path = parts.path.rstrip("/")
    return [root + path, root] if path else [root]


def as_metadata_urls(issuer: str) -> list[str]:
    """Where to look for an authorization server's metadata, in the spec's order (2025-11-25)."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")

    def at(p: str) -> str:
        return urlunsplit((parts.scheme, parts.netloc, p, "", ""))

    if path:
        return [
            at(f"/.well-known/oauth-authorization-server{path}"),
            at(f"/.well-known/openid-configuration{path}"),
            at(f"{path}/.well-known/openid-configuration"),
        ]
    return [at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")]


def legacy_endpoints(server_url: str) -> dict[str, Any]:
    """2025-03-26 without metadata: the default endpoints at the server's origin."""
    base = origin(server_url)
    return {
        "issuer": base,
        "authorization_endpoint": f"{base}/authorize",
        "token_endpoint": f"{base}/token",
        "registration_endpoint": f"{base}/register",
        "code_challenge_methods_supported": ["S256"],
    }
