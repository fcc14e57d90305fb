"""The store's reads are one implementation over DB-API (store/db.py): a `Db` from `open_db` (what the
read commands use, no SQLAlchemy) and an `Engine` (what the API and the recorders hold) give the same
records, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from inspector.errors import StoreError
from inspector.store import get_session, iter_messages, list_sessions, open_engine, pair_of, search_messages
from inspector.store.db import Db, _pyformat
from inspector.store.opening import open_db
from inspector.store.queries import (
    SessionFilter,
    find_sessions,
    get_message,
    iter_rows,
    max_ids,
    sessions_after_id,
    sessions_by_ids,
    update_session,
)
from tests.unit.test_store import _record

if TYPE_CHECKING:
    from sqlalchemy import Engine


def _reads(store: Db | Engine, sid: int) -> dict[str, Any]:
    messages = list(iter_messages(store, sid))
    return {
        "list": list_sessions(store),
        "get": [get_session(store, ref) for ref in (sid, "last", "a 100% name_x")],
        "find": find_sessions(store, SessionFilter(name="100%"), limit=5),
        "find_none": find_sessions(store, SessionFilter(name="200%"), limit=5),
        "messages": messages,
        "rows": list(iter_rows(store, sid)),
        "pair": [pair_of(store, m) for m in messages],
        "one": get_message(store, sid, 2),
        "search": search_messages(store, "beta"),
        "ids": max_ids(store),
        "by_ids": sessions_by_ids(store, [sid, 999]),
        "after": sessions_after_id(store, 0),
    }


def test_a_db_and_an_engine_read_the_same_records(any_store: Path | str) -> None:
    sid = _record(any_store, [("alpha", "one"), ("beta", "two")], session_name="a 100% name_x")
    engine = open_engine(any_store)
    update_session(engine, sid, labels=["x"], pinned=True)
    db = open_db(any_store, create=False)
    try:
        assert isinstance(db, Db)
        via_db, via_engine = _reads(db, sid), _reads(engine, sid)
    finally:
        db.dispose()
        engine.dispose()
    assert via_db == via_engine
    session = via_db["get"][0]
    # JSON columns decoded, booleans as booleans, on both backends.
    assert (session.target, session.labels, session.pinned) == (["server"], ["x"], True)
    assert [s.id for s in via_db["find"][0]] == [sid]
    assert via_db["find_none"] == ([], 0)
    assert [m.seq for m in via_db["search"]] == [3]
    assert via_db["pair"][1].seq == 1


def test_open_db_refuses_a_missing_file_without_creating_it(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no recording database at"):
        open_db(tmp_path / "none.db", create=False)
    assert not (tmp_path / "none.db").exists()


def test_named_parameters_become_pyformat_for_psycopg() -> None:
    sql = "SELECT 'a%' || :name, 'simple'::regconfig FROM t WHERE x = :x_1"
    assert _pyformat(sql) == "SELECT 'a%%' || %(name)s, 'simple'::regconfig FROM t WHERE x = %(x_1)s"
