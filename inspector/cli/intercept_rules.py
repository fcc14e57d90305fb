"""`mcp-inspect intercept rules ...`: list, add, enable, disable or remove a running process's
fault rules (its control channel, as the other `intercept` commands in `cli/intercept.py`)."""

from __future__ import annotations

from typing import Annotated

import typer

from inspector.cli.intercept import PidOption, SessionOption, _console, _fail, _print_rules, _remote
from inspector.help_text import HELP
from inspector.terminal_text import markup_safe

__all__ = ["rules_app"]

rules_app = typer.Typer(
    name="rules",
    help="List, add, enable, disable or remove a process's fault rules.",
    invoke_without_command=True,
    **HELP,
)


@rules_app.callback()
def rules_list(ctx: typer.Context, pid: PidOption = None, session: SessionOption = None) -> None:
    """List the rules (name, on/off, action, filter, hits); or add/enable/disable/remove one."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = (pid, session)
        return
    with _remote(pid, session) as remote:
        found = remote.processes()
        if not found:
            _fail(remote._none())
    console = _console()
    for process in found:
        console.print(f"[bold]{markup_safe(process.state.get('kind'))}[/bold] pid {process.pid}")
        _print_rules(console, process.state)


def _chosen(ctx: typer.Context, pid: int | None, session: int | None) -> tuple[int | None, int | None]:
    outer = ctx.obj if isinstance(ctx.obj, tuple) else (None, None)
    return (pid if pid is not None else outer[0], session if session is not None else outer[1])


@rules_app.command("list")
def rules_list_command(ctx: typer.Context, pid: PidOption = None, session: SessionOption = None) -> None:
    """List the rules with their hit counts."""
    pid, session = _chosen(ctx, pid, session)
    ctx.invoked_subcommand = None
    rules_list(ctx, pid, session)


@rules_app.command("add")
def rules_add(
    ctx: typer.Context,
    file: Annotated[
        str, typer.Argument(help="A rules file (YAML or JSON): a rule, a list, or {rules: [...]}.")
    ],
    pid: PidOption = None,
    session: SessionOption = None,
) -> None:
    """Add the rules of a file to a running process (a rule, a list of rules, or a rules file)."""
    from pathlib import Path

    import yaml

    from inspector.intercept.rules import parse_rules

    pid, session = _chosen(ctx, pid, session)
    path = Path(file)
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        _fail(f"{path}: cannot read the rules file: {exc.strerror or exc}")
    except UnicodeDecodeError:
        _fail(f"{path}: the rules file is not UTF-8 text")
    except yaml.YAMLError as exc:
        _fail(f"{path}: not valid YAML or JSON: {exc}")
    if isinstance(doc, dict) and "action" in doc:  # a single rule
        doc = [doc]
    ruleset = parse_rules(doc, str(path))
    if not ruleset.rules:
        _fail(f"{path}: no rules in it")
    with _remote(pid, session) as remote:
        process = remote.one()
        for rule in ruleset.rules:
            remote.call(process.reg, "POST", "/rules", rule.model_dump(mode="json", exclude_unset=True))
            _console().print(f"added rule {markup_safe(rule.name)} ({rule.action}) to pid {process.pid}")


@rules_app.command("enable")
def rules_enable(ctx: typer.Context, name: str, pid: PidOption = None, session: SessionOption = None) -> None:
    """Turn a rule on."""
    _switch(ctx, name, True, pid, session)


@rules_app.command("disable")
def rules_disable(
    ctx: typer.Context, name: str, pid: PidOption = None, session: SessionOption = None
) -> None:
    """Turn a rule off (it stays listed)."""
    _switch(ctx, name, False, pid, session)


def _switch(ctx: typer.Context, name: str, on: bool, pid: int | None, session: int | None) -> None:
    pid, session = _chosen(ctx, pid, session)
    with _remote(pid, session) as remote:
        process = remote.one()
        remote.rule(process, "PATCH", name, {"enabled": on})
    _console().print(f"rule {markup_safe(name)} {'enabled' if on else 'disabled'} (pid {process.pid})")


@rules_app.command("remove")
def rules_remove(ctx: typer.Context, name: str, pid: PidOption = None, session: SessionOption = None) -> None:
    """Remove a rule."""
    pid, session = _chosen(ctx, pid, session)
    with _remote(pid, session) as remote:
        process = remote.one()
        remote.rule(process, "DELETE", name)
    _console().print(f"rule {markup_safe(name)} removed (pid {process.pid})")
