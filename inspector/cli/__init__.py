"""The `mcp-inspect` command line: one Typer app, each command a thin call into the packages.

One module per command or small group of commands; the option groups they share are defined
once in `common.py`. This module only registers them, in the order `--help` lists them, and
runs the app (`main`). Every module imports only Typer (and Rich) at load time: each command
imports what it uses when it runs, so `mcp-inspect --help` stays fast.
"""

from __future__ import annotations

import sys

import typer

from inspector.cli import browse, call, mock, record, replay, retention, share
from inspector.cli.config import app as config_app
from inspector.cli.db import app as db_app
from inspector.cli.intercept import app as intercept_app
from inspector.cli.intercept_rules import rules_app
from inspector.command_setup import print_error
from inspector.errors import InspectorError
from inspector.help_text import unwrap_commands

__all__ = ["app", "main", "print_error"]

app = typer.Typer(
    name="mcp-inspect",
    help="Record, browse and replay Model Context Protocol traffic. Settings (database, "
    "retention, redaction names, per-server rules) come from a config file: `mcp-inspect config` "
    "shows them and where each came from, `mcp-inspect doctor` checks the setup.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
intercept_app.add_typer(rules_app)  # `mcp-inspect intercept rules ...`
app.add_typer(intercept_app)  # `mcp-inspect intercept ...`
app.add_typer(db_app)  # `mcp-inspect db copy ...`
app.add_typer(config_app)  # `mcp-inspect config ...`

# Commands whose server command follows their own options (`-- COMMAND ARGS...`).
_COMMAND_LINE = {"allow_interspersed_args": False, "ignore_unknown_options": True}

app.command(cls=record.WrapCommand, context_settings=_COMMAND_LINE)(record.wrap)
app.command()(record.proxy)
app.command()(record.pause)
app.command()(record.resume)
app.command("mock-server")(mock.mock_server)
app.command("serve")(mock.serve_scenario)
app.command()(replay.replay)
app.command()(replay.diff)
app.command(context_settings=_COMMAND_LINE)(replay.versions)
app.command()(share.export)
app.command("import")(share.import_)
app.command("test")(share.test_recordings)
app.command()(share.lint)
app.command()(call.call)
app.command()(browse.sessions)
app.command()(retention.prune)
app.command()(retention.pin)
app.command()(retention.unpin)
app.command()(browse.show)
app.command()(browse.search)
app.command()(browse.demo)
app.command()(browse.ui)
unwrap_commands(app)  # docstring paragraphs as single lines: Rich wraps them to the terminal
app.command()(browse.doctor)  # its help keeps its own line breaks


def _terminated(_signum: int, _frame: object) -> None:
    """SIGTERM stops a command as Ctrl-C does (see `main`): by raising SIGINT, whoever handles it
    now (Python's KeyboardInterrupt, asyncio's runner cancelling its main task, uvicorn)."""
    import signal

    signal.raise_signal(signal.SIGINT)


def main() -> None:
    """The Typer CLI (`inspector.entry.main` is the console script): user errors are one red line
    and exit status 2, not a traceback.

    SIGTERM is SIGINT here: service managers and CI stop with SIGTERM, and its default action killed
    a long-running command with its sessions still `recording` (uvicorn re-raises the signal it
    caught once it has shut down). Every command that runs until stopped (`proxy`, `mock-server`,
    `serve`, `ui`, `demo`, `intercept watch`, `call`) then ends its sessions and exits as after Ctrl-C.
    `wrap` passes both to its server (`inspector/wrap.py`)."""
    import signal

    # A shell starts a background job (`mcp-inspect proxy ... &`) with SIGINT ignored, and so may a
    # service manager: the SIGINT that SIGTERM raises would then be dropped, and asyncio's runner
    # would not install its Ctrl-C handling. Stopping on SIGTERM needs SIGINT handled.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _terminated)
    try:
        app()
    except InspectorError as exc:
        print_error(exc)
        sys.exit(2)
    except KeyboardInterrupt:  # Ctrl-C (or SIGTERM) before or after a command's own handling of it
        sys.exit(130)
