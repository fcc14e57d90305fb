"""How `--help` is rendered: by Click's plain formatter, as a native command-line tool's help reads.

Every Typer app of the CLI is made with `HELP` (`rich_markup_mode=None`): the help and the usage
errors are plain text, wrapped by Click to the terminal (at most 78 columns), each paragraph of a
docstring re-flowed (its line breaks in the source do not show). No Rich: `mcp-inspect --help`
imports neither Rich nor Typer's Rich renderer (about a third of its start-up), and a help text
is printed as written (Rich read `[[route]]` or `[secret:NAME]` as markup and dropped it).

Click lists a group's commands one line each, cut with "..."; `ListingGroup` (every group's class)
lists each with the whole first paragraph of its help, wrapped in its column. Click also breaks
lines after a hyphen (`mcp-` / `inspect`); `PlainHelpFormatter`, which every command's help goes
through (`HelpContext`, set by its group), breaks at spaces only. A block that must keep its own
line breaks starts with a line of `\b` alone (Click's rule).
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from typer._click import Context, HelpFormatter
from typer.core import TyperGroup

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typer._click import Command

__all__ = ["HELP", "HelpContext", "ListingGroup", "PlainHelpFormatter", "summary"]


def summary(command: Command) -> str:
    """What a group's listing says of `command`: its short help, else its help's first paragraph
    (up to a form feed), on one line."""
    if command.short_help:
        return inspect.cleandoc(command.short_help)
    text = inspect.cleandoc(command.help or "").partition("\f")[0]
    return " ".join(text.split("\n\n")[0].replace("\b\n", "").split())


_HYPHEN, _KEPT = "-", "\u2011"  # a hyphen, and the non-breaking one standing for it while wrapping


class PlainHelpFormatter(HelpFormatter):
    """Click's formatter, wrapping at spaces only: Click's wrapper also breaks after a hyphen, which
    split `mcp-inspect`, `--max-connections` or `Mcp-Session-Id` over two lines. Each hyphen is a
    non-breaking one while the text is wrapped, and a hyphen again when written."""

    def write(self, string: str) -> None:
        super().write(string.replace(_KEPT, _HYPHEN))

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        super().write_usage(prog, args.replace(_HYPHEN, _KEPT), prefix)

    def write_text(self, text: str) -> None:
        super().write_text(text.replace(_HYPHEN, _KEPT))

    def write_dl(self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        kept = [(first, second.replace(_HYPHEN, _KEPT)) for first, second in rows]
        super().write_dl(kept, col_max, col_spacing)


class HelpContext(Context):
    """The context of every command of the CLI: its help through `PlainHelpFormatter`."""

    formatter_class = PlainHelpFormatter


class ListingGroup(TyperGroup):
    """A command group whose help lists each command with its whole summary (`summary`), wrapped,
    and whose commands (and itself) render their help through `HelpContext`."""

    context_class = HelpContext

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            command.context_class = HelpContext
        return command

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
