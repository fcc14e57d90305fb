"""Regression (issue 13): the UI listed every `serve-*.json` in the runtime directory with
`read_text()`, following symlinks and trusting files of other users, so another local user could plant
a control file (a URL of their choosing gets the UI's relayed requests) or link to one. The lister now
takes only the user's own regular files (lstat, then the opened descriptor), well-formed JSON, from
a directory that is the user's with mode 0700.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import Api, serve
from tests.issues.test_serve_runtime_dir_hostile_user import WAIT_S, ServeProcess


@pytest.fixture
def runtimes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(the serve process's runtime directory, the UI's), both the user's own, 0700."""
    serve_dir, ui_dir = tmp_path / "serve-runtime", tmp_path / "ui-runtime"
    serve_dir.mkdir(mode=0o700)
    ui_dir.mkdir(mode=0o700)
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(ui_dir))  # read by the in-process UI server
    return serve_dir, ui_dir


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    yield from serve(tmp_path / "rec.db")


@pytest.fixture
def announced(api: Api, runtimes: tuple[Path, Path]) -> Iterator[Path]:
    """A real `mcp-inspect serve --http` on the UI's database; yields its control file."""
    serve_dir, _ = runtimes
    proc = ServeProcess(api.db, {"MCP_INSPECTOR_RUNTIME": str(serve_dir)}, "--http", "127.0.0.1:0")
    try:
        proc.wait_for(r"serving .* at http", timeout=WAIT_S)
        yield serve_dir / f"serve-{proc.proc.pid}.json"
    finally:
        proc.stop(signal.SIGINT, timeout=WAIT_S)


def _processes(api: Api) -> int:
    listed = api.http.get("/api/serve")
    assert listed.status_code == 200, listed.text
    return listed.json()["processes"]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file to another user (nobody)")
def test_the_ui_ignores_links_and_files_of_other_users(
    api: Api, runtimes: tuple[Path, Path], announced: Path
) -> None:
    _, ui_dir = runtimes
    assert announced.is_file()
    (ui_dir / "serve-1.json").symlink_to(announced)
    theirs = ui_dir / "serve-2.json"
    shutil.copyfile(announced, theirs)
    os.chown(theirs, 65534, 65534)  # nobody:nogroup
    (ui_dir / "serve-3.json").write_text("{not json")
    data = json.loads(announced.read_text())
    (ui_dir / "serve-4.json").write_text(json.dumps({**data, "pid": 0}))  # os.kill(0) is "alive"
    (ui_dir / "serve-5.json").write_text(json.dumps({**data, "token": 42}))
    assert _processes(api) == 0

    # The same contents in a regular file of the user's own is listed: the test sees the process.
    shutil.copyfile(announced, ui_dir / "serve-6.json")
    assert _processes(api) == 1

    # And nothing at all from a directory others may write to.
    ui_dir.chmod(0o755)
    assert _processes(api) == 0


def test_the_ui_does_not_hang_on_a_fifo(api: Api, runtimes: tuple[Path, Path]) -> None:
    """Opening a FIFO for reading waits for a writer: the lister must skip it without opening it."""
    _, ui_dir = runtimes
    os.mkfifo(ui_dir / "serve-7.json", 0o600)
    assert _processes(api) == 0
