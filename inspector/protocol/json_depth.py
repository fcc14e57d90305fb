"""JSON parsed with a depth limit: what nests deeper than `MAX_DEPTH` is kept as its text.

A recorded or imported body can nest as deep as its sender likes. Python walks
(the diff's, the replay's substitutions) recurse, orjson refuses to parse past
1,024 levels and to serialise past 254, so one deep body used to end a diff, a
replay or an HTML export with a traceback. `loads` parses a body as orjson does
(same values, same `orjson.JSONDecodeError` for what is not JSON) except that a
container opening deeper than `MAX_DEPTH` becomes one string: `DEEP_NOTE`
followed by that container's exact text. Readers then see a value they can
compare and print: two deep bodies differ where their texts differ.

The check costs two byte counts for a body with fewer brackets than the limit
(nearly all), and a scan without Python recursion for the others. No IO.
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any

import orjson

__all__ = ["DEEP_NOTE", "MAX_DEPTH", "depth", "loads"]

MAX_DEPTH = 200
DEEP_NOTE = f"(nested deeper than {MAX_DEPTH} levels, kept as JSON text) "

_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRINGS = re.compile(_STRING, re.S)
_TOKENS = re.compile(_STRING + rb"|[\[\]{}]", re.S)
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1


def _bytes(body: bytes | bytearray | memoryview | str) -> bytes | bytearray:
    if isinstance(body, str):
        return body.encode("utf-8", "surrogatepass")
    if isinstance(body, memoryview):
        return body.tobytes()
    return body


def depth(body: bytes | bytearray | memoryview | str) -> int:
    """How deep the body's containers nest (brackets inside strings do not count)."""
    bare = _STRINGS.sub(b"", _bytes(body)).translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, bare)), default=0)


def loads(body: bytes | bytearray | memoryview | str) -> Any:
    """`orjson.loads(body)`, with what nests deeper than `MAX_DEPTH` as `DEEP_NOTE` + its text."""
    data = _bytes(body)
    if data.count(b"[") + data.count(b"{") <= MAX_DEPTH or depth(data) <= MAX_DEPTH:
        return orjson.loads(data)
    return orjson.loads(_clipped(data))


def _clipped(data: bytes | bytearray) -> bytes:
    """`data` with each container opening at level `MAX_DEPTH + 1` replaced by a JSON string."""
    out: list[bytes] = []
    last, level, start = 0, 0, -1
    for m in _TOKENS.finditer(data):
        c = data[m.start()]
        if c == 0x22:  # a string: its brackets are text
            continue
        if c in (0x5B, 0x7B):
            level += 1
            if level == MAX_DEPTH + 1:
                start = m.start()
            continue
        if level == MAX_DEPTH + 1 and start >= 0:
            text = bytes(data[start : m.end()]).decode("utf-8", "replace")
            out += [bytes(data[last:start]), orjson.dumps(DEEP_NOTE + text)]
            last, start = m.end(), -1
        level -= 1
    out.append(bytes(data[last:]))  # an unclosed container stays as it was: not JSON, and said so
    return b"".join(out)
