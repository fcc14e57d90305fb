"""Revision 0008 (issue 21, lint25): a partial index on (session_id, seq) of the flagged messages
(`lint IS NOT NULL`), the same in an upgraded store as in a fresh one on both backends. A re-lint
clears the earlier flags through it, every earlier flag, whoever set it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import inspect, text

from inspector.lint import lint_session
from inspector.store import open_engine
from inspector.store.queries import iter_rows
from tests.lint_recordings import violations
from tests.postgres import message_index_names_at, message_indexes

NAME, COLUMNS = "ix_message_session_linted", ["session_id", "seq"]


def _where(store: Path | str) -> str:
    """The index's condition as the database reports it."""
    engine = open_engine(store)
    try:
        (index,) = (i for i in inspect(engine).get_indexes("message") if i["name"] == NAME)
        options: dict[str, Any] = dict(index.get("dialect_options", {}))
        return str(options.get("sqlite_where", options.get("postgresql_where")))
    finally:
        engine.dispose()


def test_an_upgraded_store_has_the_index_of_a_fresh_one(any_store: Path | str) -> None:
    fresh = message_indexes(any_store)
    assert fresh[NAME] == COLUMNS
    assert "lint IS NOT NULL" in _where(any_store)
    assert NAME not in message_index_names_at(any_store, "0007")
    assert message_indexes(any_store) == fresh  # opening upgrades
    assert "lint IS NOT NULL" in _where(any_store)


def _flags(engine: Any, sid: int) -> dict[int, Any]:
    return {r["seq"]: r["lint"] for r in iter_rows(engine, sid) if r["lint"] is not None}


def test_a_relint_clears_every_earlier_flag(any_store: Path | str) -> None:
    """Flags a lint no longer gives (a rule set's change, an imported session's own `lint`
    values) are cleared; the findings' flags stay, the other sessions' flags too. On PostgreSQL the
    clearing reads the partial index (the table's scan forbidden, the index is the cheapest way)."""
    sid, seqs = violations(any_store, name="a")
    other, _ = violations(any_store, name="b")
    engine = open_engine(any_store)
    try:
        found = lint_session(engine, sid)
        lint_session(engine, other)
        flagged = set(_flags(engine, sid))
        assert flagged == {f.seq for f in found} == set(seqs.values())
        stale = [{"rule": "gone-rule", "severity": "error"}]
        with engine.begin() as conn:  # flags no lint of today gives: an old rule set's, an import's
            conn.execute(
                text("UPDATE message SET lint = :v WHERE session_id = :sid AND seq IN (1, 2)"),
                {"v": orjson.dumps(stale).decode(), "sid": sid},
            )
            conn.execute(text("DELETE FROM lint_run WHERE session_id = :sid"), {"sid": sid})
        assert set(_flags(engine, sid)) == flagged | {1, 2}
        assert lint_session(engine, sid) == found
        assert set(_flags(engine, sid)) == flagged
        assert set(_flags(engine, other)) == set(seqs.values())
        if engine.dialect.name == "postgresql":
            with engine.begin() as conn:
                conn.execute(text("ANALYZE message"))
                conn.execute(text("SET LOCAL enable_seqscan = off"))
                plan = conn.execute(
                    text(
                        "EXPLAIN UPDATE message SET lint = NULL WHERE session_id = :sid AND lint IS NOT NULL"
                    ),
                    {"sid": sid},
                ).all()
                assert NAME in " ".join(str(r[0]) for r in plan), plan
    finally:
        engine.dispose()
