"""`--otlp`'s value and the standard variables: whether and where to export, and whether the `otel`
extra is installed to do it (standard library only)."""

from __future__ import annotations

import os

from inspector.errors import InspectorError, MissingExtraError

__all__ = ["ENDPOINT_VARIABLES", "check_endpoint", "otel_installed", "otlp_wanted", "require_otel"]

ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")

# The `otel` extra (pyproject): the SDK and its OTLP/HTTP exporter. (opentelemetry-api alone is
# always there: FastAPI requires it.)
_EXTRA_MODULES = ("opentelemetry.sdk.trace", "opentelemetry.exporter.otlp.proto.http")


def otlp_wanted(url: str | None) -> bool:
    """Whether to export: `--otlp URL`, or the standard variables name an endpoint (and the SDK
    is not disabled with OTEL_SDK_DISABLED)."""
    if url:
        return True
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return any(os.environ.get(name) for name in ENDPOINT_VARIABLES)


def check_endpoint(url: str | None) -> str | None:
    """`--otlp`'s value checked (an http(s) URL), without a trailing slash; None stays None."""
    if url is None:
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InspectorError(
            f"--otlp needs the collector's OTLP/HTTP base URL, e.g. http://localhost:4318, not {url!r}"
        )
    return url.rstrip("/")


def otel_installed() -> bool:
    """Whether the `otel` extra is installed, found without importing it (only its namespace
    packages are: the SDK itself takes a second to import and is loaded on the exporter's thread)."""
    from importlib.util import find_spec

    try:
        return all(find_spec(name) is not None for name in _EXTRA_MODULES)
    except (ImportError, ValueError):  # a parent package missing
        return False


def require_otel(what: str = "OpenTelemetry export (--otlp)") -> None:
    """Raise the one-line error naming the `otel` extra when it is not installed."""
    if not otel_installed():
        raise MissingExtraError(what, "otel")
