"""The store on both backends: Alembic migrations (old SQLite files included), PostgreSQL URLs and
their errors, the same full-text answers on SQLite and PostgreSQL, the default store from the
environment. Real SQLite files and a real throwaway PostgreSQL cluster (tests/postgres.py)."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, text

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.errors import SchemaTooNewError, StoreError
from inspector.store import SessionWriter, get_session, iter_messages, open_engine, search_messages
from inspector.store.engine import ALEMBIC_HEAD, ALEMBIC_REVISIONS, SCHEMA_VERSION, database_url, masked_url
from tests.cli_in_process import run


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_revisions_listed_in_the_engine_are_the_migration_scripts() -> None:
    from alembic.script import ScriptDirectory

    from inspector.store.upgrade import alembic_config

    script = ScriptDirectory.from_config(alembic_config())
    assert script.get_heads() == [ALEMBIC_HEAD]
    walked = [r.revision for r in script.walk_revisions()][::-1]
    assert tuple(walked) == ALEMBIC_REVISIONS


def test_a_store_is_stamped_with_the_head_on_both_backends(any_store: Path | str) -> None:
    engine = open_engine(any_store)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == ALEMBIC_HEAD
        assert conn.execute(text("SELECT version FROM schema_info")).scalar_one() == SCHEMA_VERSION
    assert {"session", "message", "lint_finding", "lint_run"} <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_a_newer_alembic_revision_is_refused_clearly(any_store: Path | str) -> None:
    engine = open_engine(any_store)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'f999'"))
    engine.dispose()
    with pytest.raises(SchemaTooNewError, match="schema revision f999, newer .* upgrade mcp-inspector"):
        open_engine(any_store)


V1_SCHEMA = """
CREATE TABLE schema_info (version INTEGER NOT NULL);
INSERT INTO schema_info VALUES (1);
CREATE TABLE session (
    id INTEGER NOT NULL PRIMARY KEY, name VARCHAR, kind VARCHAR NOT NULL, target JSON,
    status VARCHAR NOT NULL, started_ns BIGINT NOT NULL, ended_ns BIGINT, exit_status INTEGER,
    end_reason VARCHAR, era VARCHAR, offered_version VARCHAR, protocol_version VARCHAR,
    client_info JSON, server_info JSON, client_capabilities JSON, server_capabilities JSON,
    facts JSON, parent_id INTEGER REFERENCES session (id), labels JSON,
    message_count INTEGER NOT NULL, host VARCHAR, pid INTEGER);
CREATE TABLE message (
    id INTEGER NOT NULL PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES session (id),
    seq INTEGER NOT NULL, ts_ns BIGINT NOT NULL, direction VARCHAR NOT NULL, channel VARCHAR NOT NULL,
    raw BLOB NOT NULL, size INTEGER NOT NULL, parse_status VARCHAR NOT NULL, kind VARCHAR NOT NULL,
    method VARCHAR, rpc_id VARCHAR, error_code INTEGER, answers_seq INTEGER, latency_ns BIGINT,
    http_method VARCHAR, http_path VARCHAR, http_status INTEGER, http_headers JSON,
    sse_event_id VARCHAR, meta JSON, lint JSON);
CREATE UNIQUE INDEX ix_message_session_seq ON message (session_id, seq);
INSERT INTO session (id, name, kind, target, status, started_ns, message_count)
    VALUES (7, 'from v1', 'stdio-wrap', '["old"]', 'ended', 1, 1);
INSERT INTO message (id, session_id, seq, ts_ns, direction, channel, raw, size, parse_status, kind, method)
    VALUES (41, 7, 1, 2, 'c2s', 'stdin', X'7B226A736F6E727063223A22322E30222C226D6574686F64223A2270696E67227D0A',
            34, 'ok', 'notification', 'ping');
"""


def test_a_v1_era_sqlite_file_is_upgraded_and_stamped(tmp_path: Path) -> None:
    db = tmp_path / "v1.db"
    with sqlite3.connect(db) as conn:  # what the first release wrote: no lint tables, ids reusable
        conn.executescript(V1_SCHEMA)
    engine = open_engine(db)
    assert get_session(engine, 7).name == "from v1"
    (m,) = list(iter_messages(engine, 7))
    assert m.id == 41 and m.raw == b'{"jsonrpc":"2.0","method":"ping"}\n'
    assert [r.session_id for r in search_messages(engine, "ping")] == [7]
    assert {"lint_finding", "lint_run", "alembic_version"} <= set(inspect(engine).get_table_names())
    engine.dispose()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version FROM schema_info").fetchall() == [(SCHEMA_VERSION,)]
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [(ALEMBIC_HEAD,)]
        ddl = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'message'").fetchone()[0]
        assert "AUTOINCREMENT" in ddl  # legacy step 3 ran before the stamp
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    new = create_session(open_engine(db), kind="stdio-wrap", target=["x"])
    assert new == 8


def _open_in_a_fresh_interpreter_imports_alembic(db: Path | str) -> bool:
    """Open (create, upgrade) `db` in a new Python process; whether that imported Alembic."""
    probe = (
        "import sys; from inspector.store import open_engine; open_engine(sys.argv[1]).dispose(); "
        "print('alembic' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(db)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip() == "True"


def test_an_up_to_date_store_opens_without_importing_alembic(any_store: Path | str) -> None:
    open_engine(any_store).dispose()
    assert not _open_in_a_fresh_interpreter_imports_alembic(any_store)


def test_recorders_opening_a_new_postgresql_database_at_once_migrate_it_once(pg_url: str) -> None:
    with ThreadPoolExecutor(6) as pool:
        engines = list(pool.map(lambda _: open_engine(pg_url), range(6)))
    with engines[0].connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar_one() == 1
    for engine in engines:
        engine.dispose()


def test_postgresql_urls_default_to_psycopg_and_never_show_the_password() -> None:
    assert (
        database_url("postgresql://u:pw@db.internal:5432/rec")
        == "postgresql+psycopg://u:pw@db.internal:5432/rec"
    )
    assert database_url("postgres://u@h/rec") == "postgresql+psycopg://u@h/rec"
    assert database_url("postgresql+psycopg://u@h/rec") == "postgresql+psycopg://u@h/rec"
    assert masked_url("postgresql://u:s3cr3t@h/rec") == "postgresql://u:***@h/rec"
    assert masked_url("recordings/x.db") == "recordings/x.db"


def test_an_unreachable_server_is_one_clear_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"postgresql://someone:hunter2secret@127.0.0.1:{_free_port()}/rec"
    monkeypatch.chdir(tmp_path)
    for argv in (["sessions", "--db", url], ["sessions"]):
        done = run(*argv, env={"MCP_INSPECTOR_DB": url})  # in-process
        assert done.returncode == 2, done.stderr
        assert "hunter2secret" not in done.stderr + done.stdout
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "cannot reach the database" in lines[0] and "***" in lines[0], lines
    with pytest.raises(StoreError) as caught:
        open_engine(url)
    assert "hunter2secret" not in str(caught.value)


def test_the_environment_names_the_default_store(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = open_engine(pg_url)
    sid = create_session(engine, kind="stdio-wrap", target=["far-away-server"], name="shared one")
    engine.dispose()
    env = {"MCP_INSPECTOR_DB": pg_url.replace("postgresql+psycopg://", "postgresql://"), "COLUMNS": "80"}
    monkeypatch.chdir(tmp_path)
    done = run("sessions", env=env)  # in-process
    assert done.returncode == 0, done.stderr
    assert "shared one" in done.stdout and str(sid) in done.stdout
    assert not (tmp_path / "recordings").exists()  # no SQLite file was made beside it


# Text cut at punctuation, case, non-ASCII, bytes that are not UTF-8, NUL: each query's matches must
# be the same seqs on SQLite and PostgreSQL.
TEXTS = [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Lisbon"}}}\n',
    b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Sunny in LISBON, 21C"}]}}\n',
    b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"caf\xc3\xa9 na\xc3\xafve x-ray"}}\n',
    b"\xff\xfe not utf8 Lisbon \x00 tail\r\n",
    b'{"jsonrpc":"2.0","id":"a.b","error":{"code":-32601,"message":"Method not found: tools/lisp"}}\n',
]
QUERIES = [
    "lisbon",
    "LISBON sunny",
    "tools/call",
    "get_weather",
    "get weather",
    "x-ray",
    "café",
    "naïve",
    "32601",
    "-32601",
    "not found",
    "utf8 tail",
    "tools lisp",
    "a.b",
    '"text"',
    "nothing-at-all",
]


def _search_everywhere(db: Path | str) -> dict[str, list[int]]:
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["x"])
    builder = MessageBuilder(sid)
    rows = []
    for i, raw in enumerate(TEXTS):
        rows += builder.feed(1000 + i, "s2c" if i % 2 else "c2s", "stdout" if i % 2 else "stdin", raw)
    SessionWriter(engine, sid).on_batch(rows, None)
    found = {q: [m.seq for m in search_messages(engine, q)] for q in QUERIES}
    engine.dispose()
    return found


def test_full_text_search_answers_the_same_on_both_backends(tmp_path: Path, pg_url: str) -> None:
    on_sqlite = _search_everywhere(tmp_path / "fts.db")
    on_postgresql = _search_everywhere(pg_url)
    assert on_sqlite["lisbon"] == [1, 2, 4]
    assert on_sqlite["nothing-at-all"] == []
    assert on_postgresql == on_sqlite


def test_the_full_text_function_is_usable_in_a_parallel_query(pg_url: str) -> None:
    """Its exception blocks are subtransactions, which a parallel plan refuses: it must say so
    (PARALLEL UNSAFE) rather than fail a query the planner chose to run in parallel."""
    engine = open_engine(pg_url)
    sid = create_session(engine, kind="stdio-wrap", target=["x"])
    builder = MessageBuilder(sid)
    SessionWriter(engine, sid).on_batch(
        [
            r
            for i in range(200)
            for r in builder.feed(i, "c2s", "stdin", b'{"jsonrpc":"2.0","method":"ping"}\n')
        ],
        None,
    )
    with engine.begin() as conn:
        for setting in (
            "max_parallel_workers_per_gather = 2",
            "parallel_setup_cost = 0",
            "parallel_tuple_cost = 0",
            "min_parallel_table_scan_size = 0",
        ):
            conn.exec_driver_sql(f"SET LOCAL {setting}")
        force = conn.exec_driver_sql(  # renamed in PostgreSQL 16
            "SELECT name FROM pg_settings WHERE name IN ('debug_parallel_query', 'force_parallel_mode')"
        ).scalar_one()
        conn.exec_driver_sql(f"SET LOCAL {force} = on")
        found = conn.exec_driver_sql("SELECT count(*) FROM message WHERE inspector_fts_vector(raw) @@ 'ping'")
        assert found.scalar_one() == 200
    engine.dispose()


def _sqlite_schema(path: Path) -> dict[str, Any]:
    """Tables (columns with name, INTEGER/TEXT/... affinity, not-null, pk), indexes and autoincrement."""

    def affinity(declared: str) -> str:  # SQLite's rules (section 3.1 of its datatype page)
        d = declared.upper()
        if "INT" in d:
            return "INTEGER"
        if any(x in d for x in ("CHAR", "CLOB", "TEXT")):
            return "TEXT"
        if "BLOB" in d or not d:
            return "BLOB"
        if any(x in d for x in ("REAL", "FLOA", "DOUB")):
            return "REAL"
        return "NUMERIC"

    with sqlite3.connect(path) as conn:
        tables = [
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        ]
        schema: dict[str, Any] = {}
        for table in tables:
            columns = [
                (c[1], affinity(c[2]), c[3], c[5]) for c in conn.execute(f"PRAGMA table_info('{table}')")
            ]
            indexes = sorted(
                (i[1], i[2], tuple(c[2] for c in conn.execute(f"PRAGMA index_info('{i[1]}')")))
                for i in conn.execute(f"PRAGMA index_list('{table}')")
            )
            sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0] or ""
            schema[table] = (columns, indexes, "AUTOINCREMENT" in sql.upper())
        schema["alembic_version"] = (
            schema["alembic_version"],
            conn.execute("SELECT * FROM alembic_version").fetchall(),
        )
        schema["schema_info"] = (schema["schema_info"], conn.execute("SELECT * FROM schema_info").fetchall())
    return schema


def test_a_new_sqlite_file_gets_the_migrations_schema_without_alembic(tmp_path: Path) -> None:
    """A new SQLite file is made from the models and stamped at head (no Alembic import: `wrap` makes
    databases often); it must be the schema the Alembic migrations give."""
    fresh = tmp_path / "fresh.db"
    assert not _open_in_a_fresh_interpreter_imports_alembic(fresh)
    # The same schema through the migrations: Alembic's upgrade run on an empty file.
    migrated = tmp_path / "migrated.db"
    from sqlalchemy import create_engine

    from inspector.store.upgrade import upgrade

    raw = create_engine(database_url(migrated))
    with raw.begin() as conn:
        upgrade(conn, None, None, SCHEMA_VERSION)
    raw.dispose()
    assert _sqlite_schema(fresh) == _sqlite_schema(migrated)
