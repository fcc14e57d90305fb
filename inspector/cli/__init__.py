"""The `mcp-inspect` command line: one Typer app, each command a thin call into the packages.

One module per command or small group of commands; the option groups they share are defined
once in `common.py`. This module names them (`COMMANDS`, `GROUPS`: where each lives, in the
order `--help` lists them) and runs the CLI (`main`).

Each command is loaded when it is used: `main` runs a group (`LazyGroup`) that imports a command's
module and builds its Click command (its options) only when that command is invoked or its help
shown; `mcp-inspect --help` lists each one's name and summary (its docstring) and builds none.
`app`, the whole tree as one Typer app (for the docs' CLI reference and tests), is built from
the same table on first use.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any

import typer

from inspector.command_setup import print_error
from inspector.errors import InspectorError
from inspector.help_text import HELP, ListingGroup
from inspector.start_up import start_up_over

if TYPE_CHECKING:
    from typer._click import Command, Context, HelpFormatter

__all__ = ["COMMANDS", "GROUPS", "LazyGroup", "app", "main", "print_error", "root_group"]

# Commands whose server command follows their own options (`-- COMMAND ARGS...`).
_COMMAND_LINE = {"allow_interspersed_args": False, "ignore_unknown_options": True}

# name -> (module in inspector/cli/, function, `Typer.command` settings; "cls" names a class of
# that module). In the order `--help` lists them. Their help is the docstring (rendered by Click:
# `inspector.help_text`).
COMMANDS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "wrap": ("record", "wrap", {"cls": "WrapCommand", "context_settings": _COMMAND_LINE}),
    "proxy": ("record", "proxy", {}),
    "pause": ("record", "pause", {}),
    "resume": ("record", "resume", {}),
    "mock-server": ("mock", "mock_server", {}),
    "serve": ("mock", "serve_scenario", {}),
    "replay": ("replay", "replay", {}),
    "diff": ("replay", "diff", {}),
    "versions": ("replay", "versions", {"context_settings": _COMMAND_LINE}),
    "export": ("share", "export", {}),
    "import": ("share", "import_", {}),
    "test": ("share", "test_recordings", {}),
    "lint": ("share", "lint", {}),
    "call": ("call", "call", {}),
    "sessions": ("browse", "sessions", {}),
    "prune": ("retention", "prune", {}),
    "pin": ("retention", "pin", {}),
    "unpin": ("retention", "unpin", {}),
    "show": ("browse", "show", {}),
    "stats": ("stats", "stats", {}),
    "search": ("browse", "search", {}),
    "demo": ("browse", "demo", {}),
    "ui": ("browse", "ui", {}),
    "doctor": ("browse", "doctor", {}),
    "install": ("install", "install", {}),
    "uninstall": ("install", "uninstall", {}),
}
# Command groups: name -> (module, its Typer app), listed after the commands.
GROUPS: dict[str, tuple[str, str]] = {
    "intercept": ("intercept", "app"),  # `mcp-inspect intercept ...`, with `intercept rules ...`
    "db": ("db", "app"),  # `mcp-inspect db copy ...`
    "config": ("config", "app"),  # `mcp-inspect config ...`
    "gateway": ("install", "gateway_app"),  # `mcp-inspect gateway start|stop|status`
    "conformance": ("conformance", "app"),  # `mcp-inspect conformance client URL` (the suite's client)
}
_ROOT: dict[str, Any] = {
    "name": "mcp-inspect",
    "help": "Record, browse and replay Model Context Protocol traffic. Settings (database, "
    "retention, redaction names, per-server rules) come from a config file: `mcp-inspect config` "
    "shows them and where each came from, `mcp-inspect doctor` checks the setup.",
    "no_args_is_help": True,
    "add_completion": False,
    "pretty_exceptions_enable": False,
    **HELP,
}


def _group_app(name: str) -> typer.Typer:
    """The Typer app of the command group `name`."""
    module, attr = GROUPS[name]
    sub: typer.Typer = getattr(import_module(f"inspector.cli.{module}"), attr)
    if name == "intercept" and not sub.registered_groups:  # `mcp-inspect intercept rules ...`
        from inspector.cli.intercept_rules import rules_app

        sub.add_typer(rules_app)
    return sub


def _callback(name: str) -> tuple[Any, dict[str, Any]]:
    """The function of the command `name` and its `Typer.command` settings."""
    module_name, function, settings = COMMANDS[name]
    module = import_module(f"inspector.cli.{module_name}")
    if "cls" in settings:
        settings = {**settings, "cls": getattr(module, settings["cls"])}
    return getattr(module, function), settings


def _help(callback: Any) -> str | None:
    """The help of a command: its function's docstring."""
    import inspect

    return inspect.getdoc(callback)


def _register(target: typer.Typer, name: str) -> None:
    """Add the command or group `name` to `target`, as `mcp-inspect` has it."""
    if name in GROUPS:
        target.add_typer(_group_app(name))
        return
    callback, settings = _callback(name)
    target.command(name, help=_help(callback), **settings)(callback)


class LazyGroup(ListingGroup):
    """The `mcp-inspect` group: a command's module is imported and its Click command built when
    the command is invoked or its help shown. Listing the commands (`mcp-inspect --help`, a
    mistyped name's suggestions) builds none of them: each is listed by its name and help."""

    _listing = False

    def list_commands(self, ctx: Context) -> list[str]:
        return [*COMMANDS, *GROUPS]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        if cmd_name in self.commands or (cmd_name not in COMMANDS and cmd_name not in GROUPS):
            return super().get_command(ctx, cmd_name)
        if self._listing:
            return self._listed(cmd_name)
        from inspector.cli.values import plain_values

        one = typer.Typer(**_ROOT)
        _register(one, cmd_name)
        self.commands[cmd_name] = plain_values(typer.main.get_group(one).commands[cmd_name])
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: Context) -> Any:
        # The console script starts with the cyclic garbage collector off (`inspector.entry`): the
        # command runs with it on, what start-up made set aside (frozen: never scanned again). The
        # command's module (Rich, the store...) is imported and its command built first: start-up too.
        if ctx._protected_args:
            self.get_command(ctx, ctx._protected_args[0])
        start_up_over()
        return super().invoke(ctx)

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    @staticmethod
    def _listed(name: str) -> Command:
        """The command `name` as `--help` lists it: its name and help, nothing built."""
        from typer.core import TyperCommand

        help_text: str | None
        if name in GROUPS:
            help_text = typer.main.solve_typer_info_help(typer.models.TyperInfo(_group_app(name)))
        else:
            help_text = _help(_callback(name)[0])
        return TyperCommand(name, help=help_text)


def _app() -> typer.Typer:
    """Every command and group in one Typer app (`inspector.cli.app`)."""
    whole = typer.Typer(**_ROOT)
    for name in [*COMMANDS, *GROUPS]:
        _register(whole, name)
    return whole


_built: dict[str, typer.Typer] = {}


def __getattr__(name: str) -> typer.Typer:
    """`app`, built on first use: importing this module imports no command."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if "app" not in _built:
        _built["app"] = _app()
    return _built["app"]


if TYPE_CHECKING:
    app: typer.Typer


def root_group() -> LazyGroup:
    """The `mcp-inspect` group `main` runs: no command built yet."""
    from inspector.cli.values import plain_values

    group = typer.main.get_group(typer.Typer(**{**_ROOT, "cls": LazyGroup}))
    assert isinstance(group, LazyGroup)
    return plain_values(group)


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
        root_group()()
    except InspectorError as exc:
        print_error(exc)
        sys.exit(2)
    except KeyboardInterrupt:  # Ctrl-C (or SIGTERM) before or after a command's own handling of it
        sys.exit(130)
