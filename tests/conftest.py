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

A test that cannot share the machine (it measures time, or needs a resource of which there is
one) takes `@pytest.mark.serial`: `make test` leaves it out of the parallel run and runs it after,
alone, in one process. (Not `xdist_group`: pytest-xdist 3.8's loadgroup does not group under
pytest 9, whose node ids no longer come from `_nodeid`.)
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

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
