"""`--help` broke its description into ragged lines (e.g. `mcp-inspect proxy --help` at 80 columns).

Typer kept the single line breaks inside a docstring's later paragraphs, so paragraphs wrapped in
the source came out as a full line, then "forwarded to", then another full line. The help is now
rendered by Click's formatter (`inspector.help_text`), which re-flows each paragraph to the
terminal's width (at most 78 columns). For every command, at COLUMNS=80 no line is longer than 80
characters, in the description no line ends early (the next line's first word would have fitted on
it; checked at 60 columns too, where text wrapped by hand at a wider width would show), no word
is cut at a hyphen (Click's wrapper did: `mcp-` / `inspect`), and a group's listing gives each
command's whole summary, not one line cut with "...".

Each command's help is rendered in-process (Typer's CliRunner, at the width Click takes for `COLUMNS`); one
real `mcp-inspect --help` process checks the console script renders the same way.
"""

from __future__ import annotations

import os
import re
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


def _width(columns: int) -> int:
    """The width Click wraps help to on a terminal of `columns` (its HelpFormatter's rule)."""
    return max(min(columns, 80) - 2, 50)


def _help(command: str | None, columns: int) -> list[str]:
    """`mcp-inspect COMMAND --help` on a terminal of `columns`, in-process (given as the context's
    width: the runner would fix it at 80 whatever $COLUMNS says)."""
    with CliRunner().isolation() as (out, err, _output):
        with pytest.raises(SystemExit) as done:
            _CLI.main(
                [*(command.split() if command else []), "--help"],
                prog_name="mcp-inspect",
                terminal_width=_width(columns),
            )
        sys.stdout.flush()
        sys.stderr.flush()
        assert done.value.code in (0, None), err.getvalue().decode()
        return out.getvalue().decode().splitlines()


def _ragged(lines: list[str], columns: int) -> list[str]:
    """Description lines (after the usage, before the first section: Arguments, Options, Commands)
    that ended although the next word would have fitted."""
    description = []
    for line in lines[lines.index("") :]:
        if line.endswith(":") and not line.startswith(" "):
            break
        description.append(line.rstrip())
    found = []
    for line, following in zip(description, description[1:], strict=False):
        words = following.split()
        if not line.strip() or not words:
            continue  # a paragraph's end
        if len(line) + 1 + len(words[0]) <= _width(columns):
            found.append(f"{line.strip()!r} / {following.strip()!r}")
    return found


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_fits_and_reads_well(command: str | None) -> None:
    at80 = _help(command, 80)
    too_long = [line for line in at80 if len(line) > 80]
    assert too_long == [], "\n".join(too_long)
    assert _ragged(at80, 80) == []
    listing = at80[at80.index("Commands:") :] if "Commands:" in at80 else []
    assert [line for line in listing if line.endswith("...")] == []  # no summary cut short
    at60 = _help(command, 60)
    assert _ragged(at60, 60) == []
    # Words are not cut at their hyphens (`mcp-` / `inspect`, `--max-` / `connections`).
    assert [line for line in at80 + at60 if re.search(r"\w-$", line)] == []


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
