"""`mcp-inspect` in-process: the console script's answer (stdout, stderr, exit status) without a
Python process of its own, for tests where the process boundary is not what they check.

`run("sessions", "--db", str(db))` runs the Typer app under Click's `CliRunner` the way
`inspector.cli.main` does: a user error (`InspectorError`) is one red line on stderr and exit
status 2, Ctrl-C exit status 130. What a command sets for the whole process is put back after it:
the redaction rules (`capture.redact._active`, set by `command_setup.redaction`) and the outbound
HTTP settings (`transports.outbound._active`), so nothing leaks into the next test. (Signal
handlers are not touched: `main` installs them, the app itself does not.)

The result has the attributes of a `subprocess.CompletedProcess[str]` that tests read:
`returncode`, `stdout`, `stderr`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from click.testing import CliRunner

__all__ = ["Done", "process_settings_restored", "run"]


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str
    exception: BaseException | None


class _ConsoleScript:
    """What `CliRunner.invoke` calls: `inspector.cli.main`'s handling around the Typer app."""

    name = "mcp-inspect"

    def main(self, args: Sequence[str], prog_name: str, **extra: Any) -> None:
        from inspector.cli import app
        from inspector.command_setup import print_error
        from inspector.errors import InspectorError

        try:
            app(args=list(args), prog_name=prog_name, **extra)
        except InspectorError as exc:
            print_error(exc)
            sys.exit(2)
        except KeyboardInterrupt:
            sys.exit(130)


@contextmanager
def process_settings_restored() -> Iterator[None]:
    """Put back the process-wide settings a command sets (redaction rules, outbound HTTP)."""
    from inspector.capture import redact
    from inspector.transports import outbound

    saved = (redact._active, outbound._active)
    try:
        yield
    finally:
        redact._active, outbound._active = saved


def run(*args: str, env: Mapping[str, str | None] | None = None, input: str | bytes | None = None) -> Done:
    """`mcp-inspect ARGS...` in this process."""
    with process_settings_restored():
        result = CliRunner().invoke(_ConsoleScript(), list(args), env=env, input=input)  # type: ignore[arg-type]
    exception = result.exception
    if exception is not None and not isinstance(exception, SystemExit):
        # A traceback in a real process: keep it visible in stderr as the process would print it.
        import traceback

        text = "".join(traceback.format_exception(exception))
        return Done(result.exit_code, result.stdout, result.stderr + text, exception)
    return Done(result.exit_code, result.stdout, result.stderr, exception)
