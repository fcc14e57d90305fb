"""Redaction of secrets before they reach storage.

HTTP headers that carry credentials keep their name and, for
Authorization, the scheme, so a reader still sees *that* a token was sent
and how; the secret itself is replaced by `[redacted]`.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["REDACTED", "SECRET_HEADERS", "redact_headers"]

REDACTED = "[redacted]"
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "x-auth-token"}
)


def _redact_value(name: str, value: str) -> str:
    if name in ("authorization", "proxy-authorization"):
        scheme, sep, _secret = value.partition(" ")
        return f"{scheme} {REDACTED}" if sep else REDACTED
    return REDACTED


def redact_headers(headers: Iterable[tuple[bytes, bytes]], *, keep_secrets: bool = False) -> list[list[str]]:
    """Raw (name, value) header pairs as JSON-ready [name, value] lists, secrets redacted."""
    out: list[list[str]] = []
    for raw_name, raw_value in headers:
        name = raw_name.decode("latin-1")
        value = raw_value.decode("latin-1")
        lower = name.lower()
        if not keep_secrets and lower in SECRET_HEADERS:
            value = _redact_value(lower, value)
        out.append([name, value])
    return out
