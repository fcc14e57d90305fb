"""How `--help` is rendered: by Click's plain formatter, as a native command-line tool's help reads.

Every Typer app of the CLI is made with `HELP` (`rich_markup_mode=None`): the help and the usage
errors are plain text, wrapped by Click to the terminal (at most 78 columns), each paragraph of a
docstring re-flowed (its line breaks in the source do not show). No Rich: `mcp-inspect --help`
imports neither Rich nor Typer's Rich renderer (about two fifths of its start-up), and a help text
is printed as written (Rich read `[[route]]` or `[secret:NAME]` as markup and dropped it).

Click lists a group's commands one line each, cut with "..."; `ListingGroup` (every group's class)
lists each with the whole first paragraph of its help, wrapped in its column.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from typer.core import TyperGroup

if TYPE_CHECKING:
    from typer._click import Command, Context, HelpFormatter

__all__ = ["HELP", "ListingGroup", "summary"]


def summary(command: Command) -> str:
    """What a group's listing says of `command`: its short help, else its help's first paragraph
    (up to a form feed), on one line."""
    if command.short_help:
        return inspect.cleandoc(command.short_help)
    text = inspect.cleandoc(command.help or "").partition("\f")[0]
    return " ".join(text.split("\n\n")[0].replace("\b\n", "").split())


class ListingGroup(TyperGroup):
    """A command group whose help lists each command with its whole summary (`summary`), wrapped."""

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, summary(command)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


# The settings of every Typer app of the CLI: help and usage errors through Click's formatter, each
# group's commands listed by `ListingGroup`.
HELP: dict[str, Any] = {"rich_markup_mode": None, "cls": ListingGroup}
