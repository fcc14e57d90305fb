"""Regression (issue 19): the commands the UI shows and spawns for a store (`serve --db ...`,
`mock-server ID --db ...`) were built from the engine's `url.database`, which for a PostgreSQL
store is only the database's name: the child recorded into a new SQLite file of that name in its
working directory. They now carry the store's URL, without its password."""

from __future__ import annotations

from inspector.api.mock_commands import db_path
from inspector.store import open_engine


def test_a_url_store_is_passed_on_as_its_url_without_the_password(pg_url: str) -> None:
    with_password = pg_url.replace("postgres@", "postgres:not-for-argv@")  # trust auth ignores it
    engine = open_engine(with_password)
    try:
        assert db_path(engine) == pg_url
        assert "not-for-argv" not in db_path(engine)
    finally:
        engine.dispose()


def test_an_sqlite_store_is_still_its_absolute_path(tmp_path) -> None:  # type: ignore[no-untyped-def]
    engine = open_engine(tmp_path / "x.db")
    try:
        assert db_path(engine) == str((tmp_path / "x.db").resolve())
    finally:
        engine.dispose()
