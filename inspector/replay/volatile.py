"""Volatile values: strings that differ only in clock-like parts (sans-IO, pure).

A replay seconds or days after the recording meets values such as "created at 3:56:38 PM",
"2026-11-23T20:35:00Z", a UUID or a request counter inside an otherwise equal sentence. Two
calibration runs in the same second agree with each other on them, so calibration alone cannot
learn them. As in Diffy, a difference counts only where it exceeds the field's expected noise:
here, a string whose clock-like parts are all that changed is `volatile` (reported, not failing
unless the user asks), while any other change (a word, a bare number, a key) is a real one.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["is_volatile", "shape"]

_DAYS = "mon|monday|tue|tues|tuesday|wed|wednesday|thu|thurs|thursday|fri|friday|sat|saturday|sun|sunday"
_MONTHS = (
    "jan|january|feb|february|mar|march|apr|april|may|jun|june|jul|july|aug|august"
    "|sep|sept|september|oct|october|nov|november|dec|december"
)
_CLOCKLIKE = re.compile(
    rf"""
    [0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}  # a UUID
    | \b(?:{_DAYS}|{_MONTHS})\b                                       # day and month names, whole
    | \b[ap]\.?m\b\.?                                                # AM/PM
    | \d+(?:\.\d+)?                                                   # a number, fraction included
    """,
    re.IGNORECASE | re.VERBOSE,
)
# A number or a version ("1.2.0" -> "1.3.0" is a release, not a clock).
_BARE_NUMBER = re.compile(r"[-+v]?#(?:\.#)*", re.IGNORECASE)


def shape(text: str) -> str:
    """`text` with every clock-like part (digits, UUIDs, month/day names, AM/PM) replaced by `#`."""
    return _CLOCKLIKE.sub("#", text)


def is_volatile(before: Any, after: Any) -> bool:
    """True when two different strings have the same shape and that shape is more than a number.

    A bare number ("20.5" -> "21.5"), a version ("1.2.0") or a number outside a string is never volatile: with nothing
    around it there is nothing to say it is a clock rather than the answer itself."""
    if not isinstance(before, str) or not isinstance(after, str) or before == after:
        return False
    common = shape(before)
    return common == shape(after) and _BARE_NUMBER.fullmatch(common.strip()) is None
