"""The hand-written schema steps of SQLite files from before Alembic (schema_info versions 1..3).

A file at version N < 3 runs the steps after N, reaching what Alembic's baseline revision 0001
describes; `store.upgrade` then stamps it 0001 and lets Alembic take over. Kept as they were so a
recording from any release still opens.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, Index, MetaData, Table
from sqlalchemy.schema import CreateTable

from inspector.store import schema

__all__ = ["ADDED_AFTER_BASELINE", "LEGACY_STEPS", "LEGACY_VERSION", "baseline_tables", "upgrade_legacy"]

# Columns the models have that Alembic revisions after 0001 add (the steps here must stop at the
# baseline, or the revision adding the column would find it there already).
ADDED_AFTER_BASELINE: dict[str, tuple[str, ...]] = {"session": ("pinned",), "message": ("body_sha256",)}
# Tables the models have that revisions after 0001 create.
CREATED_AFTER_BASELINE: tuple[str, ...] = ("blob",)
# Indexes the models have that revisions after 0001 create, and the baseline's indexes they replace
# (revision 0006: (session_id, method, seq) and friends replace (session_id, method)).
INDEXES_AFTER_BASELINE: dict[str, tuple[str, ...]] = {
    "message": (
        "ix_message_session_method_seq",
        "ix_message_session_direction_seq",
        "ix_message_session_kind_seq",
        "ix_message_session_id",  # revision 0007
        "ix_message_session_linted",  # revision 0008
    )
}
BASELINE_INDEXES: dict[str, dict[str, tuple[str, ...]]] = {
    "message": {"ix_message_session_method": ("session_id", "method")}
}


def baseline_tables() -> dict[str, Table]:
    """The models' tables as revision 0001 has them: a copy without `ADDED_AFTER_BASELINE`."""
    md = MetaData(naming_convention=schema.metadata.naming_convention)
    tables: dict[str, Table] = {}
    for table in schema.metadata.sorted_tables:
        if table.name in CREATED_AFTER_BASELINE:
            continue
        copy = table.to_metadata(md)
        for name in ADDED_AFTER_BASELINE.get(table.name, ()):
            column = copy.c[name]
            assert not column.foreign_keys, f"{name}: drop its foreign key too"
            for index in [i for i in copy.indexes if name in i.columns]:
                copy.indexes.discard(index)  # the revision adding the column adds its index
            copy._columns.remove(column)  # noqa: SLF001 (no public way to drop a column from a Table)
        for index in [i for i in copy.indexes if i.name in INDEXES_AFTER_BASELINE.get(table.name, ())]:
            copy.indexes.discard(index)
        for name, columns in BASELINE_INDEXES.get(table.name, {}).items():
            Index(name, *(copy.c[c] for c in columns))  # joins `copy` through its columns
        tables[table.name] = copy
    return tables


def _v1(conn: Connection) -> None:
    tables = baseline_tables()
    tables["session"].metadata.create_all(conn)


def _v2(conn: Connection) -> None:
    # Lint findings (issue 8). A fresh database got them from _v1's create_all already.
    tables = baseline_tables()
    wanted = [tables["lint_finding"], tables["lint_run"]]
    tables["session"].metadata.create_all(conn, tables=wanted, checkfirst=True)


def _v3(conn: Connection) -> None:
    """`session` and `message` ids are never reused (SQLite AUTOINCREMENT).

    Without it SQLite gives a new row the highest id + 1, so deleting the newest session handed its
    ids to the next one: the live feed and the full-text index (which remember the highest id they
    have seen) then missed the new rows, and an open `/sessions/N` page showed another session.
    SQLite cannot add AUTOINCREMENT to a table, so each is rebuilt under its name, ids kept
    (foreign keys are off meanwhile: see `store.upgrade`). A fresh database has it from `_v1`."""
    if conn.dialect.name != "sqlite":
        return  # other databases' identity columns never reuse ids
    tables = baseline_tables()
    for table, floor_sql in (
        (tables["session"], None),
        (tables["message"], "SELECT indexed_upto FROM fts_state"),
    ):
        name = table.name
        ddl = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        sql: str = ddl.scalar_one()
        if "AUTOINCREMENT" in sql.upper():
            continue
        columns = ", ".join(f'"{c.name}"' for c in table.columns)
        create = str(CreateTable(table).compile(dialect=conn.dialect)).strip()
        conn.exec_driver_sql(create.replace(f"CREATE TABLE {name} ", f"CREATE TABLE {name}_v3 ", 1))
        conn.exec_driver_sql(f"INSERT INTO {name}_v3 ({columns}) SELECT {columns} FROM {name}")
        conn.exec_driver_sql(f"DROP TABLE {name}")
        conn.exec_driver_sql(f"ALTER TABLE {name}_v3 RENAME TO {name}")
        for index in table.indexes:
            index.create(conn)
        # Ids handed out before (and deleted since) may still be in the full-text index's watermark.
        floor = 0
        if floor_sql and conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = 'fts_state'").first():
            floor = conn.exec_driver_sql(floor_sql).scalar() or 0
        conn.exec_driver_sql("DELETE FROM sqlite_sequence WHERE name IN (?, ?)", (name, f"{name}_v3"))
        conn.exec_driver_sql(
            f"INSERT INTO sqlite_sequence (name, seq) SELECT ?, MAX(COALESCE(MAX(id), 0), ?) FROM {name}",
            (name, floor),
        )


# Index i upgrades a database at schema version i to version i + 1.
LEGACY_STEPS: list[Callable[[Connection], None]] = [_v1, _v2, _v3]
LEGACY_VERSION = len(LEGACY_STEPS)  # what Alembic's baseline revision 0001 equals


def upgrade_legacy(conn: Connection, version: int) -> None:
    """Run the hand-written steps from `version` up to `LEGACY_VERSION` (in the caller's transaction)."""
    for step in LEGACY_STEPS[version:]:
        step(conn)
