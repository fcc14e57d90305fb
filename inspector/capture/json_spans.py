"""Byte spans of the values in a JSON document, found by their key path.

Redaction replaces a secret's text in place and keeps every other byte of
the stored body (whitespace, key order, number spelling), so it needs to
know where a value starts and ends; parsers return values, not positions.
This is a small scanner over a document that is already known to be valid
JSON (the caller parsed it first): it walks tokens with an explicit stack
(no recursion, so depth is no limit) and asks `want(path)` at each value of
an object member. Array levels are transparent in paths: a JSON-RPC batch
`[{"params": ...}]` has the same paths as a single message.

No IO.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import orjson

__all__ = ["Want", "value_spans"]

# What `want` answers for a path: None, or (name, strings_only).
Want = Callable[[tuple[str, ...]], "tuple[str, bool] | None"]

_WS = re.compile(rb"[ \t\r\n]*")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_SCALAR = re.compile(rb"[^ \t\r\n,\]}]+")


def value_spans(data: bytes, want: Want, start: int = 0) -> list[tuple[int, int, str]]:
    """(start, end, name) of each wanted value, in document order; a wanted value is not entered."""
    out: list[tuple[int, int, str]] = []
    stack: list[bool] = []  # True: an object, False: an array
    keys: list[str] = []  # key of each enclosing object member
    wanted: tuple[int, int, str] | None = None  # (stack depth, start, name) of a wanted container
    i = _WS.match(data, start).end()  # type: ignore[union-attr]
    n = len(data)
    expect_key = False
    while i < n:
        c = data[i]
        if expect_key:  # after `{` or `,` in an object: a key, or `}` of an empty object
            if c == 0x7D:
                expect_key = False
                continue
            m = _STRING.match(data, i)
            if m is None:
                raise ValueError(f"not a key at byte {i}")
            text = m.group()
            keys.append(orjson.loads(text) if b"\\" in text else text[1:-1].decode("utf-8", "replace"))
            i = _WS.match(data, m.end()).end()  # type: ignore[union-attr]
            if i >= n or data[i] != 0x3A:
                raise ValueError(f"no ':' at byte {i}")
            i = _WS.match(data, i + 1).end()  # type: ignore[union-attr]
            expect_key = False
            continue
        if c in (0x2C, 0x7D, 0x5D):  # `,` `}` `]`
            if c == 0x2C:
                expect_key = bool(stack) and stack[-1]
                i = _WS.match(data, i + 1).end()  # type: ignore[union-attr]
                continue
            stack.pop()
            i += 1
            if wanted is not None and len(stack) == wanted[0]:
                out.append((wanted[1], i, wanted[2]))
                wanted = None
            i = _value_done(data, i, stack, keys)
            continue
        # a value starts here
        hit = want(tuple(keys)) if wanted is None and stack and stack[-1] else None
        if hit is not None and hit[1] and c != 0x22:
            hit = None  # only string values are wanted at this path
        if c in (0x7B, 0x5B):  # `{` `[`
            if hit is not None:
                wanted = (len(stack), i, hit[0])
            stack.append(c == 0x7B)
            i = _WS.match(data, i + 1).end()  # type: ignore[union-attr]
            expect_key = c == 0x7B
            continue
        m = (_STRING if c == 0x22 else _SCALAR).match(data, i)
        if m is None:
            raise ValueError(f"not a value at byte {i}")
        if hit is not None:
            out.append((i, m.end(), hit[0]))
        i = _value_done(data, m.end(), stack, keys)
    return out


def _value_done(data: bytes, i: int, stack: list[bool], keys: list[str]) -> int:
    """A value ended at `i`: leave its object member, skip whitespace."""
    if stack and stack[-1]:
        keys.pop()
    return _WS.match(data, i).end()  # type: ignore[union-attr]
