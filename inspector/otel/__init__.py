"""OpenTelemetry export (issue #19): recorded MCP traffic as spans and duration histograms.

`spans.py` is the sans-IO mapping from recorded rows to span descriptions
(the OpenTelemetry semantic conventions for MCP); `exporter.py` sends them
with the OpenTelemetry SDK's OTLP/HTTP exporters; `live.py` is the recorder
subscriber that `wrap` and `proxy --otlp` add; `inspector/share/otlp.py`
exports a stored session after the fact.

Importing this package imports nothing of the SDK: `wrap` loads it only on
its store-opening thread, after forwarding has started.
"""
