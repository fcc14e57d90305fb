"""`mcp-inspect --help` listed `doctor` in ragged lines ("the MCP servers in the config files" /
"of Claude Desktop, ..."): the listing kept the line breaks of doctor's docstring, which the
command table (`_KEEPS_LINES`) exempted from unwrapping. The listing now gives each command's whole
summary (`help_text.ListingGroup`: its first paragraph, re-flowed by Click), so in the Commands
section of the root help, at 80 and 60 columns, no line of a command's help ends while the next
line's first word would have fitted on it, and none is cut short with "...".
"""

from __future__ import annotations

import sys

import pytest
from typer.testing import CliRunner

from inspector.cli import root_group


def _listing(columns: int) -> tuple[list[str], int]:
    """The Commands section of `mcp-inspect --help` on a terminal of `columns` (the group `main`
    runs, in-process), and the width Click wraps it to."""
    width = max(min(columns, 80) - 2, 50)  # Click's HelpFormatter's rule
    with CliRunner().isolation() as (out, _err, _output):
        with pytest.raises(SystemExit):
            root_group().main(["--help"], prog_name="mcp-inspect", terminal_width=width)
        sys.stdout.flush()
        lines = out.getvalue().decode().splitlines()
    return lines[lines.index("Commands:") + 1 :], width


@pytest.mark.parametrize("columns", [80, 60])
def test_every_command_help_flows_in_the_listing(columns: int) -> None:
    rows, width = _listing(columns)
    assert rows and all(len(line) <= width for line in rows)
    text_at = len(rows[0]) - len(rows[0][2:].split(maxsplit=1)[1])  # where the help column starts
    found = []
    for line, following in zip(rows, rows[1:], strict=False):
        if following[:text_at].strip():
            continue  # the next command's row: this entry ended
        if len(line) + 1 + len(following.split()[0]) <= width:
            found.append(f"{line.strip()!r} / {following.strip()!r}")
    assert found == []
    assert [line for line in rows if line.endswith("...")] == []
