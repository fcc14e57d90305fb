"""Fixtures for the API tests: recorded databases and the API on them, in-process by default.

The API in-process (`in_process`): the ASGI app of `create_app` (the one `UiServer` serves, its
listener guard and token included) run by Starlette's `TestClient` (httpx over the app, on one
anyio portal thread, its lifespan run: the live feed's poller, the mock clients, the serve
processes), so a test pays no socket, no uvicorn and no thread per request. `Api.http` is a
blocking httpx client either way; `Api.bare()` one without the token (the guard tests);
`Api.live()` the `/api/live` websocket (over the portal in-process, a real socket on a server).
`serve` keeps the real `UiServer` on 127.0.0.1 for what needs the socket (the live feed against
other processes, a listener's bind): tests elsewhere import it.

Databases are SQLite by default. `store_backend` is `sqlite` unless a test or module asks for
both (`BOTH_BACKENDS`: `pytest.mark.parametrize("store_backend", BACKENDS, indirect=True)`),
which the tests whose point is the store do (queries, pages, search, the live tail on
PostgreSQL's NOTIFY, concurrency); a database is then a path or a URL of a fresh database in
the pytest process's throwaway PostgreSQL cluster (tests/postgres.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from starlette.testclient import TestClient

from inspector.api import UiServer
from inspector.api.app import create_app
from inspector.api.security import new_token
from inspector.guard import allowed_hosts
from inspector.store import open_engine
from tests.api.recordings import generate_session, http_session
from tests.sessions import load

BACKENDS = ["sqlite", "postgresql"]
# On a test or a module (`pytestmark`): run it on each backend.
BOTH_BACKENDS = pytest.mark.parametrize("store_backend", BACKENDS, indirect=True)
# The port an in-process API says it listens on (nothing is bound: the guard checks Host against it).
IN_PROCESS_PORT = 47813


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


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> None:
    """Schemathesis's pytest plugin for the module that uses it (test_fuzz_openapi.py), registered
    as pytest collects that module: pyproject's `-p no:schemathesis` keeps it (and the Hypothesis and
    schemathesis imports it makes, ~1 s of CPU) out of every other pytest process."""
    if file_path.name == "test_fuzz_openapi.py":
        from schemathesis.pytest import plugin

        if not parent.config.pluginmanager.is_registered(plugin):
            parent.config.pluginmanager.register(plugin, "schemathesis-where-used")


@pytest.fixture(scope="session")
def store_backend(request: pytest.FixtureRequest) -> str:
    """Which store the API fixtures' databases live in: SQLite, unless parametrized (`BOTH_BACKENDS`)."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture(scope="session")
def read_only_dbs() -> dict[tuple[str, str], Any]:
    """`demo_db` and `mixed_db` by (name, backend), each made once a pytest process.

    `store_backend` is a session fixture that may be parametrized: pytest tears it down, with the
    fixtures that depend on it, whenever the next test has the other backend (under xdist, file by
    file). They are read-only for tests, so the second time is the first one's database."""
    return {}


@pytest.fixture(scope="session")
def demo_db(
    request: pytest.FixtureRequest,
    store_backend: str,
    tmp_path_factory: pytest.TempPathFactory,
    read_only_dbs: dict[tuple[str, str], Any],
) -> Any:
    """A database with the demo session (recorded through the real shim, checked in as
    tests/data/sessions/demo.jsonl, imported: `tests.sessions.load`), read-only for tests."""
    if ("demo", store_backend) not in read_only_dbs:
        db = new_store(request, store_backend, tmp_path_factory.mktemp("demo") / "demo.db")
        load(db, "demo", name="demo")
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


@dataclass(frozen=True)
class InProcess:
    """What an in-process API says of its listener (nothing is bound): `server` of its `Api`."""

    base_url: str
    port: int
    token: str

    def url(self, path: str = "/") -> str:
        return f"{self.base_url}{path}#token={self.token}"


class _Shared(httpx2.BaseTransport):
    """Another client's transport, left open when this client closes (Starlette's TestClient is an
    httpx2 client, httpx's successor: the same API)."""

    def __init__(self, transport: httpx2.BaseTransport) -> None:
        self.transport = transport

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        return self.transport.handle_request(request)


class LiveSocket:
    """The `/api/live` websocket of an in-process API, as tests use a `websockets` connection:
    `send(text)`, `recv(timeout=...)` (TimeoutError when nothing came in time), `close()`."""

    def __init__(self, client: TestClient, url: str) -> None:
        self._cm = client.websocket_connect(url)
        self._session = self._cm.__enter__()

    def send(self, text: str) -> None:
        self._session.send_text(text)

    def recv(self, timeout: float | None = None) -> str:
        async def within() -> Any:
            with anyio.fail_after(timeout):
                return await self._session._send_rx.receive()

        message = self._session.portal.call(within)
        if message["type"] == "websocket.close":
            raise ConnectionError(f"the live feed closed: {message.get('code')} {message.get('reason', '')}")
        return str(message.get("text") or message.get("bytes", b"").decode())

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._cm.__exit__(None, None, None)

    def __enter__(self) -> LiveSocket:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class Api:
    """An authorised blocking httpx client (`http`) of the API on the store `db`: in-process
    (`in_process`, `server` an `InProcess`) or over a real `UiServer` (`serve`, `server` it)."""

    def __init__(self, server: UiServer | InProcess, db: Any, http: Any = None) -> None:
        self.server = server
        self.db = db
        self.token = server.token
        self.base_url = server.base_url
        self.port = server.port
        auth = {"authorization": f"Bearer {server.token}"}
        self.http = http or httpx.Client(base_url=server.base_url, headers=auth, timeout=30)

    def get(self, path: str, **params: object) -> httpx.Response:
        return self.http.get(path, params=params)  # type: ignore[arg-type]

    def json(self, path: str, **params: object) -> object:
        response = self.get(path, **params)
        assert response.status_code == 200, response.text
        return response.json()

    def bare(self) -> Any:
        """A client of the same API without the token (close it)."""
        if isinstance(self.http, TestClient):
            return httpx2.Client(base_url=self.base_url, transport=_Shared(self.http._transport))
        return httpx.Client(base_url=self.base_url, timeout=30)

    def live(self, token: str | None = None) -> Any:
        """The live feed's websocket (with this API's token unless `token` is given); close it."""
        url = (
            self.base_url.replace("http://", "ws://")
            + f"/api/live?token={self.token if token is None else token}"
        )
        if isinstance(self.http, TestClient):
            return LiveSocket(self.http, url)
        from websockets.sync.client import connect

        return connect(url, open_timeout=10)


def serve(db: Any) -> Iterator[Api]:
    """A real `UiServer` on 127.0.0.1 (port 0) on `db`, and its client."""
    server = UiServer(open_engine(db), port=0, live_interval=0.05).start()
    api = Api(server, db)
    try:
        yield api
    finally:
        api.http.close()
        server.stop()


def in_process(db: Any) -> Iterator[Api]:
    """The API on `db` in this process: the app `UiServer` would serve (guard, token, lifespan),
    driven by Starlette's TestClient on one portal thread; no socket."""
    token = new_token()
    base_url = f"http://127.0.0.1:{IN_PROCESS_PORT}"
    engine = open_engine(db)
    app = create_app(
        engine, token=token, hosts=allowed_hosts("127.0.0.1", IN_PROCESS_PORT), live_interval=0.05
    )
    client = TestClient(
        app,
        base_url=base_url,
        raise_server_exceptions=False,  # a 500, as a real server answers
        headers={"authorization": f"Bearer {token}"},
        follow_redirects=False,
        client=("127.0.0.1", 50000),
    )
    with client:
        yield Api(InProcess(base_url, IN_PROCESS_PORT, token), db, client)
    engine.dispose()


@pytest.fixture(scope="module")
def demo_api(demo_db: Any) -> Iterator[Api]:
    yield from in_process(demo_db)


@pytest.fixture(scope="module")
def mixed_api(mixed_db: Any) -> Iterator[Api]:
    yield from in_process(mixed_db)


@pytest.fixture
def blank_store(request: pytest.FixtureRequest, store_backend: str, tmp_path: Path) -> Any:
    """An empty database of this test's own (a path or a URL), for tests that fill it first."""
    return new_store(request, store_backend, tmp_path / "blank.db")


@pytest.fixture
def fresh_api(request: pytest.FixtureRequest, store_backend: str, tmp_path: Path) -> Iterator[Api]:
    """The API on an empty database of this test's own."""
    yield from in_process(new_store(request, store_backend, tmp_path / "fresh.db"))


@pytest.fixture
def served_api(request: pytest.FixtureRequest, store_backend: str, tmp_path: Path) -> Iterator[Api]:
    """A real `UiServer` on an empty database of this test's own (the socket is the point)."""
    yield from serve(new_store(request, store_backend, tmp_path / "served.db"))


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory of this test's own for the control files of `mcp-inspect serve` processes."""
    directory = tmp_path / "runtime"
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(directory))
    return directory


async def call_api(api: Api, method: str, path: str, body: Any = None) -> httpx.Response:
    """One API call from async test code (the blocking client on a worker thread)."""
    return await anyio.to_thread.run_sync(lambda: api.http.request(method, path, json=body))
