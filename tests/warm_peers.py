"""Our Python peers without Python's start-up each time: `demo_argv(*args)` is a command line that
behaves as `python -m inspector.demo ARGS...`, `inspector_argv(*args)` as `python -m inspector ARGS...`
(`mcp-inspect`): each its own process, on the caller's stdin, stdout and stderr, with its exit status
and the signals sent to it, forked from a warm server of this pytest process
(tests/peers/forkserver.py) that imported the libraries our code uses once. Our own modules are
imported by each run afresh, as in a new process (but the demo's, see WARM_OWN). A demo start then costs ~0.1 s of CPU instead of
~2.4 s; an `mcp-inspect` one its own modules' imports rather than 1-2 s.

The warm server starts when the tests are collected, if a collected module imports this one
(tests/conftest.py calls `start` then `wait_until_ready`, so no test's time limit counts its imports),
or else at the first call; it leaves with this process. What differs from a plain process: the pid the caller
sees is the launcher's, not the run's (a control file named for the run's pid is not the caller's
pid), and the run is not in the caller's process group. Where the start-up, the console script or the
pid is what a test checks, use `[sys.executable, "-m", ...]`.
"""

from __future__ import annotations

import atexit
import os
import select
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

__all__ = ["demo_argv", "inspector_argv", "peer_argv", "warm_wrap_argv"]

FORKSERVER = Path(__file__).resolve().parent / "peers" / "forkserver.py"

# Our own modules the server imports too: the demo's (nothing read from the environment, no state).
WARM_OWN = ("inspector.demo.server",)

_lock = threading.Lock()
_server: tuple[subprocess.Popen[bytes], str] | None = None


def _socket() -> str:
    global _server
    with _lock:
        if _server is None or _server[0].poll() is not None:
            directory = tempfile.mkdtemp(prefix="mcp-warm-")
            path = os.path.join(directory, "warm.sock")
            proc = subprocess.Popen(
                [sys.executable, str(FORKSERVER), path, "inspector", *WARM_OWN],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None,
            )
            # Bound before the imports: wait for the socket only (a connect then queues).
            while not os.path.exists(path) and proc.poll() is None:
                threading.Event().wait(0.01)
            _server = (proc, path)
            atexit.register(_stop, proc)
        return _server[1]


def start() -> None:
    """Start the warm server now, in the background (it imports while the caller goes on)."""
    _socket()


def wait_until_ready(timeout: float = 600) -> None:
    """Wait for the warm server to have imported what it keeps, if one was started (tests/conftest.py
    calls it once the tests are collected, before the first runs: outside any test's time limit)."""
    with _lock:
        server = _server
    if server is None:
        return
    proc, _path = server
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else b""
    if line.strip() != b"ready":
        raise RuntimeError(
            f"the warm server of tests/warm_peers.py did not start (exit status {proc.poll()})"
        )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.stdin is not None:
        proc.stdin.close()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()


def _argv(module: str, args: tuple[str, ...], warm: bool) -> list[str]:
    if not warm:
        return [sys.executable, "-m", module, *args]
    return [sys.executable, "-I", "-S", str(FORKSERVER), "--run", _socket(), module, *args]


def demo_argv(*args: str, warm: bool = True) -> list[str]:
    """`python -m inspector.demo ARGS...`, forked from the warm server (see the module's docstring);
    `warm=False`: a plain process of its own (where its pid is what a test checks)."""
    return _argv("inspector.demo", args, warm)


def inspector_argv(*args: str, warm: bool = True) -> list[str]:
    """`python -m inspector ARGS...`, forked from the warm server (see the module's docstring);
    `warm=False`: a plain process of its own (where its pid is what a test checks)."""
    return _argv("inspector", args, warm)


def peer_argv(module: str, *args: str, warm: bool = True) -> list[str]:
    """`python -m MODULE ARGS...` for a Python peer of the tests (a script of tests/peers as
    `tests.peers.NAME`: the editable install puts the checkout on the path), forked from the warm
    server; `warm=False`: a plain process of its own."""
    return _argv(module, args, warm)


def warm_wrap_argv(db: Path | str, *server: str, extra: tuple[str, ...] = ()) -> list[str]:
    """`mcp-inspect wrap --db DB EXTRA... -- SERVER...` (as tests/conftest.py's `wrap_argv`), forked
    from the warm server."""
    return inspector_argv("wrap", "--db", str(db), *extra, "--", *server)
