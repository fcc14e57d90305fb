"""Test helper: is a secret anywhere in a recording database? And the secrets upstream that sees the wire.

`secret_leaks` looks everywhere a secret could rest: every column of every table (found generically
through sqlite_master, so a new table is covered too), the full-text index after a search has filled
it (a MATCH per secret: FTS5 stores terms prefix-compressed, so a byte scan alone could miss one),
and the raw bytes of the database file and its -wal after a checkpoint. Case is ignored (the
full-text tokenizer lower-cases).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from inspector.store import open_engine, search_messages
from tests.http_peers import LineProcess
from tests.warm_peers import peer_argv


def _text(value: Any) -> bytes:
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8", "replace")


def secret_leaks(db: Path, secrets: list[str]) -> list[str]:
    """Where any of `secrets` occurs in the database (empty: nowhere)."""
    engine = open_engine(db, create=False)
    search_messages(engine, "jsonrpc")  # reads the full-text index (kept as rows are written)
    engine.dispose()
    lowered = [s.lower().encode() for s in secrets]
    found: list[str] = []
    conn = sqlite3.connect(db)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        assert "message" in tables and "session" in tables
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for column, value in enumerate(row):
                    text = _text(value).lower()
                    found += [f"{table} column {column}: {s!r}" for s in lowered if s in text]
        if "message_fts" in tables:
            for secret in secrets:
                if conn.execute(
                    "SELECT rowid FROM message_fts WHERE message_fts MATCH ?", (f'"{secret}"',)
                ).fetchone():
                    found.append(f"message_fts matches {secret!r}")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    for path in (db, db.with_name(db.name + "-wal")):
        if path.exists():
            data = path.read_bytes().lower()
            found += [f"{path.name} bytes: {s!r}" for s in lowered if s in data]
    return found


def placeholders(db: Path) -> str:
    """Everything the message and session tables hold, as one text (to look for placeholders in)."""
    conn = sqlite3.connect(db)
    try:
        parts = [
            _text(v).decode("utf-8", "replace")
            for t in ("message", "session")
            for r in conn.execute(f"SELECT * FROM {t}")
            for v in r
        ]
    finally:
        conn.close()
    return "\n".join(parts)


@contextmanager
def secrets_server(log: Path) -> Iterator[str]:
    """tests/peers/secrets_server.py (a real SDK server that logs what it receives), forked from the
    warm server of tests/warm_peers.py (~2 s of imports less a start); yields its MCP URL."""
    server = LineProcess(peer_argv("tests.peers.secrets_server", str(log)))
    try:
        yield server.wait_for(r"listening on (\S+)").group(1)
    finally:
        server.stop()


def received(log: Path) -> list[dict[str, Any]]:
    """The requests the secrets server saw, in order."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
