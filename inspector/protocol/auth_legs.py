"""The authorization legs the recording proxy sees, and what `--rewrite-auth-metadata` changes, without IO.

- `AuthLegs.step` names an exchange's step of the OAuth flow the way the
  mock client labels its own legs (`meta.auth_step`: `unauthorized`,
  `step-up`, `resource-metadata`, `as-metadata`, `registration`,
  `authorization-request`, `token-request`, `refresh`). The authorization
  server's endpoints are learned from the metadata documents that pass
  through (else the 2025-03-26 defaults `/authorize`, `/token`, `/register`).
- `rewrite_challenge` and `rewrite_metadata` point what must match the URL
  the client uses at the proxy: a `WWW-Authenticate` challenge's
  `resource_metadata`, and in a metadata document every URL on the
  upstream's origin (the Protected Resource Metadata's `resource` and
  `authorization_servers`, the AS metadata's `issuer` and endpoints, which
  must match the `authorization_servers` entry the client followed). URLs
  on other origins are left alone.

The proxy (`transports/http_proxy.py`) does the IO and asks these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import orjson

__all__ = [
    "AS_METADATA_PREFIXES",
    "PRM_PREFIX",
    "AuthLegs",
    "is_metadata_path",
    "rewrite_challenge",
    "rewrite_metadata",
    "rewrite_url",
]

PRM_PREFIX = "/.well-known/oauth-protected-resource"
AS_METADATA_PREFIXES = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")
_OIDC_APPENDED = "/.well-known/openid-configuration"

# resource_metadata="URL" (quoted) or resource_metadata=URL (a token) in a challenge.
_RESOURCE_METADATA = re.compile(r'(resource_metadata\s*=\s*)("([^"]*)"|[^\s,]+)', re.IGNORECASE)


def metadata_kind(path: str) -> str | None:
    """`resource-metadata` or `as-metadata` for a well-known metadata path, else None."""
    if path == PRM_PREFIX or path.startswith(PRM_PREFIX + "/"):
        return "resource-metadata"
    for prefix in AS_METADATA_PREFIXES:
        if path == prefix or path.startswith(prefix + "/"):
            return "as-metadata"
    if path.endswith(_OIDC_APPENDED):
        return "as-metadata"
    return None


def is_metadata_path(path: str) -> bool:
    return metadata_kind(path) is not None


def rewrite_url(url: str, upstream_origin: str, proxy_origin: str) -> str | None:
    """`url` on the proxy's origin when it is on the upstream's (same path and query), else None."""
    if url == upstream_origin:
        return proxy_origin
    if url.startswith(upstream_origin) and url[len(upstream_origin)] in "/?#":
        return proxy_origin + url[len(upstream_origin) :]
    return None


def rewrite_challenge(value: str, upstream_origin: str, proxy_origin: str) -> str | None:
    """A `WWW-Authenticate` value with its `resource_metadata` URL moved to the proxy, or None (unchanged)."""
    changed = False

    def swap(match: re.Match[str]) -> str:
        nonlocal changed
        quoted = match.group(3)
        url = quoted if quoted is not None else match.group(2)
        new = rewrite_url(url, upstream_origin, proxy_origin)
        if new is None:
            return match.group(0)
        changed = True
        return f'{match.group(1)}"{new}"' if quoted is not None else match.group(1) + new

    out = _RESOURCE_METADATA.sub(swap, value)
    return out if changed else None


def rewrite_metadata(body: bytes, upstream_origin: str, proxy_origin: str) -> bytes | None:
    """A metadata document with its upstream-origin URLs moved to the proxy, or None (unchanged, not JSON)."""
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(doc, dict):
        return None
    changed = False
    out: dict[str, object] = {}
    for key, value in doc.items():
        if isinstance(value, str) and (new := rewrite_url(value, upstream_origin, proxy_origin)) is not None:
            out[key], changed = new, True
        elif isinstance(value, list):
            items: list[object] = []
            for item in value:
                moved = rewrite_url(item, upstream_origin, proxy_origin) if isinstance(item, str) else None
                items.append(item if moved is None else moved)
                changed = changed or moved is not None
            out[key] = items
        else:
            out[key] = value
    return orjson.dumps(out) if changed else None


def _path_of(url: object) -> str | None:
    if not isinstance(url, str):
        return None
    parts = urlsplit(url)
    return parts.path or "/"


@dataclass
class AuthLegs:
    """Names the authorization step of each exchange the proxy forwards.

    `mcp_paths` are the MCP endpoint's paths (a 401/403 there is the refused
    MCP request); the AS endpoints start at the 2025-03-26 defaults and are
    replaced by what metadata documents name (`learn`)."""

    mcp_paths: set[str]
    authorization: set[str] = field(default_factory=lambda: {"/authorize"})
    token: set[str] = field(default_factory=lambda: {"/token"})
    registration: set[str] = field(default_factory=lambda: {"/register"})

    def step(self, method: str, path: str, body: bytes = b"") -> str | None:
        """The step of a request, from its method, path and (for the token endpoint) form body."""
        if path in self.mcp_paths:
            return None
        kind = metadata_kind(path)
        if kind is not None:
            return kind
        if method == "POST" and path in self.registration:
            return "registration"
        if method == "GET" and path in self.authorization:
            return "authorization-request"
        if method == "POST" and path in self.token:
            grant = parse_qs(body.decode("latin-1")).get("grant_type", [""])[0]
            return "refresh" if grant == "refresh_token" else "token-request"
        return None

    def refused(self, path: str, status: int) -> str | None:
        """The step of an MCP request the server refused: `unauthorized` (401) or `step-up` (403)."""
        if path not in self.mcp_paths:
            return None
        return {401: "unauthorized", 403: "step-up"}.get(status)

    def learn(self, body: bytes) -> None:
        """Take the endpoints an AS metadata document names (as the client will use them)."""
        try:
            doc = orjson.loads(body)
        except orjson.JSONDecodeError:
            return
        if not isinstance(doc, dict):
            return
        for key, paths in (
            ("authorization_endpoint", self.authorization),
            ("token_endpoint", self.token),
            ("registration_endpoint", self.registration),
        ):
            if (path := _path_of(doc.get(key))) is not None:
                paths.add(path)
