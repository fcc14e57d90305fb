"""The text report of a `SessionDiff` (the JSON report is `SessionDiff.to_json`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from inspector.protocol.json_depth import DEEP_NOTE
from inspector.replay.diff.ignore import DEFAULT_IGNORE
from inspector.replay.diff.model import _STATUSES, Change, ExchangeDiff, SessionDiff
from inspector.replay.diff.tree import _canon
from inspector.terminal_text import visible

if TYPE_CHECKING:
    pass


_MARK = {"equal": "=", "changed": "~", "missing": "-", "extra": "+"}
_ARROW = {"c2s": "->", "s2c": "<-"}


def _value_text(value: Any, width: int = 72) -> str:
    text = _canon(value) if not isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."


def _first_difference(a: str, b: str) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def _window(text: str, at: int, width: int) -> str:
    """`width` characters of `text` around index `at`, with `...` where it was cut."""
    if len(text) <= width:
        return text
    start = max(0, min(at - width // 3, len(text) - width))
    end = start + width
    head = "..." if start > 0 else ""
    tail = "..." if end < len(text) else ""
    body = text[start + len(head) : end - len(tail)]
    return head + body + tail


def _pair_text(before: Any, after: Any, width: int = 72) -> tuple[str, str]:
    """Both sides of a change, cut around their first difference so the two never print the same."""
    a, b = _value_text(before, 10**9), _value_text(after, 10**9)
    if len(a) <= width and len(b) <= width:
        return a, b
    # Both windows start at the same place, a third of a width before the first differing character.
    at = _first_difference(a, b)
    return _window(a, at, width), _window(b, at, width)


def _change_text(c: Change) -> str:
    if c.path.startswith("notifications[") and c.path.endswith("]") and isinstance(c.before, int):
        return f"{c.path}: {c.before} => {c.after} received"  # a count, whatever the kind
    if c.kind == "added":
        return f"{c.path}: added {_value_text(c.after)}"
    if c.kind == "removed":
        return f"{c.path}: removed (was {_value_text(c.before)})"
    deep = [isinstance(v, str) and v.startswith(DEEP_NOTE) for v in (c.before, c.after)]
    if any(deep):  # a subtree past the parse depth limit (`json_depth`): compared as its text
        a, b = (
            v[len(DEEP_NOTE) :] if d else _value_text(v, 10**9)
            for v, d in zip((c.before, c.after), deep, strict=True)
        )
        at = _first_difference(a, b)
        return f"{c.path}: {DEEP_NOTE}{_window(a, at, 72)} => {_window(b, at, 72)}"
    before, after = _pair_text(c.before, c.after)
    return f"{c.path}: {before} => {after}" + ("  (volatile)" if c.volatile else "")


def _seqs_text(x: ExchangeDiff) -> str:
    if x.original_seq is not None and x.replay_seq is not None:
        return f"#{x.original_seq} / #{x.replay_seq}"
    if x.original_seq is not None:
        return f"#{x.original_seq}, not in replay"
    return f"#{x.replay_seq}, only in replay"


def _ignored_text(ignored: Sequence[str], verbose: bool) -> str:
    if verbose:
        return f"ignored paths ({len(ignored)}): {', '.join(ignored) or 'none'}"
    defaults = set(DEFAULT_IGNORE)
    own = [p for p in ignored if p not in defaults]
    n = len(ignored) - len(own)
    text = f"ignored paths: {n} default ignores, --verbose to list"
    return text + (f"; also: {', '.join(own)}" if own else "")


def render_text(diff: SessionDiff, *, show_equal: bool = False, verbose: bool = False) -> str:
    """A readable plain-text report: the counts, then each exchange that differs and its paths.

    The default ignore patterns are counted, not listed, unless `verbose`.
    """
    c = diff.counts()
    total = sum(c[s] for s in _STATUSES)
    lines = [
        f"{total} exchange{'' if total == 1 else 's'}: {c['equal']} equal, {c['changed']} changed, "
        f"{c['missing']} missing, {c['extra']} extra"
    ]
    if c["volatile"]:
        how = "counted as changed (--strict-volatile)" if diff.strict_volatile else "not counted as changed"
        lines.append(f"{c['volatile']} changed only in volatile values (times, ids, counters): {how}")
    touched = sum(bool(x.interventions) for x in diff.exchanges)
    if touched:
        lines.append(
            f"{touched} {'exchange was' if touched == 1 else 'exchanges were'} intervened on when recorded:"
            " compared as the server"
            " received and sent them, not as the client saw them"
        )
    for x in diff.exchanges:
        if x.status == "equal" and not show_equal and not x.interventions:
            continue
        arrow = _ARROW.get(x.direction, "  ")
        status = "volatile" if x.volatile_only else x.status
        mark = "?" if x.volatile_only else _MARK[x.status]
        lines.append(f"{mark} {status:<7} {arrow} {x.summary}  ({_seqs_text(x)})")
        lines.extend(f"      intervened: {text} (not the server)" for text in x.interventions)
        lines.extend(f"      {_change_text(ch)}" for ch in x.changes)
    lines.append(_ignored_text(diff.ignored, verbose))
    lines.append("behaviour changed" if diff.changed else "behaviour unchanged")
    # Summaries and paths hold recorded names: each line with its control characters shown.
    return "\n".join(map(visible, lines))
