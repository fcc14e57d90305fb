"""The demo server as a test's peer without Python's start-up each time: `demo_argv(*args)` is a command
line that behaves as `python -m inspector.demo ARGS...` (its own process, on the caller's stdin,
stdout and stderr, its exit status and signals), forked from a warm server of this pytest process
that imported the demo's modules once (tests/peers/forkserver.py). A start then costs ~0.05 s of CPU
instead of ~2.4 s.

The warm server starts at the first call (in the background: a run that comes before it is ready
waits for it) and leaves with this process. Where the demo's own start-up is what a test checks, use
`[sys.executable, "-m", "inspector.demo"]`.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

__all__ = ["demo_argv"]

FORKSERVER = Path(__file__).resolve().parent / "peers" / "forkserver.py"
# The demo's own imports, and what its HTTP transports import when they start.
PRELOAD = (
    "inspector.demo.server",
    "mcp.shared.exceptions",
    "uvicorn",
    "mcp.server.streamable_http",
    "mcp.server.sse",
)

_lock = threading.Lock()
_server: tuple[subprocess.Popen[bytes], str] | None = None


def _socket() -> str:
    global _server
    with _lock:
        if _server is None or _server[0].poll() is not None:
            directory = tempfile.mkdtemp(prefix="mcp-warm-")
            path = os.path.join(directory, "demo.sock")
            proc = subprocess.Popen(
                [sys.executable, str(FORKSERVER), path, ",".join(PRELOAD)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=None,
            )
            # Bound before the imports: wait for the socket only (a connect then queues).
            while not os.path.exists(path) and proc.poll() is None:
                threading.Event().wait(0.01)
            _server = (proc, path)
            atexit.register(_stop, proc)
        return _server[1]


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.stdin is not None:
        proc.stdin.close()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()


def demo_argv(*args: str) -> list[str]:
    """`python -m inspector.demo ARGS...`, forked from the warm server (see the module's docstring)."""
    return [sys.executable, "-I", "-S", str(FORKSERVER), "--run", _socket(), "inspector.demo", *args]
