"""The recording store: SQLModel tables, engine and schema versions, the batched writer, queries."""

from inspector.store.engine import SCHEMA_VERSION, database_url, open_engine
from inspector.store.models import SQL_INT_MAX, Message, Session
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
