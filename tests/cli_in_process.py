"""The `mcp-inspect` command line run in this process (Typer's CliRunner isolation), as `cli.main`
runs it: a user error (`InspectorError`) is one red line on stderr and exit status 2.

`run_cli(*args, env=...)` returns what `subprocess.run(..., capture_output=True, text=True)` would
(`returncode`, `stdout`, `stderr`), so a test that ran `python -m inspector ...` can run it here at
the cost of the command alone (no interpreter, no imports: ~1-2 s less a command).

The module-wide state a command sets is put back after it, never leaked into the next test: the
process's redaction rules (`capture/redact._active`), its outbound HTTP settings
(`transports/outbound._active`), the signal handlers `cli.main` and the recorders install, the
environment (`env` is given for the command only) and the working directory.

Not for what the process boundary is the point of: the console script's exit code, signals sent
to the process, stdio forwarding (wrap's byte path), start-up.
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

from click.testing import CliRunner

__all__ = ["Ran", "run_cli"]

_SIGNALS = [
    signal.SIGINT,
    signal.SIGTERM,
    *(getattr(signal, n) for n in ("SIGUSR1", "SIGUSR2") if hasattr(signal, n)),
]


@dataclass
class Ran:
    """What a command did: its exit status and what it printed (the bytes, and as text)."""

    returncode: int
    stdout_bytes: bytes
    stderr_bytes: bytes

    @property
    def stdout(self) -> str:
        return self.stdout_bytes.decode(errors="replace")

    @property
    def stderr(self) -> str:
        return self.stderr_bytes.decode(errors="replace")


def run_cli(
    *args: str,
    env: Mapping[str, str | None] | None = None,
    stdin: bytes | None = None,
    cwd: Path | None = None,
) -> Ran:
    """Run `mcp-inspect ARGS` in this process (`env`: environment variables for the command, None
    to unset one; `stdin`: what it reads from its standard input; `cwd`: its working directory)."""
    from inspector.capture import redact
    from inspector.cli import app
    from inspector.command_setup import print_error
    from inspector.errors import InspectorError
    from inspector.transports import outbound

    saved_redaction, saved_outbound = redact._active, outbound._active
    saved_signals = {sig: signal.getsignal(sig) for sig in _SIGNALS}
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    runner = CliRunner()
    code: int = 0
    try:
        if cwd is not None:
            os.chdir(cwd)
        # As a real stdin, a buffered reader (the importer peeks at it to tell the file's kind).
        given = None if stdin is None else io.BufferedReader(io.BytesIO(stdin))
        with runner.isolation(input=given, env={"COLUMNS": "200", **(env or {})}) as (out, err, _mixed):
            try:
                app(args=list(args), prog_name="mcp-inspect")
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except InspectorError as exc:
                print_error(exc)
                code = 2
            except KeyboardInterrupt:
                code = 130
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
            stdout, stderr = out.getvalue(), err.getvalue()
    finally:
        redact._active, outbound._active = saved_redaction, saved_outbound
        for sig, handler in saved_signals.items():
            if handler is not None and threading.current_thread() is threading.main_thread():
                signal.signal(sig, handler)
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
    return Ran(code, stdout, stderr)
