"""Token requests: scope selection, client authentication at the token endpoint, code exchange,
refresh, the token response, and RFC 9207 `iss` validation of the authorization response."""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from inspector.auth.registration import ClientIdentity
from inspector.auth.revisions import Revision
from inspector.auth.steps import HttpRequest, HttpResponse
from inspector.errors import AuthFailure
from inspector.terminal_text import visible

__all__ = [
    "Tokens",
    "auth_method",
    "check_iss",
    "client_assertion",
    "client_credentials_request",
    "code_request",
    "merge_scopes",
    "parse_tokens",
    "refresh_request",
    "select_scope",
]


@dataclass
class Tokens:
    """What the token endpoint gave; `expires_at` is a Unix time (None: not said)."""

    access_token: str
    token_type: str = "Bearer"
    refresh_token: str | None = None
    scope: str | None = None
    expires_at: float | None = None
    lifetime: float | None = None  # expires_in as given

    def expired(self, now: float | None = None) -> bool:
        """Expired, or about to (30 s before, or a tenth of a shorter lifetime): refresh first."""
        margin = min(30.0, self.lifetime / 10) if self.lifetime else 30.0
        return self.expires_at is not None and (now or time.time()) + margin >= self.expires_at

    def to_json(self) -> dict[str, Any]:
        return {
            "access_token": self.access_token,
            "token_type": self.token_type,
            "refresh_token": self.refresh_token,
            "scope": self.scope,
            "expires_at": self.expires_at,
            "lifetime": self.lifetime,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Tokens:
        return cls(
            doc["access_token"],
            doc.get("token_type") or "Bearer",
            doc.get("refresh_token"),
            doc.get("scope"),
            doc.get("expires_at"),
            doc.get("lifetime"),
        )


def select_scope(given: str | None, challenge_scope: str | None, scopes_supported: Any) -> str | None:
    """The scope to ask for (2025-11-25 scope selection strategy): the user's, else the
    WWW-Authenticate `scope`, else all of the resource metadata's `scopes_supported`, else none."""
    if given:
        return given
    if challenge_scope:
        return challenge_scope
    if isinstance(scopes_supported, list) and scopes_supported:
        return " ".join(str(s) for s in scopes_supported)
    return None


def merge_scopes(*scopes: str | None) -> str | None:
    """The union of space-separated scope strings, in first-seen order (step-up keeps what it had)."""
    seen: list[str] = []
    for scope in scopes:
        for word in (scope or "").split():
            if word not in seen:
                seen.append(word)
    return " ".join(seen) or None


def auth_method(client: ClientIdentity, metadata: dict[str, Any]) -> str:
    """How to authenticate at the token endpoint: a signed assertion for a client with a private key
    (private_key_jwt), else what registration said, else the first of the AS's
    `token_endpoint_auth_methods_supported` we can do (RFC 8414 default: client_secret_basic)."""
    if client.private_key_file:
        return "private_key_jwt"
    if client.client_secret is None:
        return "none"
    if client.auth_method in ("client_secret_basic", "client_secret_post", "none"):
        return client.auth_method
    supported = metadata.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    for method in supported:
        if method in ("client_secret_basic", "client_secret_post"):
            return str(method)
    return "none" if "none" in supported else "client_secret_basic"


_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def client_assertion(client: ClientIdentity, audience: str, now: float | None = None) -> str:
    """RFC 7523 2.2 client authentication: a short-lived JWT signed with the client's private key
    (iss and sub the client_id, aud the authorization server's issuer). The algorithm follows the
    key: ES256/384/512 for an EC key by its curve, RS256 for RSA, EdDSA for Ed25519. AuthFailure
    `bad-private-key` when the file cannot be read as a PEM private key."""
    import secrets

    import jwt
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    assert client.private_key_file
    try:
        with open(client.private_key_file, "rb") as f:
            key = load_pem_private_key(f.read(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise AuthFailure(
            "token-request",
            "bad-private-key",
            f"cannot use {visible(client.private_key_file)} as a PEM private key: {visible(str(exc))}",
        ) from None
    if isinstance(key, ec.EllipticCurvePrivateKey):
        alg = {"secp384r1": "ES384", "secp521r1": "ES512"}.get(key.curve.name, "ES256")
    elif isinstance(key, rsa.RSAPrivateKey):
        alg = "RS256"
    elif isinstance(key, ed25519.Ed25519PrivateKey):
        alg = "EdDSA"
    else:
        raise AuthFailure("token-request", "bad-private-key", "the private key is not EC, RSA or Ed25519")
    issued = int(now or time.time())
    claims = {
        "iss": client.client_id,
        "sub": client.client_id,
        "aud": audience,
        "iat": issued,
        "exp": issued + 300,
        "jti": secrets.token_urlsafe(16),
    }
    return jwt.encode(claims, key, algorithm=alg)


def _token_request(
    endpoint: str, form: dict[str, str], client: ClientIdentity, method: str, audience: str = ""
) -> HttpRequest:
    headers = {"content-type": "application/x-www-form-urlencoded", "accept": "application/json"}
    if method == "private_key_jwt" and client.private_key_file:
        form = {
            **form,
            "client_id": client.client_id,
            "client_assertion_type": _ASSERTION_TYPE,
            "client_assertion": client_assertion(client, audience or endpoint),
        }
    elif method == "client_secret_basic" and client.client_secret is not None:
        # RFC 6749 2.3.1: each part form-urlencoded before base64.
        pair = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
        headers["authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    else:
        form = {**form, "client_id": client.client_id}
        if method == "client_secret_post" and client.client_secret is not None:
            form["client_secret"] = client.client_secret
    return HttpRequest("POST", endpoint, headers, urlencode(form).encode())


def code_request(
    endpoint: str,
    client: ClientIdentity,
    method: str,
    *,
    code: str,
    verifier: str,
    redirect_uri: str,
    resource: str | None,
    audience: str = "",
) -> HttpRequest:
    """The authorization_code grant request (with the PKCE verifier and the RFC 8707 resource);
    `audience`: the issuer, for a client assertion."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": redirect_uri,
    }
    if resource:
        form["resource"] = resource
    return _token_request(endpoint, form, client, method, audience)


def refresh_request(
    endpoint: str,
    client: ClientIdentity,
    method: str,
    *,
    refresh_token: str,
    resource: str | None,
    audience: str = "",
) -> HttpRequest:
    """The refresh_token grant request."""
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token}
    if resource:
        form["resource"] = resource
    return _token_request(endpoint, form, client, method, audience)


def client_credentials_request(
    endpoint: str,
    client: ClientIdentity,
    method: str,
    *,
    scope: str | None,
    resource: str | None,
    audience: str = "",
) -> HttpRequest:
    """The client_credentials grant request (OAuth 2.1 4.2; SEP-1046, the MCP extension for
    clients acting on their own behalf): no user, no authorization request, no PKCE."""
    form = {"grant_type": "client_credentials"}
    if scope:
        form["scope"] = scope
    if resource:
        form["resource"] = resource
    return _token_request(endpoint, form, client, method, audience)


def parse_tokens(response: HttpResponse, step: str, revision: Revision, now: float | None = None) -> Tokens:
    """The tokens of a successful token response; AuthFailure `token-refused` otherwise."""
    doc = response.json()
    if response.status != 200 or doc is None or not isinstance(doc.get("access_token"), str):
        said = ""
        if doc is not None and doc.get("error"):
            said = f": {visible(doc.get('error'))}" + (
                f" ({visible(doc['error_description'])})" if doc.get("error_description") else ""
            )
        raise AuthFailure(
            step,
            "token-refused",
            f"the token endpoint answered {response.status}{said}",
            revision.section("token-handling"),
        )
    expires = doc.get("expires_in")
    return Tokens(
        doc["access_token"],
        str(doc.get("token_type") or "Bearer"),
        doc.get("refresh_token") if isinstance(doc.get("refresh_token"), str) else None,
        doc.get("scope") if isinstance(doc.get("scope"), str) else None,
        (now or time.time()) + float(expires) if isinstance(expires, int | float) else None,
        float(expires) if isinstance(expires, int | float) else None,
    )


def check_iss(iss: str | None, issuer: str, metadata: dict[str, Any], revision: Revision) -> None:
    """RFC 9207 section 2.4 as 2026-07-28 asks: a present `iss` must equal the recorded issuer
    (simple string comparison); an absent one is refused when the AS advertises it sends `iss`."""
    if not revision.iss_check:
        return
    advertised = metadata.get("authorization_response_iss_parameter_supported") is True
    if iss is None:
        if advertised:
            raise AuthFailure(
                "authorization-response",
                "iss-missing",
                "the authorization response has no iss though the AS advertises "
                "authorization_response_iss_parameter_supported",
                revision.section("authorization-server-issuer-identification"),
            )
        return
    if iss != issuer:
        raise AuthFailure(
            "authorization-response",
            "issuer-mismatch",
            f"the authorization response's iss {iss!r} is not the issuer {issuer!r}",
            revision.section("authorization-server-issuer-identification"),
        )
