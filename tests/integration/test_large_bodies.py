"""Large bodies stored out of line, compressed and once (inspector/store/bodies.py), on both backends:
exact bytes back through the store, the JSONL export, the raw view, the mock server and replay;
full-text search inside them; identical bodies of two sessions stored once; deletes keep what
another session uses; a store from revision 0003 upgrades with its rows intact."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import anyio
import mcp
import orjson
import pytest
from sqlalchemy import text

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.demo.driver import drive_demo
from inspector.share.export import jsonl_lines
from inspector.store import SessionWriter, open_engine
from inspector.store.bodies import HEAD_BYTES, Encoder, Thresholds, session_stored_bytes
from inspector.store.engine import ALEMBIC_HEAD
from inspector.store.queries import delete_session, get_message, get_session, iter_rows
from inspector.store.search import search_messages
from tests.api.conftest import serve
from tests.cli_in_process import run
from tests.conftest import SCRIPTED
from tests.shim_process import ShimProcess, ended_count, ended_named, only_session
from tests.warm_peers import demo_argv, inspector_argv, warm_wrap_argv

DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)
BIG = 20 * 1024 * 1024
# Not UTF-8 (Latin-1 `é`), compressible, with a word to search for; no newline inside.
NOT_UTF8 = b'{"note":"' + b"caf\xe9 quokka " * 800 + b'"}\n'


@pytest.fixture
def store(any_made_store: Path | str) -> Path | str:
    return any_made_store  # migrated before a shim opens it (see tests/api/conftest.py)


def _blobs(engine: Any) -> list[tuple[str, str, int, int]]:
    with engine.connect() as conn:
        return [
            tuple(r)
            for r in conn.execute(text("SELECT sha256, codec, size, LENGTH(data) FROM blob ORDER BY size"))
        ]


def test_a_wrapped_20_mb_answer_and_a_non_utf8_line_come_back_exact_everywhere(store: Path | str) -> None:
    shim = ShimProcess(warm_wrap_argv(store, *SCRIPTED, "--big-bytes", str(BIG), extra=("--name", "big")))
    shim.send(NOT_UTF8)  # recorded (c2s), ignored by the server
    shim.request(1, "tools/call")
    line = shim.read_line(timeout=60)
    assert len(line) > BIG
    shim.close_stdin()
    shim.wait(60)
    engine = open_engine(store)
    session = only_session(engine)
    rows = list(iter_rows(engine, session.id))
    by_raw = {r["seq"]: r["raw"] for r in rows}
    big_seq = next(r["seq"] for r in rows if r["direction"] == "s2c" and r["channel"] == "stdout")
    odd_seq = next(r["seq"] for r in rows if r["parse_status"] == "invalid-utf8")
    assert by_raw[big_seq] == line and by_raw[odd_seq] == NOT_UTF8
    assert get_message(engine, session.id, big_seq).size == len(line)

    # Stored: the rows keep their start, the blobs the whole bodies zstd-compressed.
    with engine.connect() as conn:
        lengths = {int(r[0]): int(r[1]) for r in conn.execute(text("SELECT seq, LENGTH(raw) FROM message"))}
    assert lengths[big_seq] == lengths[odd_seq] == HEAD_BYTES
    blobs = _blobs(engine)
    assert [(codec, size) for _, codec, size, _ in blobs] == [("zstd", len(NOT_UTF8)), ("zstd", len(line))]
    assert blobs[-1][3] < len(line) // 100
    stored = session_stored_bytes(engine.connect(), [session.id])[session.id]
    assert stored < len(line) // 50

    # Search finds a word inside a compressed body.
    assert [m.seq for m in search_messages(engine, "quokka")] == [odd_seq]

    # The JSONL export.
    exported = {}
    for raw_line in jsonl_lines(engine, [session]):
        doc = orjson.loads(raw_line)
        if doc.get("type") == "message":
            exported[doc["seq"]] = (
                doc["raw"].encode() if doc.get("raw") is not None else base64.b64decode(doc["raw_base64"])
            )
    assert exported[big_seq] == line and exported[odd_seq] == NOT_UTF8

    # The raw view of the UI's API.
    for api in serve(store):  # type: ignore[arg-type]
        for seq, want in ((big_seq, line), (odd_seq, NOT_UTF8)):
            got = api.http.get(f"/api/sessions/{session.id}/messages/{seq}/raw")
            assert got.status_code == 200 and got.content == want

    # The mock server plays the recorded answer back (re-framed for the asking client's id).
    mock = ShimProcess(inspector_argv("mock-server", str(session.id), "--db", str(store)))
    mock.request(1, "tools/call")
    assert json.loads(mock.read_line(timeout=60)) == json.loads(line)
    mock.close_stdin()
    mock.wait(60)

    # Replay against the same server finds the 20 MB answer unchanged.
    out = run(
        "replay", str(session.id), "--db", str(store), "--json", "--", *SCRIPTED, "--big-bytes", str(BIG)
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert all(e["status"] == "equal" for e in json.loads(out.stdout)["exchanges"])


def _record_demo(db: Path | str, name: str) -> int:
    argv = warm_wrap_argv(db, *DEMO, extra=("--quiet", "--name", name))
    before = ended_count(db, name)
    # The SDK passes a server only a few variables unless told: the thresholds go in by name.
    params = mcp.StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))
    anyio.run(lambda: drive_demo(params, mode="legacy"))
    return int(ended_named(db, name, count=before + 1).id)


def test_two_wraps_of_the_demo_server_store_their_tools_list_once_and_deletes_keep_it_while_used(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(SQLite only, for time: on PostgreSQL the test of two writers below stores a body once and
    deletes the sessions sharing it.)"""
    store = db_path
    # The demo's tools/list answer is a few kB: thresholds below it, set the way a user would.
    monkeypatch.setenv("MCP_INSPECTOR_COMPRESS_ABOVE", "1KiB")
    monkeypatch.setenv("MCP_INSPECTOR_DEDUP_ABOVE", "1KiB")
    first, second = _record_demo(store, "one"), _record_demo(store, "two")
    engine = open_engine(store)

    def listed(sid: int) -> dict[str, Any]:
        rows = [r for r in iter_rows(engine, sid) if r["method"] == "tools/list" and r["kind"] == "response"]
        assert len(rows) == 1 and rows[0]["size"] > 1024
        return dict(rows[0])

    a, b = listed(first), listed(second)
    assert a["raw"] == b["raw"] and a["body_sha256"] == b["body_sha256"] is not None
    with engine.connect() as conn:
        assert (
            conn.execute(
                text("SELECT COUNT(*) FROM blob WHERE sha256 = :s"), {"s": a["body_sha256"]}
            ).scalar_one()
            == 1
        )
        sizes = session_stored_bytes(conn, [first, second])
        blob_len = conn.execute(
            text("SELECT LENGTH(data) FROM blob WHERE sha256 = :s"), {"s": a["body_sha256"]}
        ).scalar_one()
    assert 0 < blob_len < a["size"]  # compressed
    assert sizes[first] > 0 and sizes[second] > 0

    delete_session(engine, first)
    assert listed(second)["raw"] == b["raw"]  # the blob the other session uses stays
    unique = {sha for sha, *_ in _blobs(engine)}
    assert a["body_sha256"] in unique
    delete_session(engine, second)
    assert _blobs(engine) == []  # nothing left refers to any blob


def _rows(sid: int, bodies: list[bytes]) -> list[Any]:
    builder = MessageBuilder(sid)
    out = []
    for i, body in enumerate(bodies, start=1):
        out += builder.feed(1000 * i, "s2c", "stdout", body)
    return out


def test_a_batch_repeating_a_body_and_two_writers_of_it_store_it_once(store: Path | str) -> None:
    engine = open_engine(store)
    body = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + b"ab" * 5000 + b'"}}\n'
    sids = [create_session(engine, kind="import", target=None) for _ in range(2)]
    writers = [SessionWriter(engine, sid) for sid in sids]
    writers[0].on_batch(_rows(sids[0], [body, body, b'{"jsonrpc":"2.0","method":"x"}\n']))
    writers[1].on_batch(_rows(sids[1], [body]))
    for w in writers:
        w.on_end(0, "client-eof")
    assert [(codec, size) for _, codec, size, _ in _blobs(engine)] == [("zstd", len(body))]
    assert [r["raw"] for r in iter_rows(engine, sids[0])][:2] == [body, body]
    with engine.connect() as conn:
        sizes = session_stored_bytes(conn, sids)
        (blob_len,) = conn.execute(text("SELECT LENGTH(data) FROM blob")).one()
    # Each session's rows keep their heads; the one blob is counted half in each.
    assert sizes[sids[1]] == HEAD_BYTES + blob_len // 2
    assert sizes[sids[0]] == 2 * HEAD_BYTES + len(b'{"jsonrpc":"2.0","method":"x"}\n') + blob_len // 2
    assert get_session(engine, sids[0]).message_count == 3
    delete_session(engine, sids[0])
    assert [r["raw"] for r in iter_rows(engine, sids[1])] == [body] and len(_blobs(engine)) == 1
    delete_session(engine, sids[1])
    assert _blobs(engine) == []


def test_thresholds_off_keeps_every_body_in_its_row() -> None:
    enc = Encoder(Thresholds(compress=2**62, dedup=2**62))
    rows = [{"raw": b"x" * 100_000}]
    stored, bodies = enc.split(rows)  # type: ignore[arg-type]
    assert stored[0] is rows[0] and bodies == {}


def test_a_revision_0003_store_upgrades_and_its_large_rows_still_read(store: Path | str) -> None:
    from alembic import command

    from inspector.store.upgrade import alembic_config

    engine = open_engine(store)
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0003")
    body = b'{"jsonrpc":"2.0","id":1,"result":{"text":"' + b"walrus " * 3000 + b'"}}\n'
    with engine.begin() as conn:  # a row as 0003 stored it: the whole body in `raw`
        conn.execute(
            text(
                "INSERT INTO session (kind, status, started_ns, message_count, pinned) "
                "VALUES ('import', 'ended', 1, 1, false)"
            )
        )
        sid = conn.execute(text("SELECT MAX(id) FROM session")).scalar_one()
        conn.execute(
            text(
                "INSERT INTO message (session_id, seq, ts_ns, direction, channel, raw, size, parse_status, kind) "
                "VALUES (:sid, 1, 1, 's2c', 'stdout', :raw, :size, 'ok', 'response')"
            ),
            {"sid": sid, "raw": body, "size": len(body)},
        )
    engine.dispose()
    engine = open_engine(store)  # upgrades to the head
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == ALEMBIC_HEAD
    assert get_message(engine, sid, 1).raw == body
    assert [m.seq for m in search_messages(engine, "walrus", session_id=sid)] == [1]
    # New rows of the same body go out of line; the old row keeps reading its own bytes.
    sid2 = create_session(engine, kind="import", target=None)
    writer = SessionWriter(engine, sid2)
    writer.on_batch(_rows(sid2, [body]))
    writer.on_end(0, "client-eof")
    assert get_message(engine, sid2, 1).raw == body and len(_blobs(engine)) == 1
    assert sorted(m.session_id for m in search_messages(engine, "walrus")) == [sid, sid2]


def test_two_recorders_adding_the_same_new_body_at_once_on_postgresql(pg_store_url: str) -> None:
    """The second insert waits on the first's uncommitted blob row, then skips it: no unique-key
    failure, one blob, both rows read back whole."""
    import threading

    engine = open_engine(pg_store_url)
    body = b'{"jsonrpc":"2.0","id":1,"result":{"text":"' + b"narwhal " * 2000 + b'"}}\n'
    sha = hashlib.sha256(body).hexdigest()
    sid = create_session(engine, kind="import", target=None)
    other = engine.connect()
    other.begin()
    other.execute(  # a recorder in the middle of its batch: the blob inserted, not yet committed
        text("INSERT INTO blob (sha256, codec, size, data) VALUES (:s, 'none', :n, :d)"),
        {"s": sha, "n": len(body), "d": body},
    )
    writer = SessionWriter(engine, sid)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            writer.on_batch(_rows(sid, [body]))
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    t = threading.Thread(target=write)
    t.start()
    t.join(1.0)
    assert t.is_alive()  # waiting on the other transaction's row
    other.commit()
    other.close()
    t.join(30)
    assert not t.is_alive() and errors == []
    writer.on_end(0, "client-eof")
    assert get_message(engine, sid, 1).raw == body and len(_blobs(engine)) == 1
