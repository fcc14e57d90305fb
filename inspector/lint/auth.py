"""Authorization rules: the OAuth legs of any recorded session (the mock client's, the proxy's, a
hand-made file's), judged against the MCP authorization spec.

Sans-IO, over the HTTP metadata each row keeps. A leg is known by its
`meta.auth_step` when the recorder labelled it, else by what it is: a
well-known metadata path (`protocol.auth_legs.metadata_kind`), an
authorization request (`response_type=code` in the query), a token request
(a form body with `grant_type`). Bodies are judged as the client got them
(`meta.rewritten_to.body` when `proxy --rewrite-auth-metadata` changed
them). Secrets are redacted in the stored rows; the rules only look at which
parameters are present, never at their values.

A rule the spec introduced in a later revision than the session's is not
applied. The legs usually come before the initialize exchange, so a leg
without a revision of its own takes the one the session negotiates later
(`scan.SessionScan.revision`); with none known every rule applies.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson

from inspector.lint.revision import RowContext, header, headers_of
from inspector.protocol.auth_legs import metadata_kind
from inspector.store.models import StoredRow

__all__ = ["AuthCheck", "is_auth_leg"]

Hit = tuple[str, str]

_PRM_FIELDS = ("resource", "authorization_servers")
_AS_FIELDS = ("issuer", "authorization_endpoint", "token_endpoint", "response_types_supported")
_RESOURCE_METADATA = re.compile(r"\bresource_metadata\s*=", re.IGNORECASE)
_OIDC = "/.well-known/openid-configuration"
_AS_WELL_KNOWN = ("/.well-known/oauth-authorization-server", _OIDC)


def _meta(row: StoredRow) -> dict[str, Any]:
    meta = row.get("meta")
    return meta if isinstance(meta, dict) else {}


def _split(row: StoredRow) -> tuple[str, dict[str, list[str]]]:
    parts = urlsplit(str(row.get("http_path") or ""))
    return parts.path, parse_qs(parts.query, keep_blank_values=True)


def _form(row: StoredRow) -> dict[str, list[str]]:
    raw = row.get("raw")
    if not raw or "form-urlencoded" not in (header(row, "content-type") or ""):
        return {}
    return parse_qs(bytes(raw).decode("latin-1"), keep_blank_values=True)


def _at_least(revision: str | None, since: str) -> bool:
    """Whether a rule stated in `since` applies (an unknown revision: it does)."""
    return revision is None or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", revision) or revision >= since


def _json_object(body: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _seen_body(row: StoredRow) -> bytes:
    """The body as the client got it."""
    rewritten = _meta(row).get("rewritten_to")
    body = rewritten.get("body") if isinstance(rewritten, dict) else None
    if isinstance(body, str):
        return body.encode()
    raw = row.get("raw")
    return bytes(raw) if raw else b""


def _expected_issuer(request: StoredRow) -> str | None:
    """The issuer an AS metadata URL was formed from (RFC 8414 3.1, OIDC discovery), as host + path."""
    path, _query = _split(request)
    origin = _meta(request).get("auth_origin")
    authority = urlsplit(origin).netloc if isinstance(origin, str) else headers_of(request).get("host")
    if not authority:
        return None
    for prefix in _AS_WELL_KNOWN:
        if path == prefix or path.startswith(prefix + "/"):
            return authority + path[len(prefix) :].rstrip("/")
    if path.endswith(_OIDC):
        return authority + path[: -len(_OIDC)].rstrip("/")
    return None


def _issuer_key(issuer: str) -> str:
    parts = urlsplit(issuer)
    return parts.netloc + parts.path.rstrip("/")


def is_auth_leg(request: StoredRow) -> bool:
    """Whether an exchange (by its request row) is an OAuth leg rather than an MCP request."""
    return AuthCheck.step(request) not in (None, "unauthorized", "step-up")


class AuthCheck:
    """The authorization legs of a session."""

    def __init__(self, session_revision: str | None = None) -> None:
        self._issuer: str | None = None  # the last issuer AS metadata named (as the client saw it)
        self._session_revision = session_revision  # `SessionScan.revision`

    def _revision(self, ctx: RowContext) -> str | None:
        return ctx.revision or self._session_revision

    @staticmethod
    def step(request: StoredRow) -> str | None:
        """The step of an exchange from its request row."""
        labelled = _meta(request).get("auth_step")
        if isinstance(labelled, str):
            return labelled
        path, query = _split(request)
        if (kind := metadata_kind(path)) is not None:
            return kind
        if "code" in query.get("response_type", []):
            return "authorization-request"
        grant = _form(request).get("grant_type", [""])[0]
        if grant:
            return "refresh" if grant == "refresh_token" else "token-request"
        return None

    def check(self, ctx: RowContext) -> Iterator[Hit]:
        row = ctx.row
        if row.get("channel") == "http-request" and ctx.direction == "c2s" and row.get("http_method"):
            yield from self._request(ctx)
        elif (
            row.get("channel") == "http-response"
            and ctx.direction == "s2c"
            and row.get("http_status") is not None
            and ctx.request_row is not None
        ):
            yield from self._response(ctx, ctx.request_row)

    def _request(self, ctx: RowContext) -> Iterator[Hit]:
        row = ctx.row
        if row.get("http_headers") is None:  # the proxy's own note (a client left), not a request
            return
        path, query = _split(row)
        if "access_token" in query:
            yield "auth-token-in-query", f"{row.get('http_method')} {path} carries access_token in its query"
        step = self.step(row)
        if step == "authorization-request":
            method = query.get("code_challenge_method", [""])[0]
            if "code_challenge" not in query:
                yield "auth-no-pkce", "the authorization request has no code_challenge"
            elif method != "S256":
                yield (
                    "auth-no-pkce",
                    f"the authorization request's code_challenge_method is {method or '(none)'}",
                )
            if "resource" not in query and _at_least(self._revision(ctx), "2025-06-18"):
                yield "auth-no-resource-parameter", "the authorization request has no resource parameter"
        elif step in ("token-request", "refresh"):
            form = _form(row)
            if form and "resource" not in form and _at_least(self._revision(ctx), "2025-06-18"):
                grant = form.get("grant_type", ["?"])[0]
                yield "auth-no-resource-parameter", f"the token request ({grant}) has no resource parameter"

    def _response(self, ctx: RowContext, request: StoredRow) -> Iterator[Hit]:
        status = int(ctx.row.get("http_status") or 0)
        step = self.step(request)
        if status == 401 and step in (None, "unauthorized", "step-up"):
            if _at_least(self._revision(ctx), "2025-06-18"):
                challenge = header(ctx.row, "www-authenticate")
                if challenge is None:
                    yield "auth-401-without-resource-metadata", "a 401 without a WWW-Authenticate header"
                elif not _RESOURCE_METADATA.search(challenge):
                    yield (
                        "auth-401-without-resource-metadata",
                        f"WWW-Authenticate: {challenge[:120]} names no resource_metadata",
                    )
            return
        if step == "authorization-request":
            location = header(ctx.row, "location")
            iss = parse_qs(urlsplit(location or "").query).get("iss", [None])[0]
            if iss is not None and self._issuer is not None and _issuer_key(iss) != _issuer_key(self._issuer):
                yield (
                    "auth-issuer-mismatch",
                    f"the authorization response's iss {iss} is not the issuer {self._issuer} (RFC 9207)",
                )
            return
        if not 200 <= status < 300:
            return
        if step == "resource-metadata" and _at_least(self._revision(ctx), "2025-06-18"):
            doc = _json_object(_seen_body(ctx.row))
            missing = [f for f in _PRM_FIELDS if not (doc or {}).get(f)]
            if doc is None:
                yield (
                    "auth-resource-metadata-incomplete",
                    "the protected resource metadata is not a JSON object",
                )
            elif missing:
                yield (
                    "auth-resource-metadata-incomplete",
                    f"protected resource metadata without {', '.join(missing)}",
                )
        elif step == "as-metadata":
            yield from self._as_metadata(ctx, request)

    def _as_metadata(self, ctx: RowContext, request: StoredRow) -> Iterator[Hit]:
        doc = _json_object(_seen_body(ctx.row))
        if doc is None:
            yield "auth-server-metadata-incomplete", "the authorization server metadata is not a JSON object"
            return
        required = list(_AS_FIELDS)
        if _at_least(self._revision(ctx), "2025-11-25"):
            required.append("code_challenge_methods_supported")
        missing = [f for f in required if not doc.get(f)]
        if missing:
            yield (
                "auth-server-metadata-incomplete",
                f"authorization server metadata without {', '.join(missing)}",
            )
        issuer = doc.get("issuer")
        if not isinstance(issuer, str):
            return
        self._issuer = issuer
        expected = _expected_issuer(request)
        if expected is not None and _issuer_key(issuer) != expected:
            yield (
                "auth-issuer-mismatch",
                f"metadata fetched from {request.get('http_path')} on {expected.split('/')[0]} names issuer "
                f"{issuer}",
            )
