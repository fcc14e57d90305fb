"""Bringing a database to the newest schema with Alembic (imported only when it is not there yet).

`store.engine` reads the stored version cheaply on every open and calls `upgrade` only when it
differs, so opening an up-to-date store (every `wrap` start) never imports Alembic.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection

from inspector.store.legacy import upgrade_legacy

__all__ = ["MIGRATIONS_DIR", "alembic_config", "upgrade"]

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
BASELINE = "0001"


def alembic_config(conn: Connection | None = None) -> Config:
    """An Alembic Config for our migrations (no alembic.ini), bound to `conn` when given."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["connection"] = conn
    return cfg


def upgrade(conn: Connection, version: int | None, revision: str | None, schema_version: int) -> None:
    """Upgrade in the caller's transaction: hand-written steps for a pre-Alembic file (schema_info
    1..3, or 0 for one whose creation was cut short), then Alembic to head, then mark schema_info."""
    cfg = alembic_config(conn)
    if version is not None and version < schema_version:
        upgrade_legacy(conn, version)
        command.stamp(cfg, BASELINE)
    command.upgrade(cfg, "head")
    conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS schema_info (version INTEGER NOT NULL)")
    conn.exec_driver_sql("DELETE FROM schema_info")
    conn.exec_driver_sql(f"INSERT INTO schema_info (version) VALUES ({int(schema_version)})")
