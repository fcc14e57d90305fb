"""A throwaway PostgreSQL cluster for the tests, from Debian's `postgresql` binaries.

Never a mock: `initdb` + `pg_ctl` of the installed server (`make test` installs the package, as
it does Chromium). One cluster per pytest process (each xdist worker has its own), in a temp
directory, listening on a free loopback port and a private Unix socket, trust authentication
for loopback only. Each test that asks for `pg_url` gets a fresh, empty database in it; one that
asks for `pg_store_url` a fresh database whose schema is made already (a copy of a template the
cluster migrated once: `CREATE DATABASE ... TEMPLATE`, a file copy, instead of Alembic's run each time).

PostgreSQL refuses to run its server as root: as root the cluster is owned and run by the
`postgres` user (created by the Debian package) through `runuser`.

`PgCluster.stop()` / `.start()` stop and restart the server under a test (a database that goes
away mid-session) on the same port and data.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

_COUNTER = itertools.count(1)


def pg_bin_dir() -> Path | None:
    """The newest installed PostgreSQL server's bin directory (Debian layout), or None."""
    env = os.environ.get("MCP_INSPECTOR_PG_BIN")
    if env:
        return Path(env)
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PgCluster:
    """One running throwaway cluster: `url(dbname)` gives an SQLAlchemy URL to a database in it."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="mcp-inspector-pg-"))
        self.data = self.root / "data"
        self.socket_dir = self.root / "sock"
        self.log = self.root / "server.log"
        self.port = _free_port()
        self._as_postgres = os.geteuid() == 0
        self._template: str | None = None
        self._template_lock = threading.Lock()
        if self._as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        self._run("mkdir", "-p", str(self.socket_dir))
        self._run(
            str(bin_dir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        # initdb before 16 has no `-c`: the settings go at the end of postgresql.conf.
        settings = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(self.port),
            "unix_socket_directories": f"'{self.socket_dir}'",
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "max_connections": "200",
        }
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())
        self.start()

    def _run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        if self._as_postgres:
            argv = ("runuser", "-u", "postgres", "--", *argv)
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if done.returncode:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(
                f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr}{done.stdout}{log}"
            )
        return done

    def start(self) -> None:
        self._run(
            str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "start"
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`fast`: clients are disconnected; `immediate`: like a crash)."""
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def psql(self, sql: str, dbname: str = "postgres") -> str:
        out = self._run(
            str(self.bin_dir / "psql"),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "-d",
            dbname,
            "-v",
            "ON_ERROR_STOP=1",
            "-At",
            "-c",
            sql,
        )
        return out.stdout

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{dbname}"

    def _create_database(self, prefix: str, template: str | None = None) -> str:
        """CREATE DATABASE (a copy of `template` if given) over a connection of this process (no
        psql process); its name."""
        import psycopg

        name = f"{prefix}_{os.getpid()}_{next(_COUNTER)}_{int(time.time() * 1000) % 100000}"
        sql = f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")
        conninfo = f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"
        with psycopg.connect(conninfo, autocommit=True, connect_timeout=60) as conn:
            conn.execute(sql.encode())  # names made here, not input
        return name

    def new_database(self, prefix: str = "t", migrated: bool = False) -> str:
        """Create a fresh database and return its URL: empty, or with `migrated` the schema at the
        head (a copy of the cluster's template, migrated on first use)."""
        if not migrated:
            return self.url(self._create_database(prefix))
        with self._template_lock:
            if self._template is None:
                from inspector.store import open_engine

                template = self._create_database("template")
                open_engine(self.url(template)).dispose()  # Alembic to the head; no connection left
                self._template = template
        return self.url(self._create_database(prefix, template=self._template))

    def destroy(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_cluster() -> PgCluster:
    """The pytest process's PostgreSQL cluster (started on first use, removed at the end)."""
    bin_dir = pg_bin_dir()
    if bin_dir is None:
        pytest.fail(
            "PostgreSQL is not installed: run `make postgresql` (make test does it) or "
            "`apt-get install postgresql` (or set MCP_INSPECTOR_PG_BIN)"
        )
    cluster = PgCluster(bin_dir)
    yield cluster
    cluster.destroy()


@pytest.fixture
def pg_url(pg_cluster: PgCluster) -> str:
    """A fresh, empty PostgreSQL database for this test (an SQLAlchemy URL)."""
    return pg_cluster.new_database()


@pytest.fixture
def pg_store_url(pg_cluster: PgCluster) -> str:
    """A fresh PostgreSQL database for this test with the schema at the head, as a team's store is
    once made (an SQLAlchemy URL): where the migration is not what the test is about."""
    return pg_cluster.new_database(migrated=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """An empty store of each backend in turn: an SQLite file path, then a fresh PostgreSQL
    database's URL (a test taking it runs once per backend)."""
    if request.param == "postgresql":
        return str(request.getfixturevalue("pg_url"))
    return tmp_path / "rec.db"


@pytest.fixture(params=["sqlite", "postgresql"])
def any_made_store(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """`any_store` with its schema made (at the head), as a team's store is once made: an SQLite
    file path, then a PostgreSQL database copied from the cluster's migrated template."""
    if request.param == "postgresql":
        return str(request.getfixturevalue("pg_store_url"))
    from inspector.store import open_engine

    path = tmp_path / "rec.db"
    open_engine(path).dispose()
    return path


def message_indexes(store: Path | str) -> dict[str, list[str]]:
    """The `message` table's indexes in `store` (opened, and so created or upgraded), by name, with
    their columns."""
    from sqlalchemy import inspect

    from inspector.store import open_engine

    engine = open_engine(store)
    try:
        return {str(i["name"]): list(i["column_names"]) for i in inspect(engine).get_indexes("message")}
    finally:
        engine.dispose()


def message_index_names_at(store: Path | str, revision: str) -> set[str]:
    """The names of the `message` table's indexes once `store` is downgraded to Alembic `revision`
    (without opening it again: the next `open_engine` upgrades it back)."""
    from alembic import command
    from sqlalchemy import inspect

    from inspector.store import open_engine
    from inspector.store.upgrade import alembic_config

    engine = open_engine(store)
    try:
        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), revision)
        with engine.connect() as conn:
            return {str(i["name"]) for i in inspect(conn).get_indexes("message")}
    finally:
        engine.dispose()
