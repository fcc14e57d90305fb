"""The OpenTelemetry SDK wired for `OtlpExport`: providers, OTLP/HTTP exporters, the histograms.

Imported by the exporter's worker thread only (the SDK and protobuf take a
second or more to import on a loaded machine), never on a forwarding path.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricExportResult, MetricsData, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
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

__all__ = ["SdkPipeline"]

# Boundaries the conventions advise for the MCP duration histograms (model/mcp/metrics.yaml).
_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
_DEFAULT_TIMEOUT_S = 5.0


class _Collect(SpanProcessor):
    """Keeps ended spans for the worker to export in one batch."""

    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def on_end(self, span: ReadableSpan) -> None:
        self.spans.append(span)


class _Metrics(OTLPMetricExporter):
    """The SDK's metric exporter, saying when an export failed."""

    def __init__(self, on_failure: Callable[[], None], endpoint: str | None, timeout: float | None) -> None:
        super().__init__(endpoint=endpoint, timeout=timeout)
        self._on_failure = on_failure

    def export(
        self, metrics_data: MetricsData, timeout_millis: float | None = None, **kwargs: Any
    ) -> MetricExportResult:
        result = super().export(metrics_data, timeout_millis=timeout_millis, **kwargs)
        if result is not MetricExportResult.SUCCESS:
            self._on_failure()
        return result


class SdkPipeline:
    """Span descriptions in, OTLP/HTTP requests out (traces at once, metrics periodically)."""

    def __init__(
        self, endpoint: str | None, *, metric_interval_s: float, on_metrics_failure: Callable[[], None]
    ):
        # The SDK logs each failed attempt (and the retries) at WARNING/ERROR: the owner says it once.
        for name in ("opentelemetry.exporter", "opentelemetry.sdk.metrics", "opentelemetry.sdk.trace"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        timeout = None if os.environ.get("OTEL_EXPORTER_OTLP_TIMEOUT") else _DEFAULT_TIMEOUT_S
        attrs = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": "mcp-inspect"}
        resource = Resource.create({**attrs, "service.version": __version__})
        traces = f"{endpoint}/v1/traces" if endpoint else None
        metrics = f"{endpoint}/v1/metrics" if endpoint else None
        self._spans: SpanExporter = OTLPSpanExporter(endpoint=traces, timeout=timeout)
        self._collect = _Collect()
        self._tracer_provider = TracerProvider(resource=resource)
        self._tracer_provider.add_span_processor(self._collect)
        self._tracer = self._tracer_provider.get_tracer("mcp-inspect", __version__)
        reader = PeriodicExportingMetricReader(
            _Metrics(on_metrics_failure, metrics, timeout), export_interval_millis=metric_interval_s * 1000
        )
        self._meter_provider = MeterProvider(metric_readers=[reader], resource=resource)
        meter = self._meter_provider.get_meter("mcp-inspect", __version__)
        self._histograms = {
            name: meter.create_histogram(
                name, unit="s", description=description, explicit_bucket_boundaries_advisory=list(_BUCKETS)
            )
            for name, description in (
                (CLIENT_DURATION, "Duration of an MCP request as the client saw it, sent to answered."),
                (SERVER_DURATION, "Duration of a server-to-client MCP request as the client handled it."),
            )
        }

    def add(self, d: SpanDescription) -> None:
        """One span (with its recorded times) and its duration in its histogram."""
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

    def export(self) -> tuple[int, bool]:
        """Export the spans added since the last call: (how many, whether the collector took them).
        A span the sampler left out (a parent that was not sampled) is not counted."""
        spans, self._collect.spans = self._collect.spans, []
        if not spans:
            return 0, True
        try:
            ok = self._spans.export(spans) is SpanExportResult.SUCCESS
        except Exception:
            ok = False
        return len(spans), ok

    def shutdown(self, *, flush_metrics: bool, timeout_s: float) -> None:
        """Stop; `flush_metrics`: export the histograms a last time first."""
        self._meter_provider.shutdown(timeout_millis=max(timeout_s, 0.001) * 1000 if flush_metrics else 1)
        self._tracer_provider.shutdown()
        self._spans.shutdown()
