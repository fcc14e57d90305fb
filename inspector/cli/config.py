"""`mcp-inspect config ...`: the effective settings and where each came from, the config file's path,
a commented template (`config init`). Registered in `inspector/cli/__init__.py`.

Only Typer at import time; settings and Rich are imported when a command runs. The reading is
`inspector/settings.py`; this module only shows it (`effective_rows` is shared with `doctor`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, Any

import typer

from inspector.help_text import HELP

if TYPE_CHECKING:
    from inspector.settings import Effective

__all__ = ["TEMPLATE", "app", "effective_rows", "load_with_flags"]

app = typer.Typer(
    name="config",
    help="The inspector's settings: the config file, the environment and flags, each value with its "
    "source (`config show`), the file's path (`config path`), a commented template (`config init`).",
    invoke_without_command=True,
    **HELP,
)

TEMPLATE = """\
# mcp-inspector's config file (TOML). Every recorder (wrap, proxy, gateway,
# serve, mock-server, call, replay, ui) and `prune` read it. MCP_INSPECTOR_*
# variables override it, a command's flags override those; `redact` names add
# up instead. `mcp-inspect config` shows what is in force and why;
# `mcp-inspect doctor` checks this file, the database and your hosts' configs.
# Uncomment what you want to set.

# The recording database: a file path (~ allowed) or postgresql://USER@HOST/DB.
# db = "~/mcp-recordings/inspector.db"

# More header, query parameter or JSON key names to redact in every
# recording, as --redact (an entry with a dot is a JSON path, as --redact-path).
# redact = ["x-tenant-key", "params.arguments.api_key"]

# [retention]              # applied by every recorder and `mcp-inspect prune`
# max_age = "30d"          # s, m, h, d, w
# max_total_size = "2GB"   # B, kB, MB, GB, KiB, MiB, GiB
# max_session_size = "200MB"
# keep_labelled = true     # labelled (and pinned) sessions are never removed

# [storage]
# compress_above = "4KiB"  # larger bodies are stored zstd-compressed
# dedup_above = "4KiB"     # identical larger bodies are stored once
# max_record_bytes = "32MiB"  # longer messages: this much, size and SHA-256

# Per-server rules, the first match wins: a glob on the session's name (wrap
# --name), its command line or its URL.
# [[servers]]
# match = "*github*"
# record = "full"          # full, metadata (no bodies) or paused
# redact = ["x-github-token"]
"""


def load_with_flags(db: str | None = None, redact: list[str] | None = None) -> Effective:
    """The effective settings with these flags given (as a recording command would see them)."""
    from inspector.settings import load

    flags: dict[str, tuple[Any, str]] = {"db": (db, "--db")}
    if redact:
        flags["redact"] = (list(redact), "--redact")
    return load(flags=flags)


def _redact_names(effective: Effective, given: list[str] | None) -> tuple[list[str], str]:
    """The redaction names in force (file, environment and flags add up, `capture/redact.py`) and
    where they came from."""
    from inspector.capture.redact import REDACT_ENV
    from inspector.settings import load

    names: list[str] = []
    sources: list[str] = []
    file_only = load({k: v for k, v in os.environ.items() if k != REDACT_ENV}, path=effective.looked_at)
    if file_only.settings.redact:
        names += file_only.settings.redact
        sources.append("config file")
    env = [e.strip() for e in os.environ.get(REDACT_ENV, "").split(",") if e.strip()]
    if env:
        names += env
        sources.append(f"environment {REDACT_ENV}")
    if given:
        names += given
        sources.append("flag --redact")
    return list(dict.fromkeys(names)), " + ".join(sources) or "default"


def effective_rows(effective: Effective, redact: list[str] | None = None) -> list[dict[str, Any]]:
    """One row per setting: key, value (as the file would spell it), source (`default`, `config
    file`, `environment VAR`, `flag --x`)."""
    import dataclasses

    from inspector.config import DEFAULT_DB
    from inspector.settings import format_duration, format_size

    s = effective.settings

    def source(key: str) -> str:
        found = effective.source(key)
        return "config file" if found.startswith("config file ") else found

    names, names_from = _redact_names(effective, redact)
    retention, storage = s.retention, s.storage
    rows: list[dict[str, Any]] = [
        {"key": "db", "value": s.db or str(DEFAULT_DB), "source": source("db")},
        {"key": "redact", "value": names, "source": names_from},
    ]
    for key, value, shown in (
        ("retention.max_age", retention.max_age, format_duration),
        ("retention.max_total_size", retention.max_total_size, format_size),
        ("retention.max_session_size", retention.max_session_size, format_size),
    ):
        rows.append(
            {
                "key": key,
                "value": value,
                "shown": "none" if value is None else shown(value),  # type: ignore[arg-type]
                "source": source(key),
            }
        )
    rows.append({"key": "retention.keep_labelled", "value": retention.keep_labelled,
                 "source": source("retention.keep_labelled")})  # fmt: skip
    for key, value in (
        ("storage.compress_above", storage.compress_above),
        ("storage.dedup_above", storage.dedup_above),
        ("storage.max_record_bytes", storage.max_record_bytes),
    ):
        rows.append({"key": key, "value": value, "shown": format_size(value), "source": source(key)})
    for i, rule in enumerate(s.servers):
        rows.append({"key": f"servers[{i}]", "value": dataclasses.asdict(rule), "source": source("servers")})
    return rows


def _shown(row: dict[str, Any]) -> str:
    if "shown" in row:
        return str(row["shown"])
    value = row["value"]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(value) if value else "none"
    if isinstance(value, dict):  # a per-server rule
        extra = f", redact {', '.join(value['redact'])}" if value["redact"] else ""
        return f"match {value['match']}: record {value['record']}{extra}"
    return str(value)


DbFlag = Annotated[str | None, typer.Option("--db", help="Show the settings as with this --db given.")]
RedactFlag = Annotated[
    list[str] | None,
    typer.Option("--redact", help="Show the settings as with this --redact given (repeatable)."),
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


@app.callback()
def main(ctx: typer.Context, db: DbFlag = None, redact: RedactFlag = None, as_json: JsonFlag = False) -> None:
    """The inspector's settings (`show` when no subcommand is given)."""
    if ctx.invoked_subcommand is None:
        show(db=db, redact=redact, as_json=as_json)


def _short(source: str) -> str:
    """A source as the table shows it: `$MCP_INSPECTOR_DB` for `environment MCP_INSPECTOR_DB`,
    `--db` for `flag --db` (JSON keeps the words)."""
    return " + ".join(
        "$" + part.removeprefix("environment ") if part.startswith("environment ")
        else part.removeprefix("flag ")
        for part in source.split(" + ")
    )  # fmt: skip


@app.command("show")
def show(db: DbFlag = None, redact: RedactFlag = None, as_json: JsonFlag = False) -> None:
    """Every setting in force and where it came from: default < config file < MCP_INSPECTOR_*
    variable < flag (`redact` names add up). Then the config file's path and whether it exists.

    Example: `MCP_INSPECTOR_MAX_AGE=7d mcp-inspect config show --db team.db`
    """
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from inspector.terminal_text import visible

    effective = load_with_flags(db, redact)
    path = effective.looked_at
    assert path is not None
    rows = effective_rows(effective, redact)
    if as_json:
        import json

        out = {
            "config_file": {"path": str(path), "exists": effective.path is not None},
            "settings": [{k: v for k, v in row.items() if k != "shown"} for row in rows],
        }
        typer.echo(json.dumps(out, indent=2))
        return
    console = Console(highlight=False, width=min(Console().width, 80))
    table = Table(box=None, pad_edge=False, show_edge=False)
    table.add_column("setting", no_wrap=True)
    table.add_column("value", overflow="fold", ratio=1)
    widest = max(len(_short(r["source"])) for r in rows)
    table.add_column("from", overflow="fold", width=min(31, widest))
    for row in rows:
        # The config file's values as they are: never read as markup, controls shown.
        table.add_row(
            Text(visible(row["key"])), Text(visible(_shown(row))), Text(visible(_short(row["source"])))
        )
    console.print(table, markup=False)
    state = (
        "found"
        if effective.path is not None
        else "not found (defaults; `mcp-inspect config init` writes one)"
    )
    console.print(f"\nconfig file: {state}", markup=False)
    console.print(f"  {visible(path)}", markup=False, soft_wrap=True)  # a path stays whole, to copy it


@app.command("path")
def path() -> None:
    """Print where the config file is looked for ($MCP_INSPECTOR_CONFIG, else config.toml in your
    config directory), whether it exists or not."""
    from inspector.settings import config_path

    typer.echo(str(config_path()))


@app.command("init")
def init(
    force: Annotated[bool, typer.Option("--force", help="Replace an existing config file.")] = False,
) -> None:
    """Write a commented template at the config file's path (readable by you only, 0600; its folder
    0700). An existing file is kept unless --force is given."""
    from inspector.errors import InspectorError
    from inspector.private_files import create_private_file, make_private_dirs
    from inspector.settings import config_path

    where = config_path()
    if where.exists() or where.is_symlink():
        if not force:
            raise InspectorError(f"{where} exists: keeping it (--force replaces it)")
        where.unlink()
    make_private_dirs(where.parent)
    fd = create_private_file(where)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(TEMPLATE)
    typer.echo(f"wrote {where}: edit it, then `mcp-inspect config` shows what is in force")
