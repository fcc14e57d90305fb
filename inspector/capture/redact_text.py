"""Secrets in free text: a server's stderr lines, where there are no headers or JSON keys to go by.

Servers log what they do, and some log credentials: `Authorization: Bearer
...`, `api_key=...`, a token in a URL, a JSON body they received. A log
line is looked at for:

- an authorization scheme followed by a credential (`Bearer X`, `Basic X`,
  `Token X`: a word with a digit, inner capitals or 20 characters or more,
  so "Bearer authentication" stays): `[secret:log.authorization]`;
- `NAME=VALUE` / `NAME: VALUE` (quotes allowed) where NAME names a secret
  (the same test as command-line flags: token, secret, api key, password,
  the user's `--redact` names; not `max_tokens`, `token_file`):
  `[secret:log.NAME]`;
- URLs: their query secrets and password, as for URL targets.

`redact_line` is given the `Redaction`'s own name test and URL rule, so
the user's names count here as everywhere else.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["redact_line"]

_SCHEME = re.compile(rb"(?i)\b(bearer|basic|token)(\s+)([A-Za-z0-9\-._~+/]+=*)")
_PAIR = re.compile(rb"(?<![\[\w.-])([\"']?)([A-Za-z][A-Za-z0-9_.-]*)\1(\s*[:=]\s*)([\"']?)([^\s\"',;&)}\]]+)")
_URL = re.compile(rb"[a-z][a-z0-9+.-]*://[^\s\"'<>]+")
_DIGIT = re.compile(rb"[0-9]")
_INNER_CAPITAL = re.compile(rb"[a-z][A-Z]")


def _credential(word: bytes) -> bool:
    """A credential rather than a word: a digit, 20 characters or more, or capitals inside it."""
    return len(word) >= 20 or _DIGIT.search(word) is not None or _INNER_CAPITAL.search(word) is not None


def redact_line(
    raw: bytes,
    secret_name: Callable[[str], bool],
    url: Callable[[str], str],
    done: list[str],
) -> bytes:
    """`raw` with the secrets it shows replaced by placeholders (`done` gets their names)."""

    def scheme(m: re.Match[bytes]) -> bytes:
        if not _credential(m[3]):
            return m[0]
        done.append("log.authorization")
        return m[1] + m[2] + b"[secret:log.authorization]"

    def pair(m: re.Match[bytes]) -> bytes:
        name = m[2].decode("ascii").lower()
        value = m[5]
        if value.startswith(b"[secret:") or not (secret_name(name) or name == "authorization"):
            return m[0]
        if name == "authorization" and value.lower() in (b"bearer", b"basic", b"token"):
            return m[0]  # the scheme's credential is the next word (done above)
        done.append("log." + name)
        return m[1] + m[2] + m[1] + m[3] + m[4] + f"[secret:log.{name}]".encode()

    def in_url(m: re.Match[bytes]) -> bytes:
        text = m[0].decode("utf-8", "surrogateescape")
        redacted = url(text)
        if redacted == text:
            return m[0]
        done.append("log.url")
        return redacted.encode("utf-8", "surrogateescape")

    out = _URL.sub(in_url, raw) if b"://" in raw else raw
    out = _SCHEME.sub(scheme, out)
    return _PAIR.sub(pair, out) if (b"=" in out or b":" in out) else out
