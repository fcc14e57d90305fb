"""Whether and where to export (no OpenTelemetry import: `wrap` asks this before loading the SDK)."""

from __future__ import annotations

from typing import Any

from inspector.otel.options import check_endpoint, otlp_wanted

__all__ = ["check_endpoint", "close_otel", "otel_for", "otlp_wanted"]


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
