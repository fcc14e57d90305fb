"""Regression (issue 13): `mcp-inspect serve` wrote its control file (URL and token) with a plain
`open(O_CREAT|O_TRUNC)` into whatever `MCP_INSPECTOR_RUNTIME` named. Another local user who prepared
that directory full of `serve-<pid>.json` symlinks made a root serve process overwrite a root-owned
file through the link (and could read the token of any file written there). The runtime directory
must be the user's own with mode 0700, else serve refuses to start and writes nothing; files are
created without following links; `$XDG_RUNTIME_DIR` is preferred when set.

The hostile user is real: `setpriv` to `nobody` prepares the directory (the test needs root, as CI
has, and util-linux's setpriv).
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import stat
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cli_in_process import Ran
from tests.http_peers import LineProcess

SETPRIV = shutil.which("setpriv")
TRAP_PIDS = 100  # symlinks for this many pids either side of the serve process's
VICTIM_TEXT = "root's file: must never change\n"
WAIT_S = 60.0

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or SETPRIV is None,
    reason="needs root and util-linux setpriv to act as a second local user (nobody)",
)


def as_nobody(code: str, *args: str) -> None:
    """Run Python `code` as the user nobody (group nogroup, no supplementary groups)."""
    assert SETPRIV is not None
    argv = [SETPRIV, "--reuid=nobody", "--regid=nogroup", "--clear-groups", sys.executable, "-c", code, *args]
    subprocess.run(argv, check=True, env={"PATH": os.environ.get("PATH", "")}, cwd="/")


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim" / "root-owned.conf"
    path.parent.mkdir()
    path.write_text(VICTIM_TEXT)
    path.chmod(0o644)
    return path


@pytest.fixture
def hostile_dir() -> Iterator[Path]:
    """Where nobody will prepare the trap (under /tmp, which every user may write to)."""
    directory = Path("/tmp") / f"mcpi-hostile-{uuid.uuid4().hex[:12]}"
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def prepare_trap(directory: Path, victim: Path, pid: int) -> None:
    """As nobody: make `directory` (0777) with `serve-<pid>.json` links to the victim for the pids
    around `pid` (the serve process's own among them)."""
    code = (
        "import os, sys\n"
        "d, victim = sys.argv[1], sys.argv[2]\n"
        "os.mkdir(d, 0o755)\n"
        "os.chmod(d, 0o777)\n"
        "for pid in sys.argv[3:]:\n"
        "    os.symlink(victim, os.path.join(d, f'serve-{pid}.json'))\n"
    )
    pids = [str(p) for p in range(max(pid - TRAP_PIDS, 2), pid + TRAP_PIDS)]
    as_nobody(code, str(directory), str(victim), *pids)


def _snapshot(root: Path) -> dict[str, tuple[int, int, int, str]]:
    """Every entry under `root` (not following links): inode, mode, mtime, link target."""
    out = {}
    for path in [root, *root.rglob("*")]:
        st = path.lstat()
        target = os.readlink(path) if path.is_symlink() else ""
        out[str(path)] = (st.st_ino, st.st_mode, st.st_mtime_ns, target)
    return out


class ServeProcess(LineProcess):
    """`mcp-inspect serve` with exactly the given environment (nothing MCP_INSPECTOR_* or XDG_* from the
    test process) under umask 022, stdin at EOF, stderr lines collected."""

    def __init__(self, db: Path, env: dict[str, str], *mode: str, gated: bool = False) -> None:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("MCP_INSPECTOR_", "XDG_"))}
        argv = [sys.executable, "-m", "inspector", "serve", "--db", str(db), *mode]
        gate_r, self._gate = os.pipe() if gated else (-1, -1)
        if gated:
            # Wait for `release()`, then exec serve: same pid, so the trap can be laid for it first.
            argv = [sys.executable, "-c", _GATE, str(gate_r), *argv]
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**base, **env},
            preexec_fn=lambda: os.umask(0o022),
            pass_fds=(gate_r,) if gated else (),
        )
        if gated:
            os.close(gate_r)
        self.lines = queue.Queue()
        self.output = []
        threading.Thread(target=self._read, daemon=True).start()

    def release(self) -> None:
        os.write(self._gate, b"go")
        os.close(self._gate)


_GATE = (
    "import os, sys; fd = int(sys.argv[1]); os.read(fd, 2); os.close(fd); os.execv(sys.argv[2], sys.argv[2:])"
)


def _finish(proc: ServeProcess) -> tuple[int, str, int]:
    """Let serve run until it serves (then SIGINT) or exits: its status, output and pid."""
    with contextlib.suppress(AssertionError):  # it exited first (refused): the status says how
        proc.wait_for(r"serving .*(on stdio|at http)", timeout=WAIT_S)
    status = proc.stop(signal.SIGINT, timeout=WAIT_S)
    return status, "".join(proc.output), proc.proc.pid


def _run_serve(run: Callable[..., Ran], db: Path, env: dict[str, str], *mode: str) -> tuple[int, str]:
    """`serve` in-process with the environment ServeProcess gives (nothing MCP_INSPECTOR_* or XDG_*
    but `env`), under umask 022, stdin at EOF: its status and stderr."""
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith(("MCP_INSPECTOR_", "XDG_"))}
    before = os.umask(0o022)
    try:
        done = run("serve", "--db", str(db), *mode, env={**unset, **env}, input="", timeout=WAIT_S)
    finally:
        os.umask(before)
    return done.returncode, done.stderr


@needs_root
@pytest.mark.parametrize("mode", [("--stdio",), ("--http", "127.0.0.1:0")], ids=["stdio", "http"])
def test_serve_refuses_a_directory_another_user_prepared(
    tmp_path: Path, victim: Path, hostile_dir: Path, mode: tuple[str, ...]
) -> None:
    db = tmp_path / "rec.db"
    proc = ServeProcess(db, {"MCP_INSPECTOR_RUNTIME": str(hostile_dir)}, *mode, gated=True)
    prepare_trap(hostile_dir, victim, proc.proc.pid)
    before_dir, before_tmp = _snapshot(hostile_dir), _snapshot(tmp_path)
    proc.release()
    status, output, pid = _finish(proc)
    armed = (hostile_dir / f"serve-{pid}.json").is_symlink()

    assert victim.read_text() == VICTIM_TEXT, "the serve process wrote through the planted symlink"
    assert _snapshot(hostile_dir) == before_dir, "the serve process changed the other user's directory"
    assert _snapshot(tmp_path) == before_tmp, "the serve process wrote files (the database) anyway"
    assert status == 2, output
    assert "refusing the runtime directory" in output and "uid 65534" in output, output
    assert "Traceback" not in output
    assert armed, f"no trap for pid {pid}"


@pytest.mark.parametrize("mode", [("--stdio",), ("--http", "127.0.0.1:0")], ids=["stdio", "http"])
def test_serve_refuses_its_own_directory_open_to_others(
    tmp_path: Path, mode: tuple[str, ...], mcp_inspect: Callable[..., Ran]
) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    runtime.chmod(0o777)
    status, output = _run_serve(
        mcp_inspect, tmp_path / "rec.db", {"MCP_INSPECTOR_RUNTIME": str(runtime)}, *mode
    )
    assert status == 2, output
    assert "refusing the runtime directory" in output and "mode 0777" in output, output
    assert list(runtime.iterdir()) == []
    assert not (tmp_path / "rec.db").exists()


def test_serve_refuses_a_symlink_as_its_directory(tmp_path: Path, mcp_inspect: Callable[..., Ran]) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    status, output = _run_serve(
        mcp_inspect, tmp_path / "rec.db", {"MCP_INSPECTOR_RUNTIME": str(link)}, "--stdio"
    )
    assert status == 2 and "symbolic link" in output, output
    assert list(real.iterdir()) == []


def test_serve_uses_xdg_runtime_dir(tmp_path: Path) -> None:
    """With $XDG_RUNTIME_DIR set (and no MCP_INSPECTOR_RUNTIME) the control file goes there, 0600 in
    folders created 0700; HOME's cache is not used."""
    xdg, home = tmp_path / "xdg", tmp_path / "home"
    xdg.mkdir(mode=0o700)
    home.mkdir()
    env = {"XDG_RUNTIME_DIR": str(xdg), "HOME": str(home)}
    proc = ServeProcess(tmp_path / "rec.db", env, "--http", "127.0.0.1:0")
    try:
        proc.wait_for(r"serving .* at http", timeout=WAIT_S)
        folder = xdg / "mcp-inspector" / "serve"
        announced = folder / f"serve-{proc.proc.pid}.json"
        assert announced.is_file(), list(xdg.rglob("*"))
        assert stat.S_IMODE(announced.stat().st_mode) == 0o600
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert stat.S_IMODE(folder.parent.stat().st_mode) == 0o700
        assert not (home / ".cache").exists()
    finally:
        assert proc.stop(signal.SIGINT, timeout=WAIT_S) in (0, -signal.SIGINT), "".join(proc.output)
    assert list(folder.iterdir()) == []  # removed when it stopped
