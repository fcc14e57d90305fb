"""Command help that reads well at any terminal width.

Typer keeps the single line breaks inside a docstring's later paragraphs, so
text wrapped in the source at its own width came out in `--help` as ragged
lines (a full line, then three words, then a full line). `unwrap_commands`
gives each command a help text whose paragraphs are single lines; Rich then
wraps them to the terminal. Blank lines still separate paragraphs, and lines
that start with "- " or an indent (lists, examples) keep their own line.
"""

from __future__ import annotations

import inspect

import typer

__all__ = ["unwrap", "unwrap_commands"]


def unwrap(text: str) -> str:
    """`text` with the line breaks inside each paragraph replaced by spaces."""
    paragraphs = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        lines: list[str] = []
        for line in paragraph.split("\n"):
            if lines and not line.startswith(("- ", " ", "\b")) and not lines[-1].startswith("\b"):
                lines[-1] = f"{lines[-1]} {line.strip()}"
            else:
                lines.append(line.rstrip())
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def unwrap_commands(app: typer.Typer) -> None:
    """Give every command of `app` its docstring (or help) unwrapped; call once all are registered."""
    for info in app.registered_commands:
        text = info.help if info.help is not None else inspect.getdoc(info.callback)
        if text:
            info.help = unwrap(text)
