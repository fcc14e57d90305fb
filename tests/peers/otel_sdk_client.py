"""An MCP host with OpenTelemetry on: the Python SDK 2.x client then injects `traceparent` into each
request's `params._meta` (SEP-414). Drives the demo (inspector/demo/driver.py) and prints the SDK's
own client spans as JSON lines on stdout: name, trace_id, span_id, mcp.method.name, jsonrpc.request.id.

Usage: python otel_sdk_client.py --url URL | -- COMMAND ARGS...
"""

from __future__ import annotations

import json
import sys

import anyio
import mcp
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from inspector.demo.driver import drive_demo


def main() -> None:
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    trace.set_tracer_provider(provider)
    args = sys.argv[1:]
    target: str | mcp.StdioServerParameters
    if args[0] == "--url":
        target = args[1]
    else:
        command = args[1:] if args[0] == "--" else args
        target = mcp.StdioServerParameters(command=command[0], args=command[1:])
    report = anyio.run(lambda: drive_demo(target, mode="legacy"))
    assert report.tool_results["echo"].text == "hello inspector", report
    for span in memory.get_finished_spans():
        ctx = span.get_span_context()
        attrs = dict(span.attributes or {})
        print(
            json.dumps(
                {
                    "name": span.name,
                    "kind": span.kind.name,
                    "trace_id": f"{ctx.trace_id:032x}",
                    "span_id": f"{ctx.span_id:016x}",
                    "method": attrs.get("mcp.method.name"),
                    "request_id": attrs.get("jsonrpc.request.id"),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
