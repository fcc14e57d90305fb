"""Alembic migrations of the recording database (SQLite and PostgreSQL alike).

Run by `store.engine.open_engine` (no alembic.ini: the Config is built in code); `versions/` holds
the revisions. 0001 is the schema that hand-written versions 1..3 reached (older SQLite files are
brought to it by `store.legacy`, then stamped); later revisions are Alembic's alone.
"""
