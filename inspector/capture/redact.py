"""Redaction of secrets before they reach storage.

HTTP headers that carry credentials keep their name and, for
Authorization, the scheme, so a reader still sees *that* a token was sent
and how; the secret itself is replaced by a named placeholder,
`[secret:authorization]`. A replay puts secrets back from the environment
(`MCP_INSPECTOR_SECRET_AUTHORIZATION`) or a `--secret NAME=VALUE` flag
(`resolve_secrets`), so authenticated sessions replay without the secret
ever reaching the database.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["SECRET_HEADERS", "placeholder", "redact_headers", "resolve_secrets", "secret_env_var"]
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "x-auth-token"}
)


_PLACEHOLDER = re.compile(r"\[secret:([a-z0-9_.-]+)\]")


def placeholder(name: str) -> str:
    """The text stored in place of a secret."""
    return f"[secret:{name}]"


def secret_env_var(name: str) -> str:
    """The environment variable a replay reads a secret from."""
    return "MCP_INSPECTOR_SECRET_" + re.sub(r"[^A-Z0-9]", "_", name.upper())


def _redact_value(name: str, value: str) -> str:
    if name in ("authorization", "proxy-authorization"):
        scheme, sep, _secret = value.partition(" ")
        return f"{scheme} {placeholder(name)}" if sep else placeholder(name)
    return placeholder(name)


def resolve_secrets(
    value: str, given: Mapping[str, str], environ: Mapping[str, str]
) -> tuple[str, list[str]]:
    """Put secrets back into a recorded value; also return the names that stayed unknown."""
    missing: list[str] = []

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in given:
            return given[name]
        if secret_env_var(name) in environ:
            return environ[secret_env_var(name)]
        missing.append(name)
        return m.group(0)

    return _PLACEHOLDER.sub(fill, value), missing


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
