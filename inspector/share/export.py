"""Sessions out of the store as a session file (`jsonl.py`), streamed a page of rows at a time."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sqlalchemy import Engine

from inspector.errors import InspectorError
from inspector.lint.check import check_rows
from inspector.share import jsonl
from inspector.share.har import HarSession, har_chunks, has_http
from inspector.store.models import Session
from inspector.store.queries import iter_rows

__all__ = ["har_sessions", "jsonl_lines", "other_format"]


def jsonl_lines(engine: Engine, sessions: Sequence[Session]) -> Iterator[bytes]:
    """The lines of a JSONL file holding `sessions` in the order given (each once)."""
    yield jsonl.encode_header()
    refs: dict[int, int] = {}
    for ref, session in enumerate(sessions, start=1):
        assert session.id is not None
        refs[session.id] = ref
        parent = refs.get(session.parent_id) if session.parent_id is not None else None
        yield jsonl.encode_session(session.to_json(), ref, parent)
        for row in iter_rows(engine, session.id):
            yield jsonl.encode_message(row, ref)


def har_sessions(engine: Engine, sessions: Sequence[Session]) -> list[HarSession]:
    """The sessions with their rows and lint findings, for a HAR file; refuses a session without HTTP."""
    out = []
    for session in sessions:
        assert session.id is not None
        rows = [dict(r) for r in iter_rows(engine, session.id)]
        if not has_http(rows):
            raise InspectorError(
                f"session #{session.id} ({session.kind}) has no HTTP exchanges: a HAR file holds HTTP "
                "traffic; export it with --format jsonl or html"
            )
        out.append(HarSession(session.to_json(), rows, check_rows(rows)))  # type: ignore[arg-type]
    return out


def other_format(engine: Engine, sessions: Sequence[Session], fmt: str) -> tuple[Iterator[bytes], int]:
    """The chunks of a `har` or `html` file of `sessions`, and how many messages it holds."""
    if fmt == "har":
        chosen = har_sessions(engine, sessions)
        return har_chunks(chosen), sum(len(s.rows) for s in chosen)
    from inspector.share.html_report import report_chunks

    return report_chunks(engine, sessions)
