"""`mcp-inspect --help` listed `doctor` in ragged lines ("the MCP servers in the config files" /
"of Claude Desktop, ..."): the listing kept the line breaks of doctor's docstring, which the
command table (`_KEEPS_LINES`) exempted from unwrapping. Every command's help is now unwrapped, so
in the Commands panel of the root help, at 80 and 120 columns, no line of a command's help ends
while the next line's first word would have fitted on it.
"""

from __future__ import annotations

import re

import pytest

from tests.cli_in_process import run

_ROW = re.compile(r"^│ (?P<name>\S*)(?P<gap>\s+)(?P<text>.*?)\s*│$")


def _ragged(columns: int) -> list[str]:
    ran = run("--help", env={"COLUMNS": str(columns)})
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "Commands" in line and line.startswith("╭"))
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("╰"):
            break
        match = _ROW.match(line)
        assert match, line
        rows.append((match["name"], match["text"], line))
    # The help column: where the text starts, up to the panel's right border and its padding.
    first = rows[0][2]
    text_at = first.index(rows[0][1])
    width = len(first) - 2 - text_at  # the border and one space of padding
    found = []
    for (_, text, _line), (name, following, _next) in zip(rows, rows[1:], strict=False):
        if name or not following:
            continue  # the next command's row: this entry ended
        if len(text) + 1 + len(following.split()[0]) <= width:
            found.append(f"{text!r} / {following!r}")
    return found


@pytest.mark.parametrize("columns", [80, 120])
def test_every_command_help_flows_in_the_listing(columns: int) -> None:
    assert _ragged(columns) == []
