"""Retention: `prune` (the policy now), `pin` and `unpin` (a session retention keeps); the
bodies are `inspector/prune.py`."""

from __future__ import annotations

from typing import Annotated

import typer

from inspector.cli.common import DbOption, open_store
from inspector.terminal_text import visible

__all__ = ["pin", "prune", "unpin"]

SessionArgument = Annotated[str, typer.Argument(help="Session id, name, or `last`.")]


def prune(
    db: DbOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would go; change nothing.")] = False,
    max_age: Annotated[
        str | None, typer.Option("--max-age", help="Remove sessions older than this: 12h, 30d, 2w.")
    ] = None,
    max_total_size: Annotated[
        str | None,
        typer.Option(
            "--max-total-size", help="Remove the oldest sessions until the store is within this: 2GB."
        ),
    ] = None,
    max_session_size: Annotated[
        str | None, typer.Option("--max-session-size", help="Remove ended sessions bigger than this: 200MB.")
    ] = None,
) -> None:
    """Apply the retention policy now: remove old or large sessions and give the space back.

    The policy is the config file's [retention] table, then MCP_INSPECTOR_MAX_AGE / _MAX_TOTAL_SIZE /
    _MAX_SESSION_SIZE, then these flags. Pinned sessions (`mcp-inspect pin`), labelled ones and
    sessions still recording are never removed; the oldest go first. Every recorder applies the
    same policy by itself (at most hourly); this command is for doing it now or seeing what would go.
    """
    from inspector.prune import load_policy
    from inspector.prune import prune as run_prune

    effective = load_policy(max_age, max_total_size, max_session_size)
    engine = open_store(db, create=False) if effective.settings.retention.active else None
    raise typer.Exit(run_prune(engine, effective, dry_run=dry_run))


def pin(
    session: SessionArgument,
    db: DbOption = None,
) -> None:
    """Pin a session: retention (`prune`, recorders) never removes it."""
    from inspector.prune import pin as set_pin

    print(visible(set_pin(open_store(db, create=False), session, True)))


def unpin(
    session: SessionArgument,
    db: DbOption = None,
) -> None:
    """Unpin a session: retention may remove it again."""
    from inspector.prune import pin as set_pin

    print(visible(set_pin(open_store(db, create=False), session, False)))
