"""`--otlp`'s value and the standard variables: whether and where to export (standard library only)."""

from __future__ import annotations

import os

from inspector.errors import InspectorError

__all__ = ["check_endpoint", "otlp_wanted"]


def otlp_wanted(url: str | None) -> bool:
    """Whether to export: `--otlp URL`, or the standard variables name an endpoint (and the SDK
    is not disabled with OTEL_SDK_DISABLED)."""
    if url:
        return True
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return bool(
        os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    )


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
