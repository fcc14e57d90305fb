"""`inspector.help_text.unwrap`: paragraphs become single lines; list items and indents stay lines."""

from inspector.help_text import unwrap


def test_unwrap_joins_paragraph_lines_and_keeps_lists() -> None:
    text = """First line
    goes on.

    Second paragraph,
    wrapped in the source.

    Modes:
    - none: play
      only
    - all: forward
    """
    assert unwrap(text) == (
        "First line goes on.\n\nSecond paragraph, wrapped in the source.\n\n"
        "Modes:\n- none: play\n  only\n- all: forward"
    )
