"""`mcp-inspect export SESSION --otlp URL`: stored sessions as OpenTelemetry spans, after the fact.

The same mapping as the live export (`inspector/otel/spans.py`) over the
stored rows (redacted as they were recorded), the same exporter: a span per
request with its recorded start and end, the duration histograms. A request
of an ended session that was never answered ends at the session's end; one
of a session still recording is left out (it may still be answered).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from sqlalchemy import Engine

from inspector.errors import InspectorError
from inspector.otel.options import check_endpoint, require_otel
from inspector.otel.spans import SpanMapper
from inspector.store.models import Session
from inspector.store.queries import get_session, iter_rows

__all__ = ["otlp_command"]


def otlp_command(engine: Engine, refs: Sequence[str], url: str, *, content: bool = False) -> int:
    """Export sessions as spans to the OTLP/HTTP collector at `url`; return the exit status."""
    from inspector.otel.exporter import OtlpExport

    endpoint = check_endpoint(url)
    require_otel()
    sessions: list[Session] = []
    for ref in refs:
        session = get_session(engine, ref)
        if all(s.id != session.id for s in sessions):
            sessions.append(session)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    export = OtlpExport(endpoint, quiet=True, max_queued=1 << 30)
    spans = 0
    for session in sessions:
        assert session.id is not None
        target = session.target if isinstance(session.target, str) else None
        mapper = SpanMapper(session.id, transport=None, content=content, server_url=target)
        mapper.facts({"protocol_version": session.protocol_version})
        last_ns = session.started_ns
        for row in iter_rows(engine, session.id):
            last_ns = row["ts_ns"]
            found = mapper.feed(row)
            spans += len(found)
            export.emit(found)
        if session.status == "ended":
            found = mapper.finish(session.ended_ns or last_ns)
            spans += len(found)
            export.emit(found)
    export.close(timeout=60.0)
    ids = ", ".join(f"#{s.id}" for s in sessions)
    if export.dropped:
        raise InspectorError(
            f"{export.dropped} of {spans} spans of {ids} could not be exported to {url}: "
            "is an OTLP/HTTP collector listening there?"
        )
    err.print(f"exported {ids} ({spans} spans) to {url}")
    return 0
