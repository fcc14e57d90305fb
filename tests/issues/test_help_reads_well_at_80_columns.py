"""`--help` broke its description into ragged lines (e.g. `mcp-inspect proxy --help` at 80 columns).

Typer keeps the single line breaks inside a docstring's later paragraphs, so paragraphs wrapped in
the source came out as a full line, then "forwarded to", then another full line. Each command's
help is now unwrapped into paragraphs that Rich wraps to the terminal. For every command, at
COLUMNS=80 no line is longer than 80 characters, and in the description no line ends early: the
next line's first word would not have fitted on it (checked at 120 columns too, where text wrapped
by hand at any narrower width would show).

Each command's help is rendered in-process (Typer's CliRunner, `COLUMNS` fixing Rich's width); one
real `mcp-inspect --help` process checks the console script renders the same way.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from inspector.cli import app


def _commands(typer_app: typer.Typer, prefix: str = "") -> list[str]:
    """Every command line, groups (`intercept`, `intercept rules`) and their commands included."""
    found = [
        f"{prefix}{info.name or info.callback.__name__}"  # type: ignore[union-attr]
        for info in typer_app.registered_commands
    ]
    for group in typer_app.registered_groups:
        sub = group.typer_instance
        name = sub.info.name if isinstance(sub.info.name, str) else group.name
        assert isinstance(name, str), "a command group without a name"
        found += [f"{prefix}{name}", *_commands(sub, f"{prefix}{name} ")]
    return found


COMMANDS = _commands(app)


def test_groups_are_covered() -> None:
    assert "intercept rules add" in COMMANDS and "intercept watch" in COMMANDS


# The Click command tree, built once (Typer's CliRunner.invoke builds it again on every call).
_CLI = typer.main.get_command(app)


def _help(command: str | None, columns: int) -> list[str]:
    """`mcp-inspect COMMAND --help` at `columns`, in-process (Rich takes its width from $COLUMNS)."""
    with CliRunner().isolation(env={"COLUMNS": str(columns)}) as (out, err, _output):
        with pytest.raises(SystemExit) as done:
            _CLI.main([*(command.split() if command else []), "--help"], prog_name="mcp-inspect")
        sys.stdout.flush()
        sys.stderr.flush()
        assert done.value.code in (0, None), err.getvalue().decode()
        return out.getvalue().decode().splitlines()


def _ragged(lines: list[str], columns: int) -> list[str]:
    """Description lines (before the first panel) that ended although the next word would fit."""
    description = []
    for line in lines:
        if line.startswith("╭"):
            break
        description.append(line.rstrip())
    found = []
    for line, following in zip(description, description[1:], strict=False):
        words = following.split()
        if not line.strip() or not words or words[0].startswith("-") and len(words[0]) <= 2:
            continue  # a paragraph's end, or a list item
        # Rich pads the text by one column on each side: it may use columns - 2 characters.
        if len(line) + 1 + len(words[0]) <= columns - 1:
            found.append(f"{line.strip()!r} / {following.strip()!r}")
    return found


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_fits_and_reads_well(command: str | None) -> None:
    at80 = _help(command, 80)
    too_long = [line for line in at80 if len(line) > 80]
    assert too_long == [], "\n".join(too_long)
    assert _ragged(at80, 80) == []
    assert _ragged(_help(command, 120), 120) == []


def test_the_console_script_renders_the_same_help() -> None:
    """The one real process: the installed `mcp-inspect` console script prints what the in-process
    rendering above checked, at 80 columns."""
    script = Path(sys.executable).with_name("mcp-inspect")
    out = subprocess.run(
        [str(script), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == _help(None, 80)
