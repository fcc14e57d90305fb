"""Fixtures for the API tests: recorded databases and a real UI server on 127.0.0.1 (real HTTP).

The databases come in both backends (`store_backend`: an SQLite file, and a fresh database in the
pytest process's throwaway PostgreSQL cluster, tests/postgres.py), so every test using them runs
on each: the same API answers for the same recordings. A database is then a path or a URL.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from inspector.api import UiServer
from inspector.store import open_engine
from tests.api.recordings import generate_session, http_session, record_demo

BACKENDS = ["sqlite", "postgresql"]


def new_store(request: pytest.FixtureRequest, backend: str, path: Path) -> Any:
    """An empty store of `backend`: the SQLite file `path`, or a new PostgreSQL database's URL."""
    if backend == "postgresql":
        url = request.getfixturevalue("pg_cluster").new_database()
        # Its schema made now, as `make`-ing a team's store would: a shim that is the first to open a
        # new database migrates it (Alembic's imports included) before recording, which under a loaded
        # test run can outlast the SDK client's patience when it closes the shim.
        open_engine(url).dispose()
        return url
    return path


@pytest.fixture(scope="session", params=BACKENDS)
def store_backend(request: pytest.FixtureRequest) -> str:
    """Which store the API fixtures' databases live in."""
    return str(request.param)


@pytest.fixture(scope="session")
def read_only_dbs() -> dict[tuple[str, str], Any]:
    """`demo_db` and `mixed_db` by (name, backend), each made once a pytest process.

    `store_backend` is a session fixture with params: pytest tears it down, with the fixtures that
    depend on it, whenever the next test has the other backend. A serial run groups a whole run's
    tests by backend, so that happened once; under xdist a worker runs file by file, each file its
    sqlite tests then its postgresql ones, which recorded both databases again for every file. They
    are read-only for tests, so the second time is the first one's database."""
    return {}


@pytest.fixture(scope="session")
def demo_db(
    request: pytest.FixtureRequest,
    store_backend: str,
    tmp_path_factory: pytest.TempPathFactory,
    read_only_dbs: dict[tuple[str, str], Any],
) -> Any:
    """A database with the demo session recorded through the real shim (read-only for tests)."""
    if ("demo", store_backend) not in read_only_dbs:
        db = new_store(request, store_backend, tmp_path_factory.mktemp("demo") / "demo.db")
        record_demo(db)
        read_only_dbs["demo", store_backend] = db
    return read_only_dbs["demo", store_backend]


@pytest.fixture(scope="session")
def mixed_db(
    request: pytest.FixtureRequest,
    store_backend: str,
    tmp_path_factory: pytest.TempPathFactory,
    read_only_dbs: dict[tuple[str, str], Any],
) -> Any:
    """A database with a generated 2,000-message session (id 1) and a hand-made HTTP session (id 2)
    (read-only for tests)."""
    if ("mixed", store_backend) not in read_only_dbs:
        db = new_store(request, store_backend, tmp_path_factory.mktemp("mixed") / "mixed.db")
        generate_session(db, 2000, name="two thousand")
        http_session(db)
        read_only_dbs["mixed", store_backend] = db
    return read_only_dbs["mixed", store_backend]


class Api:
    """A running UI server and an authorised httpx client for it."""

    def __init__(self, server: UiServer, db: Path) -> None:
        self.server = server
        self.db = db
        self.token = server.token
        self.http = httpx.Client(
            base_url=server.base_url, headers={"authorization": f"Bearer {server.token}"}, timeout=30
        )

    def get(self, path: str, **params: object) -> httpx.Response:
        return self.http.get(path, params=params)  # type: ignore[arg-type]

    def json(self, path: str, **params: object) -> object:
        response = self.get(path, **params)
        assert response.status_code == 200, response.text
        return response.json()


def serve(db: Path) -> Iterator[Api]:
    server = UiServer(open_engine(db), port=0, live_interval=0.05).start()
    api = Api(server, db)
    try:
        yield api
    finally:
        api.http.close()
        server.stop()


@pytest.fixture(scope="module")
def demo_api(demo_db: Path) -> Iterator[Api]:
    yield from serve(demo_db)


@pytest.fixture(scope="module")
def mixed_api(mixed_db: Path) -> Iterator[Api]:
    yield from serve(mixed_db)


@pytest.fixture
def blank_store(request: pytest.FixtureRequest, store_backend: str, tmp_path: Path) -> Any:
    """An empty database of this test's own (a path or a URL), for tests that fill it first."""
    return new_store(request, store_backend, tmp_path / "blank.db")


@pytest.fixture
def fresh_api(request: pytest.FixtureRequest, store_backend: str, tmp_path: Path) -> Iterator[Api]:
    """A server on an empty database of this test's own."""
    yield from serve(new_store(request, store_backend, tmp_path / "fresh.db"))


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory of this test's own for the control files of `mcp-inspect serve` processes."""
    directory = tmp_path / "runtime"
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(directory))
    return directory


async def call_api(api: Api, method: str, path: str, body: Any = None) -> httpx.Response:
    """One API call from async test code (the blocking client on a worker thread)."""
    return await anyio.to_thread.run_sync(lambda: api.http.request(method, path, json=body))
