"""Span descriptions out over OTLP/HTTP with the OpenTelemetry SDK (the thin IO part).

`OtlpExport` takes `SpanDescription`s from any thread (`emit`: a bounded
queue put, never a wait) and one worker thread turns them into SDK spans
with their recorded start and end times, exports them in batches with the
SDK's OTLP/HTTP span exporter, and records each operation's duration in the
`mcp.client.operation.duration` / `mcp.server.operation.duration`
histograms (seconds), exported by the SDK's periodic metric reader.

A collector that is down or slow never holds anything up: the queue is
bounded (`max_queued` spans), what does not fit is dropped and counted, a
failed export drops its batch (the SDK exporter retries within its timeout
first), the first failure prints one line on stderr and `close` prints how
many spans were dropped. The SDK's own log lines about failed exports are
silenced (they would repeat on every attempt).

The endpoint: `--otlp URL` is the collector's base URL (as
`OTEL_EXPORTER_OTLP_ENDPOINT`: `/v1/traces` and `/v1/metrics` are added);
without it the SDK reads the standard `OTEL_EXPORTER_OTLP_*` variables
(endpoint, per-signal endpoints, headers, timeout, compression).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections import deque
from collections.abc import Iterable
from typing import Any

from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricExportResult, MetricsData, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.trace import (
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
    TraceState,
    set_span_in_context,
)

from inspector import __version__
from inspector.otel.spans import CLIENT_DURATION, SERVER_DURATION, SpanDescription

__all__ = ["OtlpExport"]

# Boundaries the conventions advise for the MCP duration histograms (model/mcp/metrics.yaml).
_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
_BATCH = 512
_DEFAULT_TIMEOUT_S = 5.0


class _Collect(SpanProcessor):
    """Keeps ended spans for the worker to export in one batch."""

    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def on_end(self, span: ReadableSpan) -> None:
        self.spans.append(span)


class _Metrics(OTLPMetricExporter):
    """The SDK's metric exporter, telling its owner when an export failed."""

    def __init__(self, owner: OtlpExport, endpoint: str | None, timeout: float | None) -> None:
        super().__init__(endpoint=endpoint, timeout=timeout)
        self._owner = owner

    def export(
        self, metrics_data: MetricsData, timeout_millis: float | None = None, **kwargs: Any
    ) -> MetricExportResult:
        result = super().export(metrics_data, timeout_millis=timeout_millis, **kwargs)
        if result is not MetricExportResult.SUCCESS:
            self._owner._failed("metrics")
        return result


class OtlpExport:
    """Exports span descriptions and their durations to one OTLP/HTTP collector."""

    def __init__(
        self,
        endpoint: str | None = None,
        *,
        max_queued: int = 8192,
        metric_interval_s: float = 5.0,
        quiet: bool = False,
    ) -> None:
        self.endpoint = endpoint
        self.max_queued = max_queued
        self.quiet = quiet
        self.exported = 0
        self.dropped = 0
        self._warned = False
        self._down = False  # an export failed: at close, nothing more is tried
        # The SDK logs each failed attempt (and the retries) at WARNING/ERROR: we say it once.
        for name in ("opentelemetry.exporter", "opentelemetry.sdk.metrics", "opentelemetry.sdk.trace"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        timeout = None if os.environ.get("OTEL_EXPORTER_OTLP_TIMEOUT") else _DEFAULT_TIMEOUT_S
        attrs = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": "mcp-inspect"}
        resource = Resource.create({**attrs, "service.version": __version__})
        traces = f"{endpoint}/v1/traces" if endpoint else None
        metrics = f"{endpoint}/v1/metrics" if endpoint else None
        self._spans = OTLPSpanExporter(endpoint=traces, timeout=timeout)
        self._collect = _Collect()
        self._tracer_provider = TracerProvider(resource=resource)
        self._tracer_provider.add_span_processor(self._collect)
        self._tracer = self._tracer_provider.get_tracer("mcp-inspect", __version__)
        self._reader = PeriodicExportingMetricReader(
            _Metrics(self, endpoint=metrics, timeout=timeout), export_interval_millis=metric_interval_s * 1000
        )
        self._meter_provider = MeterProvider(metric_readers=[self._reader], resource=resource)
        meter = self._meter_provider.get_meter("mcp-inspect", __version__)
        self._histograms = {
            name: meter.create_histogram(
                name,
                unit="s",
                description=description,
                explicit_bucket_boundaries_advisory=list(_BUCKETS),
            )
            for name, description in (
                (CLIENT_DURATION, "Duration of an MCP request as the client saw it, sent to answered."),
                (SERVER_DURATION, "Duration of a server-to-client MCP request as the client handled it."),
            )
        }
        self._queue: deque[SpanDescription] = deque()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="mcp-inspect-otlp", daemon=True)
        self._thread.start()

    @property
    def where(self) -> str:
        return (
            self.endpoint
            or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "the OTEL_EXPORTER_OTLP_* endpoint")
        )

    def emit(self, spans: Iterable[SpanDescription]) -> None:
        """Queue spans for export (any thread; never waits): past `max_queued` they are dropped."""
        added = False
        with self._lock:
            for span in spans:
                if len(self._queue) >= self.max_queued:
                    self.dropped += 1
                    self._failed("queue")
                    continue
                self._queue.append(span)
                added = True
        if added:
            self._wake.set()

    def close(self, timeout: float = 10.0) -> None:
        """Export what is queued (unless the collector already failed), flush the histograms, stop."""
        self._closing = True
        self._wake.set()
        self._thread.join(timeout)
        if not self._down:
            self._meter_provider.shutdown(timeout_millis=max(timeout, 1) * 1000)
        else:
            self._meter_provider.shutdown(timeout_millis=1)  # a down collector: do not wait for it
        self._tracer_provider.shutdown()
        self._spans.shutdown()
        with self._lock:
            self.dropped += len(self._queue)
            self._queue.clear()
        if self.dropped and not self.quiet:
            print(
                f"[mcp-inspect] OpenTelemetry: {self.dropped} spans not exported to {self.where}",
                file=sys.stderr,
                flush=True,
            )

    def _failed(self, what: str) -> None:
        self._down = self._down or what != "queue"
        if self._warned or self.quiet:
            return
        self._warned = True
        reason = "the queue is full" if what == "queue" else f"cannot export {what}"
        print(
            f"[mcp-inspect] OpenTelemetry: {reason} ({self.where}); dropping spans, "
            "forwarding and recording go on",
            file=sys.stderr,
            flush=True,
        )

    def _take(self) -> list[SpanDescription]:
        with self._lock:
            n = min(len(self._queue), _BATCH)
            return [self._queue.popleft() for _ in range(n)]

    def _run(self) -> None:
        while True:
            self._wake.wait(0.5)
            self._wake.clear()
            while batch := self._take():
                if self._closing and self._down:
                    with self._lock:
                        self.dropped += len(batch)
                    continue
                self._export(batch)
            if self._closing:
                return

    def _export(self, batch: list[SpanDescription]) -> None:
        for d in batch:
            try:
                self._start_end(d)
            except Exception:  # a bad description must not stop the exporter
                with self._lock:
                    self.dropped += 1
        spans, self._collect.spans = self._collect.spans, []
        if not spans:
            return
        try:
            result = self._spans.export(spans)
        except Exception:
            result = SpanExportResult.FAILURE
        if result is SpanExportResult.SUCCESS:
            self.exported += len(spans)
            self._down = False
        else:
            with self._lock:
                self.dropped += len(spans)
            self._failed("spans")

    def _start_end(self, d: SpanDescription) -> None:
        context = None
        if d.parent is not None:
            state = TraceState.from_header([d.parent.tracestate]) if d.parent.tracestate else None
            parent = SpanContext(
                d.parent.trace_id,
                d.parent.span_id,
                is_remote=True,
                trace_flags=TraceFlags(d.parent.flags & 0xFF),
                trace_state=state,
            )
            context = set_span_in_context(NonRecordingSpan(parent))
        span = self._tracer.start_span(
            d.name,
            context=context,
            kind=SpanKind.CLIENT if d.kind == "client" else SpanKind.SERVER,
            attributes=d.attributes,
            start_time=d.start_ns,
        )
        if d.error:
            span.set_status(Status(StatusCode.ERROR, d.status_message))
        span.end(end_time=d.end_ns)
        self._histograms[d.metric].record(d.duration_s, d.metric_attributes())
