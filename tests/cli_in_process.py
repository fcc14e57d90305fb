"""`mcp-inspect` in-process, for tests where the process boundary is not what they check: the
console script's answer (exit status, stdout, stderr) without a Python process of its own (1-2 s
of imports each). tests/issues has it as the `mcp_inspect` fixture.

`run("sessions", "--db", str(db))` runs `inspector.cli.main` as the console script does (a user
error is one line on stderr and exit status 2), with stdout and stderr apart; `env` adds
environment variables for the run, `input` is its stdin. A command still running after `timeout`
seconds is stopped as Ctrl-C stops it (SIGINT), so one that should have refused to start fails its
test rather than hanging it. The process-wide state a command sets (redaction rules, outbound HTTP
settings, signal handlers, `sys.argv`) is put back when it returns, as if it had been a process of
its own.
"""

from __future__ import annotations

import signal
import sys
import threading
from dataclasses import dataclass

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
    *args: str, env: dict[str, str] | None = None, input: str | bytes | None = None, timeout: float = 60
) -> Ran:
    """`mcp-inspect ARGS...` in this process (see the module's docstring)."""
    from inspector.capture import redact
    from inspector.cli import main
    from inspector.transports import outbound

    saved = (redact._active, outbound._active, sys.argv, {sig: signal.getsignal(sig) for sig in _SIGNALS})
    sys.argv = ["mcp-inspect", *args]
    code: int = 0
    deadline = threading.Timer(timeout, signal.raise_signal, (signal.SIGINT,))
    try:
        with CliRunner().isolation(input=input, env=env) as (out, err, _output):
            deadline.start()
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
            finally:
                deadline.cancel()
                sys.stdout.flush()
                sys.stderr.flush()
            return Ran(code, out.getvalue().decode(), err.getvalue().decode())
    finally:  # what the run set goes with it, as with a process
        redact._active, outbound._active, sys.argv, handlers = saved
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
