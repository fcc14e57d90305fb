"""`mcp-inspect db copy` between real stores: SQLite -> PostgreSQL -> SQLite keeps every byte and
column (new ids), parent links and lint findings remapped; copying again adds nothing; `--session`
picks; a session still recording is left for later. The CLI runs in-process (tests/cli_in_process.py:
the command's exit status and output, without a Python process of its own each)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import text

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.lint import findings_of, lint_session
from inspector.store import SessionWriter, get_session, iter_messages, open_engine
from inspector.store.queries import list_sessions, update_session
from tests.cli_in_process import Ran, run

COLUMNS = {"COLUMNS": "80"}
RAWS = [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}\n',
    b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"caf\xc3\xa9"}]}}\n',
    b"\xff\xfe not utf8 \x00 at all\r\n",
    b'{"jsonrpc":"2.0","id":7,"result":{}}\n',  # answers nothing: a lint finding
]


def _fill(db: Path) -> tuple[int, int, int]:
    engine = open_engine(db)
    first = create_session(engine, kind="stdio-wrap", target=["server", "--flag"], name="first")
    builder = MessageBuilder(first)
    rows: list[Any] = []
    for i, raw in enumerate(RAWS):
        rows += builder.feed(1000 + i, "c2s" if i == 0 else "s2c", "stdin" if i == 0 else "stdout", raw)
    rows[0]["meta"] = {**(rows[0]["meta"] or {}), "intercept": {"n": 1, "action": "delay", "by": "rule x"}}
    writer = SessionWriter(engine, first)
    writer.on_batch(rows, None)
    writer.on_end(0, "client-eof", builder.facts.snapshot())
    update_session(engine, first, labels=["pinned", "team"])
    assert lint_session(engine, first)
    child = create_session(engine, kind="replay", target=["server"], name="child", parent_id=first)
    SessionWriter(engine, child).on_end(0, "done", {})
    live = create_session(engine, kind="stdio-wrap", target=["still", "going"], name="live")
    engine.dispose()
    return first, child, live


def _copy(*argv: str) -> Ran:
    done = run("db", "copy", *argv, env=COLUMNS, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def _snapshot(db: Path | str) -> list[dict[str, Any]]:
    """Every session (oldest first) with its rows and findings, ids left out (they are remapped)."""
    engine = open_engine(db)
    out = []
    by_id = {s.id: s for s in list_sessions(engine)}
    for s in sorted(by_id.values(), key=lambda s: s.id or 0):
        doc = s.to_json()
        parent = by_id.get(s.parent_id)
        doc["parent"] = parent.name if parent else None
        for key in ("id", "parent_id"):
            doc.pop(key)
        doc["rows"] = [{**m.to_json(), "raw": m.raw} for m in iter_messages(engine, s.id or 0)]
        for row in doc["rows"]:
            row.pop("id"), row.pop("session_id")
        doc["findings"] = [(f.seq, f.rule, f.severity) for f in findings_of(engine, s.id or 0)]
        out.append(doc)
    engine.dispose()
    return out


def test_sqlite_to_postgresql_and_back_keeps_everything(tmp_path: Path, pg_url: str) -> None:
    src = tmp_path / "src.db"
    first, child, live = _fill(src)
    done = _copy(str(src), pg_url.replace("postgresql+psycopg://", "postgresql://"))
    assert "copied 2 session(s), 4 messages" in done.stderr
    assert f"still recording, skipped: #{live}" in done.stderr
    want = [s for s in _snapshot(src) if s["name"] != "live"]
    assert want[0]["findings"] and want[1]["parent"] == "first"
    assert _snapshot(pg_url) == want
    engine = open_engine(pg_url)
    copied = get_session(engine, "first")
    with engine.connect() as conn:  # findings point at the destination's own message rows
        ids = (
            conn.execute(
                text(
                    "SELECT f.message_id = m.id FROM lint_finding f JOIN message m ON m.session_id = f.session_id AND m.seq = f.seq"
                )
            )
            .scalars()
            .all()
        )
    assert ids and all(ids) and copied.labels == ["pinned", "team"]
    engine.dispose()

    back = tmp_path / "back.db"
    _copy(pg_url, str(back))
    assert _snapshot(back) == want

    again = _copy(str(src), pg_url)  # copying again adds nothing
    assert "nothing new to copy" in again.stderr and f"#{first} (as #" in again.stderr
    assert len(_snapshot(pg_url)) == 2


def test_one_session_at_a_time_sqlite_to_sqlite(tmp_path: Path) -> None:
    src, dst = tmp_path / "a.db", tmp_path / "b.db"
    first, child, _live = _fill(src)
    _copy(str(src), str(dst), "--session", str(child))
    (only,) = _snapshot(dst)
    assert only["name"] == "child" and only["parent"] is None
    _copy(str(src), str(dst), "--session", "first")
    names = {s["name"]: s for s in _snapshot(dst)}
    assert set(names) == {"first", "child"}
    assert names["first"]["rows"][2]["raw"] == RAWS[2]


def test_same_store_and_missing_source_are_clear_errors(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    open_engine(db).dispose()
    same = run("db", "copy", str(db), str(db), env=COLUMNS)
    assert same.returncode == 2 and "same store" in same.stderr
    gone = run("db", "copy", str(tmp_path / "nope.db"), str(db), env=COLUMNS)
    assert gone.returncode == 2 and "no recording database" in gone.stderr
