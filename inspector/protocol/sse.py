"""Server-Sent Events framing over bytes: chunks in, complete events (with their exact bytes) out.

Sans-IO. The HTTP proxy forwards each event's `raw` bytes as soon as the
event is complete, so the concatenation of every event's `raw` (plus what
`close()` returns) equals the stream. Lines may end in CRLF, LF or CR, as
the SSE specification allows; a CR at the end of a chunk waits for the next
chunk, since an LF may follow. Field parsing (event, data, id, retry) is
delegated to httpx-sse's decoder, which is pure; bytes go in as
`surrogateescape` text, so `data_bytes` are exactly the bytes sent even when
they are not UTF-8.

A recorded SSE row keeps the event's exact bytes (field lines and the blank
line); `stored_body` gives back the JSON-RPC part (the `data`) for readers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SSEEvent", "SSEFramer", "stored_body"]

_LINE_END = re.compile(rb"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One event: its exact bytes (blank-line terminator included) and its fields."""

    raw: bytes
    event: str  # "message" when the stream did not name it
    data: str  # as text (bytes that are not UTF-8 replaced)
    id: str | None
    retry: int | None
    complete: bool = True  # False for a trailing event cut off by the end of the stream
    data_bytes: bytes = b""  # the data field exactly as sent

    @property
    def is_comment_only(self) -> bool:
        """A keep-alive or comment block with no fields."""
        return not self.data and self.id is None and self.retry is None and self.event == "message"


class SSEFramer:
    """Splits an event stream into `SSEEvent`s."""

    __slots__ = ("_buf", "_scan", "_line_start")

    def __init__(self) -> None:
        self._buf = bytearray()
        self._scan = 0  # where to look for the next line end
        self._line_start = 0  # start of the current line within the current event

    def feed(self, data: bytes) -> list[SSEEvent]:
        """Add a chunk; return the events it completed."""
        self._buf += data
        events: list[SSEEvent] = []
        buf = self._buf
        start_of_event = 0
        pos = self._scan
        line_start = self._line_start
        while True:
            m = _LINE_END.search(buf, pos)
            if m is None:
                break
            if m.group() == b"\r" and m.end() == len(buf):
                break  # a CRLF may be split across chunks
            if m.start() == line_start:  # an empty line ends the event
                events.append(_parse(bytes(buf[start_of_event : m.end()]), complete=True))
                start_of_event = m.end()
            pos = line_start = m.end()
        if start_of_event:
            del buf[:start_of_event]
            pos -= start_of_event
            line_start -= start_of_event
        self._scan = pos
        self._line_start = line_start
        return events

    def close(self) -> list[SSEEvent]:
        """End of stream: an unterminated trailing event, if any (flagged incomplete)."""
        if not self._buf:
            return []
        raw = bytes(self._buf)
        self._buf.clear()
        self._scan = self._line_start = 0
        return [_parse(raw, complete=False)]


_TEXT_LINE_END = re.compile(r"\r\n|\r|\n")


def _text(value: str) -> str:
    """A field read as `surrogateescape` text, as ordinary text (bytes that are not UTF-8 replaced)."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _parse(raw: bytes, *, complete: bool) -> SSEEvent:
    # Imported here, not at load: the package imports httpx (and httpx its command line: click,
    # pygments), which a reader of stdio rows never needs (`store.models` imports this module).
    from httpx_sse._decoders import SSEDecoder

    decoder = SSEDecoder()
    lines = _TEXT_LINE_END.split(raw.decode("utf-8", errors="surrogateescape"))
    # A complete event ends with two line ends: drop the empty piece after the last one.
    # An incomplete one gets the blank line it never received, to dispatch it.
    lines = lines[:-1] if complete else [*lines, ""]
    event = None
    for line in lines:  # the first dispatch is the event (a stored event re-read may end in an extra CR)
        if (event := decoder.decode(line)) is not None:
            break
    if event is None:
        return SSEEvent(raw, "message", "", None, None, complete)
    data = event.data.encode("utf-8", "surrogateescape")
    return SSEEvent(
        raw,
        _text(event.event),
        data.decode("utf-8", "replace"),
        _text(event.id) or None,
        event.retry,
        complete,
        data,
    )


def stored_body(channel: str | None, raw: bytes) -> bytes:
    """The JSON-RPC part of a recorded row: an SSE event's data, any other row's raw bytes.

    SSE rows recorded before the event's framing was kept hold the data alone
    (they start with `{` or `[`, which no SSE field line does that matters here)."""
    if channel != "sse" or not raw or raw.lstrip()[:1] in (b"{", b"["):
        return raw
    framer = SSEFramer()
    events = framer.feed(raw) + framer.close()
    return events[0].data_bytes if events else b""
