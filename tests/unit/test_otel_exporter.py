"""`OtlpExport` with the real SDK against a real OTLP/HTTP receiver on loopback, and against a port
that refuses connections: recorded times and parents kept, bounded queue, drops counted, one line."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from inspector.otel.exporter import OtlpExport
from inspector.otel.spans import SpanDescription, TraceParent
from tests.otlp_receiver import KIND_CLIENT, KIND_SERVER, otlp_receiver

T0 = 1_700_000_000_000_000_000
TRACE, PARENT = 0x0AF7651916CD43DD8448EB211C80319C, 0xB7AD6B7169203331


def _span(i: int, **more: Any) -> SpanDescription:
    attrs: dict[str, str | int | float | bool] = {
        "mcp.method.name": "ping",
        "jsonrpc.request.id": str(i),
        "network.transport": "pipe",
    }
    return SpanDescription(
        "ping", "client", T0 + i * 1_000_000, T0 + i * 1_000_000 + 2_500_000, attrs, **more
    )


def _refused() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_spans_keep_recorded_times_kinds_parents_and_sampling() -> None:
    with otlp_receiver() as receiver:
        export = OtlpExport(receiver.url, quiet=True)
        server = _span(2)
        server.kind = "server"
        export.emit(
            [
                _span(0),
                _span(1, parent=TraceParent(TRACE, PARENT, 1, "vendor=x"), error=True, status_message="boom"),
                server,
                _span(3, parent=TraceParent(TRACE, PARENT, 0)),  # the host did not sample it: no span
            ]
        )
        export.close()
        assert (export.exported, export.dropped) == (3, 0)
        receiver.wait_for(lambda: len(receiver.spans()) == 3 and len(receiver.histograms()) == 2)
        first, child, served = receiver.spans()
        assert (first.start_ns, first.end_ns, first.kind) == (T0, T0 + 2_500_000, KIND_CLIENT)
        assert first.parent_span_id == "" and served.kind == KIND_SERVER
        assert (child.trace_id, child.parent_span_id) == (f"{TRACE:032x}", f"{PARENT:016x}")
        assert (child.status_code, child.status_message) == (2, "boom")
        hist = receiver.histograms()
        [(unit, client)] = hist["mcp.client.operation.duration"]
        assert unit == "s" and client.count == 3 and client.sum == pytest.approx(0.0075)
        assert hist["mcp.server.operation.duration"][0][1].count == 1


def test_a_refusing_collector_costs_emit_nothing_and_is_counted(capsys: pytest.CaptureFixture[str]) -> None:
    export = OtlpExport(_refused(), max_queued=3)
    started = time.perf_counter()
    for i in range(10):
        export.emit([_span(i)])
    assert time.perf_counter() - started < 0.05, "emit never waits"
    assert export.dropped == 7  # the queue holds 3
    started = time.perf_counter()
    export.close(timeout=30)
    assert time.perf_counter() - started < 15
    assert export.dropped == 10 and export.exported == 0
    lines = capsys.readouterr().err.splitlines()
    assert len([line for line in lines if "dropping spans" in line]) == 1, lines
    assert lines[-1].startswith("[mcp-inspect] OpenTelemetry: 10 spans not exported to http://127.0.0.1:")
    assert all(len(line) <= 160 for line in lines)


def test_a_traces_only_collector_gets_every_span(capsys: pytest.CaptureFixture[str]) -> None:
    """Metrics refused (404 on /v1/metrics, as Jaeger answers): one line says the histograms are
    dropped, and no span is lost for it."""
    with otlp_receiver(metrics=False) as receiver:
        export = OtlpExport(receiver.url, metric_interval_s=0.2)
        export.emit([_span(0), _span(1)])
        receiver.wait_for(lambda: "/v1/metrics" in receiver.paths and len(receiver.spans()) == 2)
        export.emit([_span(2)])
        export.close()
        assert (export.exported, export.dropped) == (3, 0)
        assert len(receiver.spans()) == 3
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    assert "cannot export metrics" in lines[0] and "histograms are dropped" in lines[0]
