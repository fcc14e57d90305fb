"""Writing a session's rows: one transaction per batch, session facts in the same transaction.

Used by exactly one thread (the recorder's). Several processes may write to
one SQLite file at once: every batch takes the write lock at BEGIN
(`BEGIN IMMEDIATE`) and waits for it through SQLite's busy timeout.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from sqlalchemy import Engine, insert, update

from inspector.store.engine import write_connection
from inspector.store.models import Message, Session

__all__ = ["SessionWriter", "create_session"]

_FACT_COLUMNS = (
    "era",
    "offered_version",
    "protocol_version",
    "client_info",
    "server_info",
    "client_capabilities",
    "server_capabilities",
)


def create_session(
    engine: Engine, *, kind: str, target: Any, name: str | None = None, parent_id: int | None = None
) -> int:
    """Insert a new session in state `recording`; return its id."""
    with write_connection(engine) as conn, conn.begin():
        result = conn.execute(
            insert(Session).values(
                kind=kind,
                target=target,
                name=name,
                status="recording",
                started_ns=time.time_ns(),
                parent_id=parent_id,
                message_count=0,
                host=socket.gethostname(),
                pid=os.getpid(),
            )
        )
        return int(result.inserted_primary_key[0])


class SessionWriter:
    """Appends message rows of one session and keeps the session row up to date."""

    def __init__(self, engine: Engine, session_id: int) -> None:
        self.engine = engine
        self.session_id = session_id
        self.written = 0
        self._conn = write_connection(engine)
        self._insert = insert(Message.__table__)  # type: ignore[attr-defined]
        self._session = Session.__table__  # type: ignore[attr-defined]

    def on_batch(self, rows: list[dict[str, Any]], facts: dict[str, Any] | None = None) -> None:
        """Write rows (and changed session facts) in one transaction."""
        if not rows and facts is None:
            return
        values: dict[str, Any] = {}
        if rows:
            values["message_count"] = self.written + len(rows)
        if facts is not None:
            values.update({k: facts.get(k) for k in _FACT_COLUMNS})
            values["facts"] = facts
        with self._conn.begin():
            if rows:
                self._conn.execute(self._insert, rows)
            self._conn.execute(
                update(self._session).where(self._session.c.id == self.session_id).values(**values)
            )
        self.written += len(rows)

    def on_end(self, exit_status: int | None, reason: str, facts: dict[str, Any] | None = None) -> None:
        """Mark the session ended and release the connection."""
        values: dict[str, Any] = {
            "status": "ended",
            "ended_ns": time.time_ns(),
            "exit_status": exit_status,
            "end_reason": reason,
        }
        if facts is not None:
            values.update({k: facts.get(k) for k in _FACT_COLUMNS})
            values["facts"] = facts
        with self._conn.begin():
            self._conn.execute(
                update(self._session).where(self._session.c.id == self.session_id).values(**values)
            )
        self._conn.close()
