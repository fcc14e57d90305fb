"""Test helper: an OTLP/HTTP receiver on loopback, decoding with the OpenTelemetry protobuf classes.

`POST /v1/traces` and `POST /v1/metrics` bodies are parsed as
`ExportTraceServiceRequest` / `ExportMetricsServiceRequest` (opentelemetry-proto)
and kept; each is answered with an empty export response, as a collector does.
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

KIND_CLIENT = 3  # opentelemetry.proto.trace.v1.Span.SpanKind
KIND_SERVER = 2


def value(v: AnyValue) -> Any:
    which = v.WhichOneof("value")
    return getattr(v, which) if which else None


@dataclass
class ReceivedSpan:
    name: str
    kind: int
    trace_id: str
    span_id: str
    parent_span_id: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    status_code: int
    status_message: str
    service: str | None


@dataclass
class Receiver:
    url: str = ""
    traces: list[ExportTraceServiceRequest] = field(default_factory=list)
    metrics: list[ExportMetricsServiceRequest] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)  # of each request, names lower-cased

    def spans(self) -> list[ReceivedSpan]:
        out = []
        for req in list(self.traces):
            for rs in req.resource_spans:
                res = {a.key: value(a.value) for a in rs.resource.attributes}
                for ss in rs.scope_spans:
                    for s in ss.spans:
                        out.append(
                            ReceivedSpan(
                                name=s.name,
                                kind=s.kind,
                                trace_id=s.trace_id.hex(),
                                span_id=s.span_id.hex(),
                                parent_span_id=s.parent_span_id.hex(),
                                start_ns=s.start_time_unix_nano,
                                end_ns=s.end_time_unix_nano,
                                attributes={a.key: value(a.value) for a in s.attributes},
                                status_code=s.status.code,
                                status_message=s.status.message,
                                service=res.get("service.name"),
                            )
                        )
        return sorted(out, key=lambda s: s.start_ns)

    def histograms(self) -> dict[str, list[Any]]:
        """metric name -> [(unit, data point)] over every export."""
        out: dict[str, list[Any]] = {}
        for req in list(self.metrics):
            for rm in req.resource_metrics:
                for sm in rm.scope_metrics:
                    for m in sm.metrics:
                        if m.WhichOneof("data") == "histogram":
                            out.setdefault(m.name, []).extend((m.unit, p) for p in m.histogram.data_points)
        return out

    def wait_for(self, check: Callable[[], bool], timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"the receiver did not get what was awaited in {timeout} s: {self.paths}"
                )
            time.sleep(0.05)


@contextmanager
def otlp_receiver(*, metrics: bool = True) -> Iterator[Receiver]:
    """`metrics=False`: /v1/metrics answers 404, as a traces-only collector (Jaeger) does."""
    received = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.headers.get("content-encoding") == "gzip":
                body = gzip.decompress(body)
            received.paths.append(self.path)
            received.headers.append({k.lower(): v for k, v in self.headers.items()})
            if self.path == "/v1/traces":
                req_t = ExportTraceServiceRequest()
                req_t.ParseFromString(body)
                received.traces.append(req_t)
                answer = ExportTraceServiceResponse().SerializeToString()
            elif self.path == "/v1/metrics" and metrics:
                req_m = ExportMetricsServiceRequest()
                req_m.ParseFromString(body)
                received.metrics.append(req_m)
                answer = ExportMetricsServiceResponse().SerializeToString()
            else:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    received.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield received
    finally:
        server.shutdown()
        server.server_close()
