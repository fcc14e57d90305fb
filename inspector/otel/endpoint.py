"""Whether and where to export (no OpenTelemetry import: `wrap` asks this before loading the SDK)."""

from __future__ import annotations

import os
from typing import Any

from inspector.errors import InspectorError

__all__ = ["check_endpoint", "close_otel", "otel_for", "otlp_wanted"]


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


def otel_for(
    url: str | None,
    *,
    transport: str,
    content: bool = False,
    quiet: bool = False,
    server_url: str | None = None,
) -> list[Any]:
    """The recorder subscriber exporting to OpenTelemetry, in a list, when `--otlp URL` or the
    OTEL_EXPORTER_OTLP_* variables ask for it; else [] (and the SDK is not imported).
    `server_url`: an HTTP target, for the client spans' server.address and server.port."""
    if not otlp_wanted(url):
        return []
    check_endpoint(url)
    from inspector.otel.live import otel_subscribers

    return otel_subscribers(url, transport=transport, content=content, quiet=quiet, server_url=server_url)


def close_otel(subscribers: list[Any], timeout: float = 10.0) -> None:
    """After the recorder stopped: the OpenTelemetry subscribers among `subscribers` export what
    is left and stop."""
    if any(type(s).__name__ == "OtelSubscriber" for s in subscribers):
        from inspector.otel.live import close_all

        close_all(subscribers, timeout)
