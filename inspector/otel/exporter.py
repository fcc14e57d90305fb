"""Span descriptions out over OTLP/HTTP with the OpenTelemetry SDK (the thin IO part).

`OtlpExport` takes `SpanDescription`s from any thread (`emit`: a bounded
queue put, never a wait). One worker thread imports and sets up the SDK
(`otel/sdk.py`: a second or more of imports, so nobody waits for it), and
every `COLLECT_S` (and at close) turns the queued descriptions into SDK spans with their recorded start and end times,
exports them in batches with the SDK's OTLP/HTTP span exporter, and records
each operation's duration in the `mcp.client.operation.duration` /
`mcp.server.operation.duration` histograms (seconds), which the SDK's
periodic metric reader exports.

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

import os
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable

from inspector.otel.spans import SpanDescription

TYPE_CHECKING = False
if TYPE_CHECKING:
    from inspector.otel.sdk import SdkPipeline

__all__ = ["OtlpExport"]

_BATCH = 512
COLLECT_S = 0.25  # spans are sent at most this long after they were recorded (and at close)


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
        self.metric_interval_s = metric_interval_s
        self.quiet = quiet
        self.exported = 0
        self.dropped = 0
        self._warned: set[str] = set()  # what stderr has been told about once
        self._down = False  # the last span export failed: at close, nothing more is tried
        self._metrics_down = False  # a metrics export failed (e.g. a traces-only collector)
        self._sdk: SdkPipeline | None = None
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
        """Queue spans for export (any thread; never waits): past `max_queued` they are dropped.

        The worker is not woken here (the recorder hands over a batch every few ms under load):
        it collects for `COLLECT_S`, so spans go out in a few large requests, not many small ones."""
        full = False
        with self._lock:
            for span in spans:
                if len(self._queue) >= self.max_queued:
                    self.dropped += 1
                    full = True
                    continue
                self._queue.append(span)
        if full:
            self._failed("queue")

    def close(self, timeout: float = 10.0) -> None:
        """Export what is queued (unless the collector is failing), flush the histograms, stop."""
        self._closing = True
        self._wake.set()
        deadline = time.monotonic() + timeout
        while self._thread.is_alive() and time.monotonic() < deadline:
            self._thread.join(0.05)
            if self._down:  # an export in flight to a collector that failed: do not wait for its retries
                deadline = min(deadline, time.monotonic() + 0.5)
        if self._sdk is not None and not self._thread.is_alive():
            flush = not (self._down or self._metrics_down)
            self._sdk.shutdown(flush_metrics=flush, timeout_s=max(deadline - time.monotonic(), 1.0))
        with self._lock:
            self.dropped += len(self._queue)
            self._queue.clear()
        self._warned.update(("spans", "metrics"))  # a late failure of a thread left behind says nothing
        if self.dropped and not self.quiet:
            print(
                f"[mcp-inspect] OpenTelemetry: {self.dropped} spans not exported to {self.where}",
                file=sys.stderr,
                flush=True,
            )

    def _failed(self, what: str) -> None:
        """Say once per kind of failure (spans, the queue, metrics) what is lost; never raises."""
        if what == "metrics":  # spans go on: a traces-only collector (Jaeger) refuses /v1/metrics
            self._metrics_down = True
            text = f"cannot export metrics ({self.where}); the duration histograms are dropped"
        elif what == "queue":
            text = f"the queue is full ({self.where}); dropping spans"
        else:
            self._down = True
            text = f"cannot export {what} ({self.where}); dropping spans"
        kind = "metrics" if what == "metrics" else "spans"
        if kind in self._warned or self.quiet or (kind == "metrics" and "spans" in self._warned):
            return  # (a collector that is down for spans is down for metrics: one line says it)
        self._warned.add(kind)
        print(
            f"[mcp-inspect] OpenTelemetry: {text}, forwarding and recording go on",
            file=sys.stderr,
            flush=True,
        )

    def _take(self) -> list[SpanDescription]:
        with self._lock:
            n = min(len(self._queue), _BATCH)
            return [self._queue.popleft() for _ in range(n)]

    def _run(self) -> None:
        try:
            from inspector.otel.sdk import SdkPipeline

            self._sdk = SdkPipeline(
                self.endpoint,
                metric_interval_s=self.metric_interval_s,
                on_metrics_failure=lambda: self._failed("metrics"),
            )
        except Exception as exc:  # e.g. a bad OTEL_EXPORTER_OTLP_* value
            self._failed(f"(the OpenTelemetry SDK did not start: {exc})")
            with self._lock:
                self.dropped += len(self._queue)
                self._queue.clear()
            return
        while True:
            self._wake.wait(COLLECT_S)
            self._wake.clear()
            while batch := self._take():
                if self._closing and self._down:
                    with self._lock:
                        self.dropped += len(batch)
                    continue
                self._export(self._sdk, batch)
            if self._closing:
                return

    def _export(self, sdk: SdkPipeline, batch: list[SpanDescription]) -> None:
        for d in batch:
            try:
                sdk.add(d)
            except Exception:  # a bad description must not stop the exporter
                with self._lock:
                    self.dropped += 1
        count, ok = sdk.export()
        if ok:
            self.exported += count
            self._down = False
        else:
            with self._lock:
                self.dropped += count
            self._failed("spans")
