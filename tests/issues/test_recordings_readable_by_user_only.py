"""Regression (issue 13): recordings hold whole conversations, tokens included, yet the database
and its `-wal`/`-shm` files were created 0644 and the `recordings/` folder 0755 under the usual umask
(SQLite's default file mode, `mkdir`'s default), readable by every local user. Now the folders the
inspector creates (and the default `./recordings`) are 0700 and the database files 0600 whatever the
umask; an existing database of the user's that others can read is tightened, and stderr says so once.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import mcp
import pytest

from tests.cli_in_process import Ran
from tests.warm_peers import demo_argv

WAIT_S = 60.0
UMASK_022 = ["sh", "-c", 'umask 022 && exec "$@"', "sh"]  # the usual umask, whatever the test runner has


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _env() -> dict[str, str]:
    # The default database only: no MCP_INSPECTOR_DB from the environment the tests run in.
    return {k: v for k, v in os.environ.items() if k != "MCP_INSPECTOR_DB"}


def _modes_when_all_exist(paths: list[Path]) -> dict[str, str]:
    """The files' modes, read in one pass in which every one of them exists. SQLite removes the -wal and
    -shm when a database's last connection closes, which a starting wrap's first, short connection
    does before its writer opens: a file seen a moment ago may be gone again (ci23)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            return {p.name: oct(_mode(p)) for p in paths}
        except FileNotFoundError:
            missing = [str(p) for p in paths if not p.exists()]
            assert time.monotonic() < deadline, f"never all there at once: {missing}"
            time.sleep(0.05)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("db_args", "db_rel", "created"),
    [
        (["--db", "sub/deeper/x.db"], "sub/deeper/x.db", ["sub", "sub/deeper"]),
        ([], "recordings/inspector.db", ["recordings"]),
    ],
    ids=["--db in new folders", "default recordings/"],
)
async def test_wrap_creates_the_database_0600_and_its_folders_0700(
    tmp_path: Path, db_args: list[str], db_rel: str, created: list[str]
) -> None:
    """A real `mcp-inspect wrap` around the demo server, driven by the SDK client, under umask 022:
    while the session is live, the database, its -wal and -shm are 0600 and the new folders 0700."""
    python = sys.executable
    # The demo forked from the warm server (tests/warm_peers.py); the wrap a plain process under the umask.
    argv = [*UMASK_022, python, "-m", "inspector", "wrap", *db_args, "--", *demo_argv()]
    params = mcp.StdioServerParameters(command=argv[0], args=argv[1:], env=_env(), cwd=str(tmp_path))
    db = tmp_path / db_rel
    files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
    with anyio.fail_after(WAIT_S):
        async with mcp.Client(params, mode="legacy") as client:
            await client.call_tool("echo", {"text": "secret-ish"})
            modes = await anyio.to_thread.run_sync(_modes_when_all_exist, files)
            folders = {name: oct(_mode(tmp_path / name)) for name in created}
    assert modes == {p.name: "0o600" for p in files}
    assert folders == dict.fromkeys(created, "0o700")


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual umask, whatever the test runner has (as UMASK_022 gives a process)."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def test_an_existing_database_open_to_others_is_tightened_and_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mcp_inspect: Callable[..., Ran], umask_022: None
) -> None:
    """`recordings/` from a checkout (0755) and a database from an older version (0644): the next
    command makes them 0700/0600 and says so on stderr; the one after says nothing."""
    folder = tmp_path / "recordings"
    folder.mkdir()
    folder.chmod(0o755)
    db = folder / "inspector.db"
    db.touch()
    db.chmod(0o644)

    monkeypatch.chdir(tmp_path)  # the default database: ./recordings/inspector.db
    monkeypatch.delenv("MCP_INSPECTOR_DB", raising=False)
    first = mcp_inspect("sessions")
    assert first.returncode == 0, first.stderr
    assert _mode(db) == 0o600 and _mode(folder) == 0o700
    assert "inspector.db was open to other users (mode 0644): made it 0600" in first.stderr
    assert "recordings was open to other users (mode 0755): made it 0700" in first.stderr

    second = mcp_inspect("sessions")
    assert second.returncode == 0, second.stderr
    assert "open to other users" not in second.stderr


# A database of another user is refused now (issue 33): tests/issues/test_a_database_open_to_another_user_is_refused.py
