"""NDJSON framing for the stdio transport: byte chunks in, complete lines out.

Sans-IO. A chunk may end anywhere (inside a UTF-8 sequence, between CR and
LF, in the middle of a 20 MB line); the framer keeps what it has not yet
framed. Line length is never limited on the wire (the transports forward
bytes, not lines): `cap` only bounds what the framer *keeps* of one line
for the record. Past it, a line's first `cap` bytes are kept and the rest
only counted and hashed, so a multi-GB line costs `cap` bytes of memory,
not its size; the line comes out as a `Cut` (its prefix, original size and
SHA-256).

Each `Line` keeps its terminator so the concatenation of every line's `raw`
equals the byte stream exactly (a cut line's `raw` is its prefix).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inspector.flow import TruncatedMeta

__all__ = ["Capped", "Cut", "Line", "LineFramer"]

_LINE = re.compile(rb"[^\n]*\n")  # one line, its terminator included


@dataclass(frozen=True, slots=True)
class Cut:
    """A line (or body) longer than the cap: what the record keeps of it."""

    size: int  # the whole line's size, terminator included
    sha256: str  # hex digest of the whole line

    def meta(self, kept: int) -> TruncatedMeta:
        """The row's `meta.truncated`."""
        return {"size": self.size, "kept": kept, "sha256": self.sha256}


@dataclass(frozen=True, slots=True)
class Line:
    """One framed line: `raw` is exactly what arrived, terminator included (a cut line: its prefix)."""

    raw: bytes
    terminator: bytes  # b"\n", b"\r\n", or b"" for a partial last line at EOF (and for a cut line)
    cut: Cut | None = None

    @property
    def body(self) -> bytes:
        """The line without its terminator."""
        return self.raw[: len(self.raw) - len(self.terminator)] if self.terminator else self.raw


class Capped:
    """One message as it arrives, kept up to `cap` bytes: the rest is only counted and hashed.

    The one implementation of the record's cap: the line framer uses it for a line past the cap,
    the HTTP proxy for a body it streams through (`add` each chunk, `done` at the end)."""

    __slots__ = ("_digest", "_parts", "_size", "cap", "kept")

    def __init__(self, cap: int, parts: list[bytes] | None = None, kept: int = 0) -> None:
        self.cap = cap
        self._parts: list[bytes] = parts if parts is not None else []
        self.kept = kept  # bytes in `_parts`
        self._digest: hashlib._Hash | None = None  # past the cap: the hash of everything so far
        self._size = 0

    @property
    def size(self) -> int:
        """Bytes seen so far."""
        return self._size if self._digest is not None else self.kept

    def add(self, data: bytes) -> None:
        digest = self._digest
        if digest is None:
            if self.kept + len(data) <= self.cap:
                self._parts.append(data)
                self.kept += len(data)
                return
            room = self.cap - self.kept
            self._parts.append(data[:room])
            prefix = b"".join(self._parts)
            self._parts = [prefix]
            self.kept = len(prefix)
            digest = self._digest = hashlib.sha256(prefix)
            self._size = len(prefix)
            data = data[room:]
        digest.update(data)
        self._size += len(data)

    def done(self, tail: bytes = b"") -> tuple[bytes, Cut | None]:
        """The whole message has arrived (with `tail`): what is kept of it, and its `Cut` if it was cut."""
        if tail:
            self.add(tail)
        kept = self._parts[0] if len(self._parts) == 1 else b"".join(self._parts)
        self._parts = []
        digest, self._digest = self._digest, None
        return kept, (Cut(self._size, digest.hexdigest()) if digest is not None else None)


class LineFramer:
    """Turns arbitrarily split chunks into `Line`s, keeping at most `cap` bytes of any one line."""

    __slots__ = ("_cap", "_long", "_parts", "_pending", "cuts")

    def __init__(self, cap: int | None = None) -> None:
        self._parts: list[bytes] = []
        self._pending = 0
        self._cap = cap if cap is not None else 1 << 62
        self._long: Capped | None = None  # the line in progress, once past the cap
        # Set by `split` when lines it returned were cut: their index in that list -> `Cut`; None
        # otherwise (the caller tests it once per chunk, not each line).
        self.cuts: dict[int, Cut] | None = None

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a complete line (counted, if past the cap)."""
        return self._long.size if self._long is not None else self._pending

    def feed(self, data: bytes) -> list[Line]:
        """Add a chunk; return the lines it completed, in order."""
        raws = self.split(data)
        cuts = self.cuts or {}
        return [
            Line(raw, b"", cuts[i]) if i in cuts else Line(raw, b"\r\n" if raw.endswith(b"\r\n") else b"\n")
            for i, raw in enumerate(raws)
        ]

    def split(self, data: bytes) -> list[bytes]:
        """Add a chunk; return the raw bytes (terminator included) of the lines it completed.

        The recorder's hot path: the lines are cut in C (`re.findall`), with no
        `Line` object per line. Lines past the cap are listed in `cuts` (until the next call)."""
        self.cuts = None
        end = data.rfind(b"\n") + 1
        if not end:
            if data:
                if self._long is not None or self._pending + len(data) > self._cap:
                    self._grow(data)
                else:
                    self._parts.append(data)
                    self._pending += len(data)
            return []
        lines = _LINE.findall(data, 0, end)
        if self._long is not None:
            lines[0] = self._finish(lines[0])
        elif self._parts:
            if self._pending + len(lines[0]) > self._cap:
                self._grow(lines[0])
                lines[0] = self._finish(b"")
            else:
                self._parts.append(lines[0])
                lines[0] = b"".join(self._parts)
                self._parts.clear()
                self._pending = 0
        if end > self._cap:  # one length check a chunk: only a chunk larger than the cap holds such lines
            for i, line in enumerate(lines):
                if len(line) > self._cap and not (i == 0 and self.cuts):
                    long = Capped(self._cap)
                    long.add(line)
                    lines[i], cut = long.done()
                    self.cuts = {**(self.cuts or {}), i: cut}  # type: ignore[dict-item]
        if end < len(data):
            rest = data[end:]
            if len(rest) > self._cap:
                self._grow(rest)
            else:
                self._parts.append(rest)
                self._pending += len(rest)
        return lines

    def _grow(self, data: bytes) -> None:
        """More of a line that is (or now goes) past the cap."""
        if self._long is None:
            self._long = Capped(self._cap, self._parts, self._pending)
            self._parts, self._pending = [], 0
        self._long.add(data)

    def _finish(self, tail: bytes) -> bytes:
        """The cut line is complete with `tail`: return its kept prefix, note its `Cut` as line 0."""
        assert self._long is not None
        kept, cut = self._long.done(tail)
        self._long = None
        if cut is not None:
            self.cuts = {0: cut}
        return kept

    def close(self) -> list[Line]:
        """End of stream: return the partial last line, if any."""
        if self._long is not None:
            raw = self._finish(b"")
            cuts, self.cuts = self.cuts, None
            return [Line(raw, b"", cuts[0] if cuts else None)]
        if not self._parts:
            return []
        raw = b"".join(self._parts)
        self._parts.clear()
        self._pending = 0
        return [Line(raw, b"")]
