"""`mcp-inspect install` / `uninstall` (the hosts' config files: `inspector/hosts/install.py`) and
`mcp-inspect gateway start|stop|status` (the recording gateway behind their HTTP entries)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from inspector.errors import InspectorError
from inspector.help_text import HELP
from inspector.terminal_text import visible

__all__ = ["gateway_app", "install", "uninstall"]

HostsArg = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="HOST",
        help="claude-desktop, claude-code, cursor, vscode, windsurf, gemini, codex.",
        show_default=False,
    ),
]
AllOption = Annotated[bool, typer.Option("--all", help="Every host whose config files are found.")]
DryRunOption = Annotated[
    bool, typer.Option("--dry-run", help="Print each file's change as a diff and change nothing.")
]
ProjectOption = Annotated[
    Path | None,
    typer.Option(
        help="The project whose files (.mcp.json, .vscode/mcp.json, ...) count too. Default: the current directory."
    ),
]
HomeOption = Annotated[
    Path | None, typer.Option(help="The home folder whose hosts' user files count. Default: your home.")
]


def _say(line: str) -> None:
    typer.echo(visible(line))


def _tilde(path: Path, home: Path) -> str:
    text = str(path)
    return "~" + text[len(str(home)) :] if text.startswith(str(home) + os.sep) else text


def _print_diff(diff: str) -> None:
    for line in diff.splitlines():
        typer.echo(visible(line))  # the file's contents are the user's data: no escape reaches the terminal


def install(
    hosts: HostsArg = None,
    all_hosts: AllOption = False,
    dry_run: DryRunOption = False,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="The database the wrapped servers record into (written into each entry).",
            show_default=False,
        ),
    ] = None,  # fmt: skip
    project: ProjectOption = None,
    home: HomeOption = None,
    gateway_listen: Annotated[
        str | None,
        typer.Option(
            metavar="HOST:PORT",
            help="Where the recording gateway for HTTP servers listens, when "
            "install creates its config. Default 127.0.0.1:6280.",
            show_default=False,
        ),
    ] = None,  # fmt: skip
) -> None:
    """Put every MCP server of the hosts' config files behind the inspector: a stdio server's command
    runs through `mcp-inspect wrap` (the session named after the entry), an HTTP server's URL points
    at a route of the recording gateway (`mcp-inspect gateway start`). Other keys, comments and
    formatting stay; each file is backed up first and `mcp-inspect uninstall` gives it back.
    Running it again changes nothing."""
    from inspector.hosts import gateway
    from inspector.hosts.install import plan_install, route_names, select, write_all

    home = (home or Path.home()).expanduser().absolute()
    project = (project or Path.cwd()).expanduser().absolute()
    if db is not None and "://" not in db:
        db = str(Path(db).expanduser().absolute())
    specs = select(hosts or [], all_hosts, home, project)
    routes = gateway.Routes(gateway.config_file(), gateway_listen)
    plans = plan_install(specs, db, routes)  # every file read and checked before any is written
    if not plans:
        _say("no config file of these hosts found")
        return
    new_routes = route_names(plans)
    for plan in plans:
        where = f"{plan.spec.host}: {_tilde(plan.spec.path, home)}"
        names = ", ".join(c.name for c in plan.changes)
        if not plan.changed:
            _say(
                f"{where}: nothing to change"
                + (" (every server is wrapped already)" if plan.notes else " (no servers)")
            )
            continue
        _say(f"{where}: {'would wrap' if dry_run else 'wrapped'} {names}")
        for note in plan.notes:
            _say(f"  {note}")
        if dry_run:
            _print_diff(plan.diff())
    if new_routes:
        if dry_run:
            _say(f"gateway config {routes.path}: would add {len(new_routes)} route(s)")
            _print_diff(routes.diff())
            return
        routes.save()
    if dry_run:
        return
    try:
        write_all(plans)
    except InspectorError:
        if new_routes:  # the gateway config goes back too
            from inspector.private_files import atomic_write

            if routes.before:
                atomic_write(routes.path, routes.before)
            else:
                routes.path.unlink(missing_ok=True)
        raise
    if new_routes:
        state = gateway.status()
        if state["up"]:
            gateway.stop()
            gateway.start(db or state.get("db"))  # the database it recorded into, unless --db says another
            _say(f"gateway restarted with {len(routes.routes)} route(s) on {routes.doc['listen']}")
        else:
            _say(f"gateway config {routes.path}: {len(routes.routes)} route(s); run `mcp-inspect gateway start` "
                 "to record the HTTP servers")  # fmt: skip
    if any(p.changed for p in plans):
        _say("restart the hosts to use the new entries; `mcp-inspect uninstall` undoes this")


def uninstall(
    hosts: HostsArg = None,
    all_hosts: AllOption = False,
    dry_run: DryRunOption = False,
    project: ProjectOption = None,
    home: HomeOption = None,
) -> None:
    """Undo `mcp-inspect install`: a file nobody changed since gets its original bytes back; one
    edited since gets only install's keys reverted (those still holding what install wrote)."""
    from inspector.hosts import changes, gateway
    from inspector.hosts.install import plan_uninstall, route_names, select, write_uninstall

    home = (home or Path.home()).expanduser().absolute()
    project = (project or Path.cwd()).expanduser().absolute()
    specs = select(hosts or [], all_hosts, home, project)
    plans = plan_uninstall(specs)
    if not plans:
        _say("nothing installed in these hosts' files")
        return
    for plan in plans:
        where = f"{plan.spec.host}: {_tilde(plan.spec.path, home)}"
        how = "the original bytes" if plan.restore else "install's keys reverted"
        _say(f"{where}: {'would give back' if dry_run else 'given back'} ({how})")
        for note in plan.notes:
            _say(f"  {note}")
        if dry_run:
            _print_diff(plan.diff())
    if dry_run:
        return
    for plan in plans:
        write_uninstall(plan)
    # The gateway's routes that no installed entry uses any more go too.
    used = {c["route"]["name"] for r in changes.all_records() for c in r.get("entries", []) if c.get("route")}
    gone = route_names(plans) - used
    if gone and gateway.config_file().is_file():
        routes = gateway.Routes(gateway.config_file())
        routes.remove(gone)
        routes.save()
        _say(f"gateway config: {len(gone)} route(s) removed")


gateway_app = typer.Typer(
    name="gateway",
    help="The recording gateway behind the hosts' HTTP MCP servers (its routes: `mcp-inspect install`).",
    no_args_is_help=True,
    **HELP,
)


@gateway_app.command("start")
def gateway_start(
    db: Annotated[
        str | None, typer.Option("--db", help="The database it records into.", show_default=False)
    ] = None,
    unit: Annotated[
        bool,
        typer.Option(
            "--unit", help="Print a systemd user unit (macOS: a launchd agent) instead of starting it."
        ),
    ] = False,
    write_unit: Annotated[
        bool,
        typer.Option(
            "--write-unit", help="Write that unit file (then enable it with systemctl --user / launchctl)."
        ),
    ] = False,
) -> None:
    """Run the gateway in the background (its log in the state directory)."""
    from inspector.hosts import gateway

    if db is not None and "://" not in db:
        db = str(Path(db).expanduser().absolute())
    if unit or write_unit:
        where, text = gateway.unit_text(db)
        if write_unit:
            from inspector.private_files import atomic_write, make_private_dirs

            make_private_dirs(where.parent)
            atomic_write(where, text.encode())
            _say(f"wrote {where}")
            _say("enable it: " + ("launchctl load -w " if where.suffix == ".plist" else "systemctl --user enable --now ")
                 + (str(where) if where.suffix == ".plist" else where.name))  # fmt: skip
        else:
            typer.echo(text, nl=False)
        return
    state = gateway.start(db)
    _say(f"gateway up on {state['listen']} (pid {state['pid']}, log {state['log']})")


@gateway_app.command("stop")
def gateway_stop() -> None:
    """Stop the background gateway."""
    from inspector.hosts import gateway

    _say("gateway stopped" if gateway.stop() else "the gateway was not running")


@gateway_app.command("status")
def gateway_status(
    as_json: Annotated[bool, typer.Option("--json", help="Print it as JSON.")] = False,
) -> None:
    """Up or not (exit status 0 when up, 1 when not)."""
    from inspector.hosts import gateway

    state = gateway.status()
    if as_json:
        import json

        typer.echo(json.dumps(state))
    elif state["up"]:
        _say(f"gateway up on {state['listen']} (pid {state['pid']}), config {state['config']}")
    else:
        _say(f"gateway not running (config {state['config']})")
    raise typer.Exit(0 if state["up"] else 1)
