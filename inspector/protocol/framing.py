"""NDJSON framing for the stdio transport: byte chunks in, complete lines out.

Sans-IO. A chunk may end anywhere (inside a UTF-8 sequence, between CR and
LF, in the middle of a 20 MB line); the framer keeps what it has not yet
framed and never limits line length, because a limit would make the
inspector behave differently from a plain pipe.

Each `Line` keeps its terminator so the concatenation of every line's `raw`
equals the byte stream exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Line", "LineFramer"]


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
        lines: list[Line] = []
        start = 0
        find = data.find
        while True:
            nl = find(b"\n", start)
            if nl < 0:
                break
            piece = data[start : nl + 1]
            if self._parts:
                self._parts.append(piece)
                raw = b"".join(self._parts)
                self._parts.clear()
                self._pending = 0
            else:
                raw = piece
            terminator = b"\r\n" if len(raw) >= 2 and raw[-2] == 13 else b"\n"
            lines.append(Line(raw, terminator))
            start = nl + 1
        if start < len(data):
            rest = data[start:] if start else data
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
