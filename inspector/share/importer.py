"""Session files into the store: every session of a file becomes a new session, or none does.

Rows go in a batch at a time; a file that turns out bad halfway removes the
sessions it had added, so the database holds the whole file or nothing of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from sqlalchemy import Engine

from inspector.errors import InspectorError
from inspector.share.jsonl import FORMAT, MessageLine, Reader, SessionLine
from inspector.store.models import MessageRow
from inspector.store.queries import delete_session
from inspector.store.writer import BulkWriter

__all__ = ["Imported", "file_kind", "import_har", "import_jsonl"]

_BATCH = 5000


@dataclass
class Imported:
    """What one file added: session ids in file order, messages per session."""

    session_ids: list[int] = field(default_factory=list)
    messages: dict[int, int] = field(default_factory=dict)


def import_jsonl(
    engine: Engine,
    lines: Iterable[bytes],
    *,
    source: str = "",
    progress: Callable[[int], None] | None = None,
) -> Imported:
    """Add the sessions of a JSONL session file; `progress` gets the bytes read so far."""
    reader = Reader(source)
    writer = BulkWriter(engine)
    done = Imported()
    ids: dict[int, int] = {}  # file ref -> new session id
    pending: list[MessageRow] = []
    current: tuple[int, SessionLine] | None = None
    read = 0

    def close_session() -> None:
        if current is None:
            return
        session_id, line = current
        writer.add_rows(pending)
        pending.clear()
        columns = line.columns()
        columns["message_count"] = done.messages[session_id]
        writer.finish_session(session_id, columns)

    try:
        for data in lines:
            read += len(data)
            item = reader.feed(data)
            if isinstance(item, SessionLine):
                close_session()
                parent = ids.get(item.parent_ref) if item.parent_ref is not None else None
                session_id = writer.add_session(parent)
                ids[item.ref] = session_id
                done.session_ids.append(session_id)
                done.messages[session_id] = 0
                current = (session_id, item)
            elif isinstance(item, MessageLine):
                assert current is not None  # the reader checked the message follows its session
                pending.append(item.row(current[0]))
                done.messages[current[0]] += 1
                if len(pending) >= _BATCH:
                    writer.add_rows(pending)
                    pending.clear()
                    if progress is not None:
                        progress(read)
        reader.finish()
        close_session()
    except BaseException:
        _remove(engine, done)
        raise
    finally:
        writer.close()
    if progress is not None:
        progress(read)
    return done


def import_har(
    engine: Engine,
    data: bytes,
    *,
    source: str = "",
    progress: Callable[[int], None] | None = None,
) -> Imported:
    """Add one session per MCP session found in a HAR file (read whole: HAR is one JSON document).

    Every row passes the recorder's redaction step (a HAR from elsewhere holds real credentials)."""
    from pathlib import Path

    from inspector.capture.redact import active
    from inspector.share.har_import import group_sessions, read_har, session_rows

    entries, creator = read_har(data, source)
    redaction = active()
    writer = BulkWriter(engine)
    done = Imported()
    label = Path(source).name if source else "HAR"
    try:
        groups = group_sessions(entries)
        for n, group in enumerate(groups, start=1):
            session_id = writer.add_session(None)
            done.session_ids.append(session_id)
            built = session_rows(group, session_id)
            if not redaction.keep:
                for row in built.rows:
                    redaction.row(row)
            for start in range(0, len(built.rows), _BATCH):
                writer.add_rows(built.rows[start : start + _BATCH])
            done.messages[session_id] = len(built.rows)
            columns = dict(built.columns)
            columns.update(
                kind="import",
                name=f"{label} {n}/{len(groups)}" if len(groups) > 1 else label,
                target=redaction.target(columns["target"]),
                status="ended",
                end_reason=f"imported from a HAR file ({creator or 'unknown creator'})",
                message_count=len(built.rows),
            )
            writer.finish_session(session_id, columns)
            if progress is not None:
                progress(len(data) * n // len(groups))
    except BaseException:
        _remove(engine, done)
        raise
    finally:
        writer.close()
    if progress is not None:
        progress(len(data))
    return done


def _remove(engine: Engine, done: Imported) -> None:
    """Take back the sessions of an import that failed part-way: an import adds all or nothing."""
    for session_id in done.session_ids:
        delete_session(engine, session_id, force=True)


def file_kind(head: bytes, source: str) -> str:
    stripped = head.lstrip().lstrip(b"\xef\xbb\xbf").lstrip()
    if stripped.startswith(b"{") and FORMAT.encode() in stripped.split(b"\n", 1)[0]:
        return "jsonl"
    if stripped.startswith(b"{") and b'"log"' in stripped:
        return "har"
    raise InspectorError(
        f"{source}: not a session file (its first line is not an {FORMAT} header) nor a HAR file"
    )
