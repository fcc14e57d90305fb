"""`mcp-inspect` in-process, for tests where the process boundary is not what they check: the
console script's answer (exit status, stdout, stderr) without a Python process of its own (1-2 s
of imports each). tests/issues has it as the `mcp_inspect` fixture.

`run("sessions", "--db", str(db))` runs `inspector.cli.main` as the console script does (a user
error is one line on stderr and exit status 2, Ctrl-C 130), with stdout and stderr apart. `env`
sets environment variables for the run (None unsets one), `input` is its stdin (a buffered reader,
as a real stdin is: `import -` peeks at it), `cwd` its working directory. A command still running
after `timeout` seconds is stopped as Ctrl-C stops it (SIGINT), so one that should have refused to
start fails its test rather than hanging it.

What a command sets for the whole process is put back when it returns, as if it had been a process
of its own: the redaction rules (`capture/redact._active`), the outbound HTTP settings
(`transports/outbound._active`), the signal handlers `main` installs, `sys.argv`, the environment
and the working directory.

Not for what the process boundary is the point of: the console script's exit code, signals sent to
the process, stdio forwarding (wrap's byte path), start-up.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

__all__ = ["Ran", "run"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2)


@dataclass
class Ran:
    """What an in-process `mcp-inspect` run left: its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def run(
    *args: str,
    env: Mapping[str, str | None] | None = None,
    input: str | bytes | None = None,
    cwd: str | Path | None = None,
    timeout: float = 60,
) -> Ran:
    """`mcp-inspect ARGS...` in this process (see the module's docstring)."""
    from inspector.capture import redact
    from inspector.cli import main
    from inspector.transports import outbound

    main_thread = threading.current_thread() is threading.main_thread()
    handlers = {sig: signal.getsignal(sig) for sig in _SIGNALS} if main_thread else {}
    saved = (redact._active, outbound._active, sys.argv, dict(os.environ), os.getcwd())
    sys.argv = ["mcp-inspect", *args]
    data = input.encode() if isinstance(input, str) else input or b""
    code: int = 0
    deadline = threading.Timer(timeout, signal.raise_signal, (signal.SIGINT,))
    try:
        if cwd is not None:
            os.chdir(cwd)
        with CliRunner().isolation(env=dict(env or {})) as (out, err, _output):
            # As a real stdin, over a buffered reader (the isolation's BytesIO cannot `peek`).
            sys.stdin = io.TextIOWrapper(io.BufferedReader(io.BytesIO(data)), encoding="utf-8")
            deadline.start()
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
            finally:
                deadline.cancel()
                sys.stdout.flush()
                sys.stderr.flush()
            return Ran(code, out.getvalue().decode(errors="replace"), err.getvalue().decode(errors="replace"))
    finally:  # what the run set goes with it, as with a process
        redact._active, outbound._active, sys.argv, environ, where = saved
        for sig, handler in handlers.items():
            if handler is not None:
                signal.signal(sig, handler)
        os.environ.clear()
        os.environ.update(environ)
        os.chdir(where)
