"""Shared fixtures: temporary databases, the wrap command line, real peers.

Parallel runs. `make test` runs the suite in two pytest-xdist workers (`-n`, `--dist loadfile`
from pyproject). The rules that keep a test parallel-safe, which hold by default:

- a file's tests run in order in one worker, so a module-scoped fixture (a started server, a
  browser) is built once and tests that share one see the order of a serial run;
- each worker has its own temp dirs (`tmp_path`, `tmp_path_factory`) and its own runtime
  directory (`$MCP_INSPECTOR_RUNTIME`, set here for the whole run): `mcp-inspect serve`
  processes of one worker never see the other's control files;
- listeners take a port from the OS (port 0, then read it back), never a fixed one;
- nothing is written into the checkout except screenshots under tests/artifacts/ (one name a test);
- waits are deadlines that poll with a generous ceiling (30-60 s: a loaded machine is slow), never
  a short fixed sleep or timeout; a timeout that a test is about (a fault's own timing) is kept
  short on purpose but the test must not depend on how fast the machine is.

Order (under xdist only). Each worker orders the files longest first, from the per-file seconds
of a past run in tests/file_seconds.txt (files not listed go last, in collection order; refresh
it with `.venv/bin/pytest -n 2 -m "not serial" --file-seconds tests/file_seconds.txt`), and
pyproject turns off xdist's own reordering (by test count, which put one-test files of 30-110 s
at the end): the files that remain when a worker runs dry are then short ones, so the two workers
end close together. The order of the tests inside a file never changes.

Bytecode. Tests start Python processes (`python -m inspector ...`, the demo, peers) by the
thousand. Where $PYTHONDONTWRITEBYTECODE is set (this machine sets it), each of them compiled the
checkout's modules (inspector/, tests/peers) from source again: ~0.1-0.3 s of CPU a process. The
run takes the variable out of its environment (restored at the end), so its processes write and
reuse `__pycache__` as Python does by default (git ignores it; the installed packages' bytecode
was compiled by `uv sync --compile-bytecode`). ($PYTHONPYCACHEPREFIX, tried first, makes Python
ignore that bytecode too and compile the standard library and every package again per run.)
The pytest process itself (read the variable when it started) turns bytecode writing back on too,
at configure time, before it imports a test module: pytest rewrites the asserts of the test modules
and of every package with a pytest plugin entry point (inspector, hypothesis, schemathesis, anyio),
and caches the rewritten modules as bytecode only where Python may write it; without, a single
process (`-n 0`, the serial run) parsed and rewrote them all from source at each collection.

Lanes. `pytest_collection_modifyitems` marks each test with the lanes it belongs to (markers
declared in pyproject.toml), computed from where it is and what it uses, so that `-m` picks a lane
(`make check`: `-m "not browser and not peers and not postgres and not processes and not serial"`,
the unit and in-process tests, in minutes; `make test`: everything):

- `browser`: under tests/e2e/, or uses the Playwright fixtures of tests/e2e/conftest.py (`browser`,
  `page`, `context`): Chromium (`make chromium`) and the built UI (`make web`);
- `postgres`: uses `pg_cluster` or `pg_url` (tests/postgres.py; also through its fixtures, all the
  way down), or has a parameter `"postgresql"` (a backend-parametrized fixture such as `any_store`
  or tests/api's `BACKENDS`): Debian's PostgreSQL server binaries (`make postgresql`);
- `peers`: a real external peer, found in the source text of the test's module, of the tests'
  helpers it imports and of the fixtures it uses (defined under tests/): server-everything
  (`EVERYTHING_BIN`, an `everything_cmd...` fixture), the conformance suite (`tests.conformance`),
  a Node client (a `.mjs` file), a Python SDK client process (`..._sdk_client.py`, or
  `peer_argv("tests.peers..._sdk_client")`), a package of
  `PEERS / "node_modules"` (`make peers`);
- `processes`: starts a process, found in the same source text (`subprocess`, `Popen`,
  `create_subprocess_`, `open_process`, `run_process`, `sys.executable`, the SDK's `stdio_client` /
  `StdioServerParameters`, `ShimProcess`, `LineProcess`, `wrap_argv`, `SCRIPTED`, tests/warm_peers.py's
  `demo_argv`, `inspector_argv`, `warm_wrap_argv`, `peer_argv`), and every
  `browser` and `peers` test. A test that drives a command in-process which itself starts a
  process (CliRunner on `demo`) is not seen: the rule reads the tests' text, not what runs; such a
  module says so itself (`pytestmark = pytest.mark.processes`: the API spawning a peer).

A test that cannot share the machine (it measures time, or needs a resource of which there is
one) takes `@pytest.mark.serial`: `make test` leaves it out of the parallel run and runs it after,
alone, in one process. (Not `xdist_group`: pytest-xdist 3.8's loadgroup does not group under
pytest 9, whose node ids no longer come from `_nodeid`.)
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

# The PostgreSQL fixtures (`pg_cluster`, `pg_url`): a throwaway cluster of the installed server.
pytest_plugins = ["tests.postgres"]

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "tests" / "peers"
SCRIPTED = [sys.executable, str(PEERS / "scripted_server.py")]
EVERYTHING_BIN = PEERS / "node_modules" / ".bin" / "mcp-server-everything"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "rec.db"


def wrap_argv(db: Path, *server: str, extra: tuple[str, ...] = ()) -> list[str]:
    """The command line of `mcp-inspect wrap` around a server command."""
    return [sys.executable, "-m", "inspector", "wrap", "--db", str(db), *extra, "--", *server]


@pytest.fixture
def everything_cmd() -> list[str]:
    if not EVERYTHING_BIN.exists() or shutil.which("node") is None:
        pytest.fail("server-everything is not installed: run `make peers` (make test does it)")
    return [str(EVERYTHING_BIN), "stdio"]


_RUNTIME_ENV = "MCP_INSPECTOR_RUNTIME"
_RUNTIME_KEY = pytest.StashKey[tuple[str, "str | None"]]()
_NO_PYC_ENV = "PYTHONDONTWRITEBYTECODE"
_NO_PYC_KEY = pytest.StashKey["str | None"]()
_DONT_WRITE_KEY = pytest.StashKey[bool]()
FILE_SECONDS = Path(__file__).with_name("file_seconds.txt")


def pytest_configure(config: pytest.Config) -> None:
    """A runtime directory of this pytest process's own (one per xdist worker), 0700, for the
    control files of the `mcp-inspect serve` and `wrap --intercept` processes the tests start.
    Tests that need their own still set `$MCP_INSPECTOR_RUNTIME` themselves (see tests/api's
    `runtime` fixture)."""
    directory = tempfile.mkdtemp(prefix="mcp-inspector-runtime-")  # mode 0700
    config.stash[_RUNTIME_KEY] = (directory, os.environ.get(_RUNTIME_ENV))
    os.environ[_RUNTIME_ENV] = directory
    # The developer's own config file (retention, per-server rules, `db`) must not change what the
    # tests see: every process they start looks for one that does not exist, unless a test says.
    os.environ["MCP_INSPECTOR_CONFIG"] = os.path.join(directory, "no-config.toml")
    # The processes the tests start keep their bytecode, and so does this one (see the module's docstring).
    config.stash[_NO_PYC_KEY] = os.environ.pop(_NO_PYC_ENV, None)
    config.stash[_DONT_WRITE_KEY] = sys.dont_write_bytecode
    sys.dont_write_bytecode = False


def pytest_collection_finish(session: pytest.Session) -> None:
    """The warm server of tests/warm_peers.py, started and ready before the first test when a collected
    module imports it (its imports are counted in no test's time limit)."""
    warm = sys.modules.get("tests.warm_peers")
    if warm is not None and session.items:
        warm.start()
        warm.wait_until_ready()


def pytest_unconfigure(config: pytest.Config) -> None:
    saved = config.stash.get(_RUNTIME_KEY, None)
    if saved is None:
        return
    directory, before = saved
    if before is None:
        os.environ.pop(_RUNTIME_ENV, None)
    else:
        os.environ[_RUNTIME_ENV] = before
    shutil.rmtree(directory, ignore_errors=True)
    no_pyc = config.stash.get(_NO_PYC_KEY, None)
    if no_pyc is not None:
        os.environ[_NO_PYC_ENV] = no_pyc
    sys.dont_write_bytecode = config.stash.get(_DONT_WRITE_KEY, sys.dont_write_bytecode)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--file-seconds",
        metavar="PATH",
        help="write each test file's seconds (its tests' setup, call and teardown) to PATH, longest first",
    )


_SPENT: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if type(report).__name__ == "SubtestReport" or hasattr(report, "context"):
        return  # its time is inside its test's own call (test_fuzz_openapi's operations), counted there
    path = report.nodeid.split("::", 1)[0]
    _SPENT[path] = _SPENT.get(path, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = session.config.getoption("--file-seconds")
    if target and not hasattr(session.config, "workerinput"):
        lines = [f"{seconds:7.1f} {path}" for path, seconds in sorted(_SPENT.items(), key=lambda kv: -kv[1])]
        header = "# seconds per test file in one run (--file-seconds); tests/conftest.py orders by it\n"
        Path(target).write_text(header + "\n".join(lines) + "\n")


def _file_seconds() -> dict[str, float]:
    """`seconds path` per line (tests/file_seconds.txt); `#` starts a comment."""
    seconds: dict[str, float] = {}
    if not FILE_SECONDS.exists():
        return seconds
    for line in FILE_SECONDS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            value, path = line.split(None, 1)
            seconds[path] = float(value)
    return seconds


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The lanes' markers (see the module's docstring); under xdist, the files longest first (see
    the module's docstring): a file's tests keep their order. Every worker collects the same items
    and orders them the same way."""
    for item in items:
        for name in lanes(item):
            item.add_marker(name)
    if not hasattr(config, "workerinput"):
        return
    seconds = _file_seconds()
    first_seen: dict[str, int] = {}
    for item in items:
        first_seen.setdefault(item.nodeid.split("::", 1)[0], len(first_seen))

    def rank(item: pytest.Item) -> tuple[int, float, int]:
        path = item.nodeid.split("::", 1)[0]
        known = path in seconds
        return (0 if known else 1, -seconds.get(path, 0.0), first_seen[path])

    items.sort(key=rank)  # stable: a file's tests stay in their order


# The lanes (markers added by `lanes`, declared in pyproject.toml; see the module's docstring).
_PEER_SOURCE = re.compile(
    r"\bEVERYTHING_BIN\b|\beverything_cmd|tests\.conformance|\.mjs\b|_sdk_client\b|PEERS / \"node_modules\""
)
_PROCESS_SOURCE = re.compile(
    r"\bsubprocess\b|\bPopen\b|create_subprocess_|\bopen_process\b|\brun_process\b|sys\.executable"
    r"|\bstdio_client\b|StdioServerParameters|\bShimProcess\b|\bLineProcess\b|\bwrap_argv\b|\bSCRIPTED\b"
    r"|\bdemo_argv\b|\binspector_argv\b|\bwarm_wrap_argv\b|\bpeer_argv\b"  # tests/warm_peers.py: forked warm
)
_PG_FIXTURES = {"pg_cluster", "pg_url"}
_BROWSER_FIXTURES = {"browser", "page", "context"}  # tests/e2e/conftest.py's Playwright fixtures
_TESTS = ROOT / "tests"
_E2E = _TESTS / "e2e"
_FLAGS: dict[object, tuple[bool, bool]] = {}
_FILES: dict[object, Path | None] = {}


def _flags(obj: object) -> tuple[bool, bool]:
    """Whether `obj`'s source names a peer, and a way to start a process (once per object)."""
    if obj not in _FLAGS:
        try:
            text = inspect.getsource(obj)  # type: ignore[arg-type]
        except (OSError, TypeError):
            text = ""
        _FLAGS[obj] = (bool(_PEER_SOURCE.search(text)), bool(_PROCESS_SOURCE.search(text)))
    return _FLAGS[obj]


def _file(obj: object) -> Path | None:
    if obj not in _FILES:
        try:
            _FILES[obj] = Path(inspect.getfile(obj)).resolve()  # type: ignore[arg-type]
        except TypeError:
            _FILES[obj] = None
    return _FILES[obj]


@functools.cache
def _helpers(module: ModuleType) -> list[object]:
    """A test module and the tests' helpers it imports (functions, classes and modules of the
    `tests` package; not what they import in turn)."""
    found: list[object] = [module]
    for value in vars(module).values():
        owner = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
        helper = isinstance(value, ModuleType) or inspect.isfunction(value) or inspect.isclass(value)
        if helper and isinstance(owner, str) and owner.startswith("tests.") and owner != module.__name__:
            found.append(value)
    return found


def lanes(item: pytest.Item) -> set[str]:
    """The lane markers of a test, from its path, the fixtures it uses (all the way down: its
    fixtures' fixtures, those defined under tests/), its parameters and the source text of its
    module, of the test helpers that module imports and of its fixtures' functions."""
    found: set[str] = set()
    fixtures = [
        (name, d.func)
        for name, definitions in item._fixtureinfo.name2fixturedefs.items()  # type: ignore[attr-defined]
        for d in definitions
        if (where := _file(d.func)) is not None and where.is_relative_to(_TESTS)
    ]
    browser = any(n in _BROWSER_FIXTURES and _file(f).is_relative_to(_E2E) for n, f in fixtures)  # type: ignore[union-attr]
    if browser or Path(str(item.path)).resolve().is_relative_to(_E2E):
        found.add("browser")
    callspec = getattr(item, "callspec", None)
    params = callspec.params.values() if callspec is not None else ()
    if any(n in _PG_FIXTURES for n, _ in fixtures) or any(
        v in ("postgresql", "postgres") for v in params if isinstance(v, str)
    ):
        found.add("postgres")
    module = getattr(item, "module", None)
    sources = [*(_helpers(module) if module is not None else ()), *(f for _, f in fixtures)]
    flags = [_flags(obj) for obj in sources]
    if any(peer for peer, _ in flags):
        found.add("peers")
    if found & {"browser", "peers"} or any(process for _, process in flags):
        found.add("processes")
    return found
