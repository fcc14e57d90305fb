"""The recording store: the records and their tables, opening a database and its schema versions, the
batched writer, the reads.

Reads and writes run over DB-API (`store.db`); what needs SQLAlchemy (`open_engine`: creating or
upgrading a database) is imported on first use, so that a command on a current database never loads it.
So are the reads (`store.queries`) and the writer: a command that only writes (`call`) loads no reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.store.db import SCHEMA_VERSION, database_url
from inspector.store.models import SQL_INT_MAX, Message, Session

if TYPE_CHECKING:
    from inspector.store.engine import open_engine
    from inspector.store.queries import get_session, iter_messages, list_sessions, pair_of, session_state
    from inspector.store.search import search_messages
    from inspector.store.writer import SessionWriter, StoreWriter

__all__ = [
    "SCHEMA_VERSION",
    "SQL_INT_MAX",
    "Message",
    "Session",
    "SessionWriter",
    "StoreWriter",
    "database_url",
    "get_session",
    "iter_messages",
    "list_sessions",
    "open_engine",
    "pair_of",
    "search_messages",
    "session_state",
]

_LAZY = {
    "open_engine": "inspector.store.engine",
    "get_session": "inspector.store.queries",
    "iter_messages": "inspector.store.queries",
    "list_sessions": "inspector.store.queries",
    "pair_of": "inspector.store.queries",
    "session_state": "inspector.store.queries",
    "search_messages": "inspector.store.search",  # `search` and the API only
    "SessionWriter": "inspector.store.writer",
    "StoreWriter": "inspector.store.writer",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'inspector.store' has no attribute {name!r}")
    # `__import__` rather than importlib's `import_module`: `python -X importtime` lists it
    return getattr(__import__(module, fromlist=[name]), name)
