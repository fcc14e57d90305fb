"""Revision 0006 (issue 21): the filter indexes (session_id, method | direction | kind, seq), the same
in an upgraded store as in a fresh one on both backends, and the ones SQLite picks for filtered
pages and their counts."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from alembic import command
from sqlalchemy import inspect
from sqlalchemy.dialects import sqlite as sqlite_dialect

from inspector.store import open_engine
from inspector.store.pages import MessageFilter, count_statement, page_params, page_statement
from inspector.store.upgrade import alembic_config
from tests.postgres import message_indexes

NEW = {
    "ix_message_session_method_seq": ["session_id", "method", "seq"],
    "ix_message_session_direction_seq": ["session_id", "direction", "seq"],
    "ix_message_session_kind_seq": ["session_id", "kind", "seq"],
}


def test_an_upgraded_store_has_the_indexes_of_a_fresh_one(any_store: Path | str) -> None:
    fresh = message_indexes(any_store)
    assert {k: fresh[k] for k in NEW} == NEW and "ix_message_session_method" not in fresh
    engine = open_engine(any_store)
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0004")
    with engine.connect() as conn:
        before = {str(i["name"]) for i in inspect(conn).get_indexes("message")}
    engine.dispose()
    assert "ix_message_session_method" in before and not NEW.keys() & before
    assert message_indexes(any_store) == fresh  # opening upgrades


def test_sqlite_serves_filtered_pages_and_counts_from_the_filter_indexes(tmp_path: Path) -> None:
    db = tmp_path / "plan.db"
    open_engine(db).dispose()
    with sqlite3.connect(db) as conn:
        for flt, index in (
            (MessageFilter(methods=("tools/call",)), "ix_message_session_method_seq"),
            (MessageFilter(direction="s2c"), "ix_message_session_direction_seq"),
            (MessageFilter(kinds=("response",)), "ix_message_session_kind_seq"),
        ):
            page, params = _sql(page_statement("sqlite", flt), page_params(1, offset=9000, limit=500))
            plan = " ".join(r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + page, params))
            assert f"USING INDEX {index}" in plan and "TEMP B-TREE" not in plan, plan
            count, params = _sql(count_statement("sqlite", flt), {"sid": 1})
            plan = " ".join(r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + count, params))
            assert f"USING COVERING INDEX {index}" in plan, plan


def _sql(stmt: Any, params: dict[str, Any]) -> tuple[str, list[Any]]:
    """A statement of `store.pages` as the SQLite text it runs, with its positional parameters."""
    state = stmt.compile(dialect=sqlite_dialect.dialect()).construct_expanded_state(params)
    return state.statement, list(state.positional_parameters)
