"""The recorder subscriber of `wrap --otlp` and `proxy --otlp`: spans as rows are recorded.

It runs on the recorder's writer thread after the store writer (a batch it
sees is committed), off the forwarding path. It never raises (the recorder
would take that for a failing database and hold the rows back): a row it
cannot map is skipped. Rows go to a `SpanMapper` per session; finished spans
go to the exporter's bounded queue (`OtlpExport.emit` never waits).
"""

from __future__ import annotations

import time
from typing import Any

from inspector.otel.exporter import OtlpExport
from inspector.otel.options import check_endpoint, otlp_wanted
from inspector.otel.spans import SpanMapper
from inspector.store.models import MessageRow

__all__ = ["OtelSubscriber", "close_all", "otel_subscribers"]


class OtelSubscriber:
    """Maps each batch of recorded rows to spans and hands them to an `OtlpExport`."""

    def __init__(
        self, export: OtlpExport, *, transport: str, content: bool = False, server_url: str | None = None
    ) -> None:
        self.export = export
        self.server_url = server_url
        self.transport = transport
        self.content = content
        self.mappers: dict[int, SpanMapper] = {}
        self.skipped = 0

    def _mapper(self, session_id: int) -> SpanMapper:
        mapper = self.mappers.get(session_id)
        if mapper is None:
            mapper = self.mappers[session_id] = SpanMapper(
                session_id, transport=self.transport, content=self.content, server_url=self.server_url
            )
        return mapper

    def on_batch(self, rows: list[MessageRow], facts: dict[int, dict[str, Any]]) -> None:
        for session_id, session_facts in facts.items():
            self._mapper(session_id).facts(session_facts)
        spans = []
        for row in rows:
            try:
                spans.extend(self._mapper(row["session_id"]).feed(row))
            except Exception:  # never fail the recorder's batch
                self.skipped += 1
        if spans:
            self.export.emit(spans)

    def on_end(self, session_id: int, exit_status: int | None, reason: str, facts: dict[str, Any]) -> None:
        mapper = self.mappers.pop(session_id, None)
        if mapper is not None:
            try:
                self.export.emit(mapper.finish(time.time_ns()))
            except Exception:
                self.skipped += 1

    def close(self, timeout: float = 10.0) -> None:
        """After the recorder stopped: export what is left."""
        self.export.close(timeout)


def otel_subscribers(
    url: str | None,
    *,
    transport: str,
    content: bool = False,
    quiet: bool = False,
    server_url: str | None = None,
) -> list[OtelSubscriber]:
    """[an `OtelSubscriber`] when `--otlp URL` or the OTEL_EXPORTER_OTLP_* variables ask for export,
    else []."""
    if not otlp_wanted(url):
        return []
    export = OtlpExport(check_endpoint(url), quiet=quiet)
    return [OtelSubscriber(export, transport=transport, content=content, server_url=server_url)]


def close_all(subscribers: list[Any], timeout: float = 10.0) -> None:
    """Close the OpenTelemetry subscribers among a recorder's subscribers."""
    for sub in subscribers:
        if isinstance(sub, OtelSubscriber):
            sub.close(timeout)
