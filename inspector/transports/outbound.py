"""How this process reaches HTTP(S) servers: TLS trust, client certificates, forward proxies, pool size.

One `Outbound` value, built from the command line (`--ca-bundle`,
`--client-cert`, `--client-key`, `--insecure`, `--max-connections`) and
checked there (unreadable or malformed files are an `InspectorError`, before
anything else starts), is used by every outbound HTTP client of the process:
the recording proxy's upstream client (`upstream.UpstreamClient`, or httpx
when a forward proxy applies) and our own endpoints' connections
(`connect.py`: `call`, `replay`, `versions`, mock clients and forwarding of
`mock-server`, and what the UI starts). Like the redaction rules, the CLI
sets it once per process (`configure`); `active()` reads it.

Forward proxies come from the environment as curl and urllib read them:
`HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY` (either case) chosen by the
target's scheme, `NO_PROXY` to bypass (host suffixes, `*`). The stdlib's
`urllib.request` functions decide; nothing here parses the variables.
"""

from __future__ import annotations

import functools
import ssl
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from inspector.errors import InspectorError

__all__ = ["DEFAULT_MAX_CONNECTIONS", "Outbound", "active", "configure", "proxy_for"]

DEFAULT_MAX_CONNECTIONS = 64  # per origin; past it requests wait for a connection to come free


@dataclass(frozen=True)
class Outbound:
    """TLS settings and the connection cap for outbound HTTP; the default is the system trust store."""

    ca_bundle: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    insecure: bool = False
    max_connections: int = DEFAULT_MAX_CONNECTIONS

    @property
    def tls_customised(self) -> bool:
        return bool(self.ca_bundle or self.client_cert or self.insecure)

    def check(self) -> Outbound:
        """Raise `InspectorError` naming the option when a file cannot be used; returns self."""
        if self.max_connections < 1:
            raise InspectorError(f"--max-connections must be at least 1, got {self.max_connections}")
        if self.client_key and not self.client_cert:
            raise InspectorError("--client-key needs --client-cert (the certificate it belongs to)")
        if self.insecure and self.ca_bundle:
            raise InspectorError(
                "give --ca-bundle or --insecure, not both (--insecure trusts any certificate)"
            )
        for option, path in (
            ("--ca-bundle", self.ca_bundle),
            ("--client-cert", self.client_cert),
            ("--client-key", self.client_key),
        ):
            if path is not None:
                _readable(option, path)
        if self.tls_customised:
            self.ssl_context()  # malformed PEM, a key that does not match: said now, not at the first request
        return self

    def ssl_context(self) -> ssl.SSLContext:
        """The context for https origins (one per settings value, built once)."""
        return _context(self)


def _readable(option: str, path: str) -> None:
    p = Path(path)
    try:
        with p.open("rb") as f:
            f.read(1)
    except IsADirectoryError:
        raise InspectorError(f"{option} {path}: is a folder, not a PEM file") from None
    except OSError as exc:
        raise InspectorError(f"{option} {path}: cannot read it ({exc.strerror or exc})") from None


def _no_password() -> str:
    # Without this callback OpenSSL would prompt on the terminal (and hang a host-started process).
    raise InspectorError("--client-key: the key is encrypted; give an unencrypted copy")


@functools.cache
def _context(settings: Outbound) -> ssl.SSLContext:
    try:
        ctx = ssl.create_default_context(cafile=settings.ca_bundle)
    except ssl.SSLError as exc:
        raise InspectorError(
            f"--ca-bundle {settings.ca_bundle}: not a PEM certificate bundle ({exc})"
        ) from None
    if settings.insecure:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if settings.client_cert:
        try:
            ctx.load_cert_chain(settings.client_cert, settings.client_key, password=_no_password)
        except ssl.SSLError as exc:
            what = "--client-cert/--client-key" if settings.client_key else "--client-cert"
            raise InspectorError(
                f"{what}: not a PEM certificate with its private key, or they do not match ({exc})"
            ) from None
    ctx.set_alpn_protocols(["http/1.1"])  # both clients speak HTTP/1.1 only
    return ctx


_active = Outbound()


def configure(settings: Outbound) -> Outbound:
    """Set this process's outbound settings (checked first); every later client uses them."""
    global _active
    _active = settings.check()
    return _active


def active() -> Outbound:
    return _active


def proxy_for(url: str) -> str | None:
    """The forward proxy the environment names for `url`, None when none applies (or NO_PROXY matches)."""
    import urllib.request  # here: with http.client and email, not for a stdio `call`

    parts = urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if not proxy or not parts.hostname:
        return None
    # In CPython's urllib.request (undocumented), missing from typeshed's stubs.
    if urllib.request.proxy_bypass_environment(  # type: ignore[attr-defined]
        parts.netloc.rpartition("@")[2], proxies
    ):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"
