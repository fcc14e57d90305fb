"""DPoP (RFC 9449; the MCP DPoP extension, SEP-1932): a key pair the tokens are bound to, and the
proof JWT sent with each token request and each request that presents the token.

Used when the authorization server advertises ES256 in `dpop_signing_alg_values_supported`: the
flow makes a P-256 key for the grant, proves possession at the token endpoint (and again with the
server's nonce on a `use_dpop_nonce` answer, section 8), and the runner presents the token with the
`DPoP` scheme and a fresh proof (`ath`: the token's hash) per request, retrying once with the
resource server's nonce (section 9). The private key is kept with the tokens in the user-only auth
file (`store`), as a JWK; never in the recording (the proofs are, each bound to one request).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["ALG", "new_key", "nonce_challenge", "proof", "supported"]

ALG = "ES256"


def supported(metadata: dict[str, Any]) -> bool:
    """The AS binds tokens to a DPoP key and takes our algorithm."""
    algs = metadata.get("dpop_signing_alg_values_supported")
    return isinstance(algs, list) and ALG in algs


def new_key() -> dict[str, Any]:
    """A fresh P-256 key pair, as a private JWK."""
    from cryptography.hazmat.primitives.asymmetric import ec
    from jwt.algorithms import ECAlgorithm

    jwk = ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1()), as_dict=True)
    return dict(jwk)


def proof(
    key: dict[str, Any], method: str, url: str, *, access_token: str | None = None, nonce: str | None = None
) -> str:
    """A DPoP proof JWT (RFC 9449 4.2) for one request: `htu` is the URL without query and fragment;
    `ath` (the token's SHA-256) when the request presents an access token; `nonce` when the server
    gave one."""
    import jwt
    from jwt.algorithms import ECAlgorithm

    private = ECAlgorithm.from_jwk(key)
    public = {k: key[k] for k in ("kty", "crv", "x", "y")}
    parts = urlsplit(url)
    claims: dict[str, Any] = {
        "jti": secrets.token_urlsafe(16),
        "htm": method.upper(),
        "htu": urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")),
        "iat": int(time.time()),
    }
    if access_token is not None:
        digest = hashlib.sha256(access_token.encode()).digest()
        claims["ath"] = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    if nonce is not None:
        claims["nonce"] = nonce
    return jwt.encode(claims, private, algorithm=ALG, headers={"typ": "dpop+jwt", "jwk": public})  # type: ignore[arg-type]


def nonce_challenge(status: int, headers: dict[str, str], body: dict[str, Any] | None) -> str | None:
    """The nonce a server asks proofs to carry (`use_dpop_nonce`: a 400 error from the AS, section
    8; a 401 `DPoP error="use_dpop_nonce"` challenge from the resource server, section 9), or None."""
    nonce = headers.get("dpop-nonce")
    if not nonce:
        return None
    if status == 400 and body is not None and body.get("error") == "use_dpop_nonce":
        return nonce
    if status == 401 and "use_dpop_nonce" in headers.get("www-authenticate", ""):
        return nonce
    return None
