"""NDJSON framing for the stdio transport: byte chunks in, complete lines out.

Sans-IO. A chunk may end anywhere (inside a UTF-8 sequence, between CR and
LF, in the middle of a 20 MB line); the framer keeps what it has not yet
framed and never limits line length, because a limit would make the
inspector behave differently from a plain pipe.

Each `Line` keeps its terminator so the concatenation of every line's `raw`
equals the byte stream exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Line", "LineFramer"]

_LINE = re.compile(rb"[^\n]*\n")  # one line, its terminator included


@dataclass(frozen=True, slots=True)
class Line:
    """One framed line: `raw` is exactly what arrived, terminator included."""

    raw: bytes
    terminator: bytes  # b"\n", b"\r\n", or b"" for a partial last line at EOF

    @property
    def body(self) -> bytes:
        """The line without its terminator."""
        return self.raw[: len(self.raw) - len(self.terminator)] if self.terminator else self.raw


class LineFramer:
    """Turns arbitrarily split chunks into `Line`s."""

    __slots__ = ("_parts", "_pending")

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._pending = 0

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a complete line."""
        return self._pending

    def feed(self, data: bytes) -> list[Line]:
        """Add a chunk; return the lines it completed, in order."""
        return [Line(raw, b"\r\n" if raw.endswith(b"\r\n") else b"\n") for raw in self.split(data)]

    def split(self, data: bytes) -> list[bytes]:
        """Add a chunk; return the raw bytes (terminator included) of the lines it completed.

        The recorder's hot path: the lines are cut in C (`re.findall`), with no
        `Line` object per line."""
        end = data.rfind(b"\n") + 1
        if not end:
            if data:
                self._parts.append(data)
                self._pending += len(data)
            return []
        lines = _LINE.findall(data, 0, end)
        if self._parts:
            self._parts.append(lines[0])
            lines[0] = b"".join(self._parts)
            self._parts.clear()
            self._pending = 0
        if end < len(data):
            rest = data[end:]
            self._parts.append(rest)
            self._pending += len(rest)
        return lines

    def close(self) -> list[Line]:
        """End of stream: return the partial last line, if any."""
        if not self._parts:
            return []
        raw = b"".join(self._parts)
        self._parts.clear()
        self._pending = 0
        return [Line(raw, b"")]
