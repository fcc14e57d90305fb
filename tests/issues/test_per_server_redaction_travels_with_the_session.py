"""A session's own redaction rules travel with it, not through a module-global table.

What was wrong: the config file's per-server names for a session went from `store.writer.create_session`
to the recorder through a dict in `capture/redact.py` keyed by session id (`note_session`), which
made `store` import `capture` (an import circle) and kept per-session state in a module. Now the
rules travel with the session: `capture.sessions.open_session` (or `Recorder.open`/`open_new`'s
`redaction`) hands them to the recorder with the session, and its target is redacted by them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
from sqlalchemy import Engine

from inspector.capture import Recorder, redact
from inspector.capture.redact import Redaction
from inspector.capture.sessions import create_session, open_session
from inspector.settings import Settings, from_doc
from inspector.store import StoreWriter, open_engine

SETTINGS = from_doc(Settings, {"servers": [{"match": "*github*", "redact": ["gh_secret"]}]})


def _line(secret: str) -> bytes:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {"gh_secret": secret}}}
    return orjson.dumps(call) + b"\n"


def _raw(db: Path) -> dict[int, bytes]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT session_id, raw FROM message").fetchall())


def _create(engine: Engine, name: str) -> int:
    return create_session(engine, kind="http-proxy", target=f"http://{name}/mcp", name=name)


def test_one_recorder_redacts_each_session_by_its_own_rules(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "rec.db", create=True)
    base = Redaction.from_config(environ={}, settings=SETTINGS)
    recorder = Recorder([StoreWriter(engine)], redaction=base).start()
    github = recorder.open_new(
        lambda: _create(engine, "github"), redaction=base.for_server("github", "http://gh/mcp")
    )
    other = recorder.open_new(lambda: _create(engine, "files"))
    github.submit("c2s", "stdin", _line("GhS3cr3tValue"))
    other.submit("c2s", "stdin", _line("PlainValue01"))
    github.end(0, "done")
    other.end(0, "done")
    recorder.stop()
    rows = _raw(tmp_path / "rec.db")
    gh_sid, other_sid = recorder.session_id(github.session_id), recorder.session_id(other.session_id)
    assert gh_sid is not None and other_sid is not None
    assert b"GhS3cr3tValue" not in rows[gh_sid]
    assert b"PlainValue01" in rows[other_sid]  # not a secret name for this server
    engine.dispose()


def test_open_session_redacts_target_and_rows_by_the_servers_rules(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "rec.db", create=True)
    base = Redaction.from_config(environ={}, settings=SETTINGS)
    recorder = Recorder([StoreWriter(engine)], redaction=base).start()
    tap = open_session(
        recorder, engine, kind="stdio-wrap", target=["npx", "server-github", "--gh_secret=Tok3nValue"]
    )
    tap.submit("c2s", "stdin", _line("GhS3cr3tValue"))
    tap.end(0, "done")
    recorder.stop()
    assert b"GhS3cr3tValue" not in _raw(tmp_path / "rec.db")[tap.session_id]
    with sqlite3.connect(tmp_path / "rec.db") as conn:
        (target,) = conn.execute("SELECT target FROM session WHERE id = ?", (tap.session_id,)).fetchone()
    assert "Tok3nValue" not in target
    engine.dispose()


def test_no_table_of_session_rules_in_the_module() -> None:
    assert not [name for name, value in vars(redact).items() if isinstance(value, dict) and "session" in name]
