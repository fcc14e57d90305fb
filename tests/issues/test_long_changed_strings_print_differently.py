"""The readable replay/diff report cut both sides of a long changed string at the same prefix.

Replaying mcp-server-time with another timezone printed `"...'Europe/London'). Use ..." =>
"...'Europe/London'). Use ..."`: both values were cut at 72 characters from their start, so a
difference past that point printed identically. Each side now shows a window around the first
difference, the same window on both sides.
"""

from __future__ import annotations

from inspector.replay.diff import Change, ExchangeDiff, SessionDiff, render_text

HEAD = "Current time in the requested zone, as the server computed it for you: " * 3


def _line(before: str, after: str) -> str:
    change = Change("result.content[0].text", "changed", before, after)
    x = ExchangeDiff("changed", "tools/call", "tools/call name=get_time", 5, 5, [change])
    text = render_text(SessionDiff([x], []))
    return next(line for line in text.splitlines() if "result.content[0].text" in line)


def test_both_sides_show_the_first_difference() -> None:
    before = HEAD + "'Europe/London'). Use the zone name to ask again." + " tail" * 40
    after = HEAD + "'Europe/Paris'). Use the zone name to ask again." + " tail" * 40
    line = _line(before, after)
    left, right = line.split(": ", 1)[1].split(" => ")
    assert left != right, line
    assert "London" in left and "Paris" in right, line
    assert left.startswith('..."') is False and left.startswith("...")  # cut before, marked
    assert len(left) <= 72 and len(right) <= 72


def test_a_difference_at_the_end_is_shown() -> None:
    line = _line(HEAD + "version 1.2.3", HEAD + "version 1.2.4")
    left, right = line.split(": ", 1)[1].split(" => ")
    assert left.endswith('1.2.3"') and right.endswith('1.2.4"'), line


def test_short_values_print_whole() -> None:
    assert _line("a", "b").endswith('"a" => "b"')
