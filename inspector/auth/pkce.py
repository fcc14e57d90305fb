"""PKCE (RFC 7636) with S256, and the per-revision check that the AS supports it."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any

from inspector.auth.revisions import Revision
from inspector.errors import AuthFailure

__all__ = ["challenge", "check_s256", "new_verifier"]


def new_verifier() -> str:
    """A fresh code verifier: 43 characters of base64url (32 random bytes)."""
    return secrets.token_urlsafe(32)


def challenge(verifier: str) -> str:
    """BASE64URL(SHA256(verifier)) without padding."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def check_s256(metadata: dict[str, Any], revision: Revision) -> None:
    """Refuse an AS that does not advertise S256 where the revision says the client MUST refuse.

    2025-11-25 and later: `code_challenge_methods_supported` absent means no PKCE (refuse);
    present without S256: S256 cannot be used (refuse). Earlier revisions: S256 is sent anyway."""
    methods = metadata.get("code_challenge_methods_supported")
    if not revision.requires_s256_advertised:
        return
    if not isinstance(methods, list) or "S256" not in methods:
        raise AuthFailure(
            "pkce",
            "no-s256",
            "the authorization server's metadata does not list S256 in code_challenge_methods_supported"
            + (" (the field is absent)" if methods is None else f" (it lists {methods})"),
            revision.section("authorization-code-protection"),
        )
