"""Text that is safe to put on a terminal.

Whatever a recorded server, an imported session file or another local user controls is
hostile: a server name, a tool name or a stderr line holding ``ESC ]52;c;...`` would write the
user's clipboard when printed raw, ``ESC [2J`` clears the screen, ``ESC ]0;...BEL`` retitles the
window. Every such string passes through :func:`visible` on its way to a terminal: C0 and C1
control characters and DEL become visible escapes (``\\x1b``, ``\\x9b``, ``\\x7f``), so what the
server sent is still readable and nothing is executed. :func:`markup_safe` also escapes Rich's
markup brackets, for the places that build markup strings around recorded values.
:func:`visible_json` is the JSON output modes' part: JSON escaping already shows C0 controls,
and it writes DEL and C1 as ``\\u`` escapes too (the same document, still valid JSON).

Pure functions over ``str``: no IO.
"""

from __future__ import annotations

import re

__all__ = ["markup_safe", "visible", "visible_json"]

# C0 (0x00-0x1f), DEL (0x7f) and C1 (0x80-0x9f). Tab and newline are kept only when asked.
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROLS_BUT_LAYOUT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_DEL_AND_C1 = re.compile(r"[\x7f-\x9f]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or f"\\x{ord(char):02x}"


def visible(text: object, *, keep_layout: bool = False) -> str:
    """`text` with every control character shown as a visible escape.

    `keep_layout=True` keeps tab and newline (for multi-line blocks such as a pretty-printed
    body or a traceback on stderr); carriage return is always escaped, since it lets a line
    overwrite what was printed before it.
    """
    s = text if isinstance(text, str) else str(text)
    pattern = _CONTROLS_BUT_LAYOUT if keep_layout else _CONTROLS
    if pattern.search(s) is None:  # the common case: nothing to do, no copy
        return s
    return pattern.sub(_escape, s)


def markup_safe(text: object, *, keep_layout: bool = False) -> str:
    """`visible(text)` with Rich markup escaped, for recorded values placed inside markup."""
    from rich.markup import escape  # Rich's own rule for what reads as a tag

    return escape(visible(text, keep_layout=keep_layout))


def visible_json(document: str) -> str:
    """A JSON document (as orjson or json.dumps wrote it) with DEL and C1 characters as `\\u`
    escapes. JSON escapes C0 controls itself; DEL and C1 may appear raw, and only inside strings,
    where `\\u009b` means the same character: the document decodes to the same value."""
    if _DEL_AND_C1.search(document) is None:
        return document
    return _DEL_AND_C1.sub(lambda m: f"\\u{ord(m.group()):04x}", document)
