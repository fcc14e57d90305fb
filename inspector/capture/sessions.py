"""A recorded session's row, its target redacted (`create_session`), and its recording opened with
the same rules (`open_session`).

The rules of a session are the recorder's (the process's: `capture.redact.active`, or the ones a
caller gives) plus the `redact` names of the config file's per-server rule matching the session's
name, command line or URL (`Redaction.for_server`). They travel with the session: its target is
stored redacted by them and the recorder redacts its rows with them (`Recorder.open`'s `redaction`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.capture.redact import Redaction, active
from inspector.store.writer import insert_session

if TYPE_CHECKING:
    from inspector.capture.recorder import Recorder, Tap
    from inspector.store.db import Store


def create_session(
    engine: Store,
    *,
    kind: str,
    target: Any,
    name: str | None = None,
    parent_id: int | None = None,
    redaction: Redaction | None = None,
) -> int:
    """Insert a new session in state `recording`; return its id.

    Secrets in the target (a URL's query, its password) are redacted like the traffic's, by the given
    rules or the process's (`capture.redact.active`), plus the names of the config file's per-server
    rule matching its name, command line or URL (`Redaction.for_server`). The recorder redacts the
    session's rows with the same rules when it is handed them (`open_session` does both)."""
    own = (redaction or active()).for_server(name, target)
    return insert_session(engine, kind=kind, target=own.target(target), name=name, parent_id=parent_id)


def open_session(
    recorder: Recorder,
    engine: Store,
    *,
    kind: str,
    target: Any,
    name: str | None = None,
    parent_id: int | None = None,
    record: str | None = None,
) -> Tap:
    """Create a session (`create_session`) and start recording it, both by the recorder's rules plus
    the session's per-server names; the tap's `session_id` is the new session's id."""
    rules = recorder.redaction.for_server(name, target)
    session_id = create_session(
        engine, kind=kind, target=target, name=name, parent_id=parent_id, redaction=rules
    )
    return recorder.open(session_id, record=record, redaction=rules)
