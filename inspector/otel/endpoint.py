"""Whether and where to export (no OpenTelemetry import: `wrap` asks this before loading the SDK)."""

from __future__ import annotations

import os
import sys
from typing import Any

from inspector.errors import MissingExtraError
from inspector.otel.options import (
    ENDPOINT_VARIABLES,
    check_endpoint,
    otel_installed,
    otlp_wanted,
    require_otel,
)

__all__ = ["check_endpoint", "close_otel", "otel_allowed", "otel_for", "otlp_wanted"]


def otel_allowed(url: str | None, *, quiet: bool = False) -> bool:
    """Whether the export `--otlp URL` or the OTEL_EXPORTER_OTLP_* variables ask for can run, checked
    without importing the SDK: a bad URL, or `--otlp` without the `otel` extra, is refused (an
    InspectorError); the variables alone without the extra are said once (unless `quiet`) and give
    False, and the recording goes on without the export. `wrap` asks this before its server starts."""
    if not otlp_wanted(url):
        return False
    check_endpoint(url)
    if url:
        require_otel()  # asked for on the command line: refused without the extra
        return True
    if otel_installed():
        return True
    # Only the standard variables, which may be set for other programs.
    if not quiet:
        var = next(v for v in ENDPOINT_VARIABLES if os.environ.get(v))
        print(f"[mcp-inspect] {MissingExtraError(f'OpenTelemetry export ({var} is set)', 'otel')}; "
              "not exporting", file=sys.stderr, flush=True)  # fmt: skip
    return False


def otel_for(
    url: str | None,
    *,
    transport: str,
    content: bool = False,
    quiet: bool = False,
    server_url: str | None = None,
) -> list[Any]:
    """The recorder subscriber exporting to OpenTelemetry, in a list, when `--otlp URL` or the
    OTEL_EXPORTER_OTLP_* variables ask for it; else [] (and the SDK is not imported). Without the
    `otel` extra, `--otlp` is refused (MissingExtraError) and the variables alone are said and ignored.
    `server_url`: an HTTP target, for the client spans' server.address and server.port."""
    if not otlp_wanted(url) or not otel_allowed(url, quiet=quiet):
        return []
    from inspector.otel.live import otel_subscribers

    return otel_subscribers(url, transport=transport, content=content, quiet=quiet, server_url=server_url)


def close_otel(subscribers: list[Any], timeout: float = 10.0) -> None:
    """After the recorder stopped: the OpenTelemetry subscribers among `subscribers` export what
    is left and stop."""
    if any(type(s).__name__ == "OtelSubscriber" for s in subscribers):
        from inspector.otel.live import close_all

        close_all(subscribers, timeout)
