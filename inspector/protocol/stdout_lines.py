"""Why a stdio server broke: what each non-JSON stdout line is, and which request a crash took down.

Sans-IO. `StdioWatch` is fed a stdio session's rows in seq order (`feed`), then `close()`d; it
gives a `Note` for each stdout line a client cannot read as one JSON-RPC message, classified in
its context (the lines around it), and a `Crash` for a stderr traceback / stack / panic after
which the server answered nothing more: tied to the requests that were in flight then and never
answered. `mcp-inspect show`, the lint rules (`lint.check`) and so the UI's message detail all
read them from here.

What the clients do is read from their stdio transports: the official Python SDK
(`mcp.client.stdio`: splits on "\\n", `jsonrpc_message_adapter.validate_json(line)`; a failure is
logged as "Failed to parse JSONRPC message from server" and sent into the session's stream as an
exception, the line dropped; a last line without "\\n" is never parsed) and the TypeScript SDK
(`shared/stdio.js` `ReadBuffer`: splits on "\\n", strips one "\\r", `JSON.parse` then the
JSON-RPC schema; a throw goes to `onerror` and the line is dropped; no "\\n", no message).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

__all__ = ["CLASSES", "Crash", "LineClass", "Note", "StdioWatch", "notes_of"]

_PY_DROPS = (
    'the Python SDK logs "Failed to parse JSONRPC message from server", hands the session an '
    "exception and drops the line"
)
_TS_DROPS = "the TypeScript SDK's JSON.parse throws, onerror fires and the line is dropped"
# Claude Desktop reads stdio with the TypeScript SDK's ReadBuffer (its logs show the stack
# `JSON.parse` < `readMessage` < `processReadBuffer`) and shows the parse error to the user.
_HOSTS = 'hosts on the TypeScript SDK, such as Claude Desktop, show "Unexpected token ... is not valid JSON"'


@dataclass(frozen=True)
class LineClass:
    """One kind of stdout line a client cannot read: what it is, what clients do, the fix."""

    id: str  # also the lint rule's id, prefixed "stdout-"
    label: str  # short, for a timeline row
    what: str
    clients: str
    fix: str

    def explain(self) -> str:
        """One paragraph: what it is, what the clients do with it, how to fix it."""
        return f"{self.what}. Clients: {self.clients}. Fix: {self.fix}."


CLASSES: dict[str, LineClass] = {
    c.id: c
    for c in (
        LineClass(
            "log-line",
            "log line",
            "A log line on stdout: stdout carries only JSON-RPC messages",
            f"{_PY_DROPS}; {_TS_DROPS}; {_HOSTS}",
            "write logs to stderr (Python: logging.basicConfig(stream=sys.stderr); "
            "Node: console.error, never console.log)",
        ),
        LineClass(
            "banner",
            "banner",
            "A start-up banner on stdout, before the first JSON-RPC message",
            f"{_PY_DROPS}; {_TS_DROPS}; {_HOSTS}",
            "print banners to stderr, or not at all when started over stdio",
        ),
        LineClass(
            "pretty-json",
            "pretty JSON",
            "One JSON message printed over several lines (pretty-printed): stdio messages are "
            "delimited by newlines and MUST NOT contain embedded newlines",
            f"every line is read as a message of its own and fails: {_PY_DROPS}; {_TS_DROPS}; "
            "the message is lost, so its request is never answered",
            "print JSON on one line (json.dumps without indent=; JSON.stringify without a space argument)",
        ),
        LineClass(
            "content-length",
            "Content-Length",
            "Content-Length framed output (LSP-style headers, a blank line, the body): MCP's stdio "
            "transport is newline-delimited JSON, with no headers",
            f"the header and blank lines fail to parse: {_PY_DROPS}; {_TS_DROPS}; a body glued to the "
            "next header is lost",
            "do not use Content-Length framing on stdio: write each message as one line ending in \\n",
        ),
        LineClass(
            "bom",
            "BOM",
            "The line starts with a UTF-8 byte order mark (EF BB BF)",
            f"the message does not parse: {_PY_DROPS}; {_TS_DROPS}",
            "strip the BOM: write UTF-8 without a BOM (e.g. Python encoding='utf-8', not 'utf-8-sig'; "
            "on Windows PowerShell set [Console]::OutputEncoding to UTF8Encoding($false))",
        ),
        LineClass(
            "crlf",
            "CRLF",
            "Lines end with CRLF (\\r\\n) instead of \\n",
            "both SDKs accept it (the Python SDK's JSON parser skips the \\r as whitespace, the "
            "TypeScript SDK strips one \\r); a stricter reader may not",
            "end each message with \\n only (Windows: write stdout in binary mode / newline='\\n')",
        ),
        LineClass(
            "partial-line",
            "no newline",
            "The last stdout line had no newline when the server exited or closed stdout",
            "both SDKs wait for the \\n and never read the line: the Python SDK drops what is left at "
            "EOF; the TypeScript SDK's ReadBuffer keeps it unread",
            "end every message with \\n and flush stdout before exiting",
        ),
    )
}


@dataclass(frozen=True)
class Note:
    """A stdout line of a class in `CLASSES`."""

    seq: int
    cls: LineClass
    detail: str = ""  # what in the line showed it (e.g. "a timestamp and a level")
    first: bool = True  # False: a later line of a pretty-printed message (told once, on its first)

    @property
    def label(self) -> str:
        return self.cls.label

    def explain(self) -> str:
        lead = f"{self.cls.what} ({self.detail})" if self.detail else self.cls.what
        return f"{lead}. Clients: {self.cls.clients}. Fix: {self.cls.fix}."

    def to_json(self) -> dict[str, str]:
        return {
            "class": self.cls.id,
            "label": self.cls.label,
            "what": self.cls.what + (f" ({self.detail})" if self.detail else ""),
            "clients": self.cls.clients,
            "fix": self.cls.fix,
        }


@dataclass(frozen=True)
class Crash:
    """A server that died after a traceback (`last_line`, on stderr row `stderr_seq`).

    `request_seq` is the request in flight then and never answered (None: no request was)."""

    stderr_seq: int
    last_line: str
    request_seq: int | None = None
    rpc_id: str | None = None
    method: str | None = None
    name: str | None = None  # a tools/call's tool, a prompts/get's prompt, a resources/read's uri

    @property
    def seq(self) -> int:
        """The row the crash is told on: the request it took down, or the traceback's last line."""
        return self.request_seq if self.request_seq is not None else self.stderr_seq

    @property
    def label(self) -> str:
        return "crashed" if self.request_seq is not None else "crash"

    def to_json(self) -> dict[str, str]:
        return {"class": "server-crashed", "label": self.label, "what": self.explain()}

    def explain(self) -> str:
        if self.request_seq is None:
            return f"the server crashed: {self.last_line} (stderr #{self.stderr_seq})"
        what = " ".join(p for p in (self.method, self.name) if p)
        return (
            f"the server crashed while handling request id {self.rpc_id} ({what}): {self.last_line} "
            f"(stderr #{self.stderr_seq})"
        )


_BOM = b"\xef\xbb\xbf"
_HEADER = re.compile(rb"^(content-length|content-type)\s*:", re.IGNORECASE)
_TIMESTAMP = re.compile(rb"^\W{0,2}(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\d{2}:\d{2}:\d{2})")
_LEVEL = re.compile(
    rb"^\W{0,2}(\w+[:\s]+){0,3}\W?(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL)\b",
    re.IGNORECASE,
)
_JSON_LOG_KEYS = frozenset({"level", "levelname", "severity", "msg", "message", "time", "timestamp"})
_NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
_BLOCK_LINES = 10_000  # a pretty-printed message longer than this is told line by line
_BLOCK_BYTES = 4 << 20


def _body(raw: bytes) -> bytes:
    return raw.rstrip(b"\n").rstrip(b"\r")


_NOT_JSON = object()
_NONE: tuple[Note, ...] = ()


def _json(body: bytes) -> object:
    """The line's JSON value, or `_NOT_JSON`."""
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return _NOT_JSON


def _log_detail(value: object, body: bytes = b"") -> str | None:
    """Why a line reads as a log line, or None: its JSON `value` (a structured log record), or its
    text `body` (a timestamp or a level)."""
    if isinstance(value, dict):
        if "jsonrpc" not in value and len(_JSON_LOG_KEYS & value.keys()) >= 2:
            return "a structured (JSON) log record"
        return None
    if _TIMESTAMP.match(body):
        return "it starts with a timestamp"
    if _LEVEL.match(body):
        return "it carries a log level"
    return None


def _request(raw: bytes) -> tuple[str | None, str | None, str | None]:
    """A request's id, method and the name it is about (`_NAMED`)."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None, None, None
    if not isinstance(value, dict):
        return None, None, None
    method, params = value.get("method"), value.get("params")
    key = _NAMED.get(method) if isinstance(method, str) else None
    name = params.get(key) if key and isinstance(params, dict) else None
    return (
        _text(orjson.dumps(value.get("id")), 40),
        _text(method.encode(), 80) if isinstance(method, str) else None,
        _text(str(name).encode(), 80) if name is not None else None,
    )


def _text(raw: bytes, limit: int = 200) -> str:
    text = raw.decode("utf-8", "replace").strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


class StdioWatch:
    """A stdio session's rows in, `Note`s and `Crash`es out (see the module)."""

    def __init__(self) -> None:
        self._seen_message = False  # a JSON-RPC message on stdout so far
        self._crlf_told = False
        self._headers = 0  # 1: Content-Length headers seen, 2: their blank line too (the body is next)
        self._block: list[tuple[int, bytes, bool]] = []  # a pretty-printed message so far
        self._block_size = 0
        self._pending: dict[int, bytes] = {}  # request seq -> its bytes (read only if a crash took it down)
        self._crashes: list[tuple[int, str, tuple[int, ...]]] = []  # (stderr seq, last line, in flight)
        self._stderr_state = ""  # "py": inside a Python traceback; "node": inside a stack
        self._stderr_prev = b""
        self._stdout_after: int | None = None  # stdout rows seen since the last traceback

    def feed(
        self,
        seq: int,
        direction: str,
        channel: str,
        raw: bytes | None,
        kind: str | None,
        answers_seq: int | None = None,
        no_newline: bool = False,
    ) -> Sequence[Note]:
        """The next row of the session; the notes it settles (maybe of earlier lines)."""
        if channel == "stderr":
            if raw is not None:
                self._stderr(seq, raw)
            return _NONE
        if direction == "c2s":
            if kind == "request" and raw is not None:
                self._pending[seq] = raw
            return _NONE
        if channel != "stdout" or raw is None:
            return _NONE
        if answers_seq is not None:
            self._pending.pop(answers_seq, None)
        if self._stdout_after is not None:
            self._stdout_after += 1
        ok = kind != "invalid" and kind != "log"
        if ok and not no_newline and not self._block and (self._crlf_told or raw[-2:-1] != b"\r"):
            # A message on its own line (nearly every row): nothing to tell, little to learn.
            self._seen_message = True
            self._headers = 0
            return _NONE
        return self._stdout(seq, raw, ok, no_newline)

    def close(self) -> list[Note | Crash]:
        """End of the session: the lines still held, and the crashes."""
        out: list[Note | Crash] = list(self._flush_block())
        if self._crashes and not self._stdout_after:
            stderr_seq, last, in_flight = self._crashes[-1]
            dead = [s for s in in_flight if s in self._pending]
            if not dead:
                out.append(Crash(stderr_seq, last))
            for s in dead:
                out.append(Crash(stderr_seq, last, s, *_request(self._pending[s])))
        return out

    def _stderr(self, seq: int, raw: bytes) -> None:
        body = _body(raw)
        state, prev = self._stderr_state, self._stderr_prev
        self._stderr_prev = body
        if body.startswith(b"Traceback (most recent call last):"):
            self._stderr_state = "py"
            return
        if state == "py":
            if body[:1] in (b" ", b"\t") or not body:
                return
            self._stderr_state = ""
            self._crash(seq, body)
            return
        if body.lstrip().startswith(b"at ") and body[:1] in (b" ", b"\t"):
            if state != "node":
                self._stderr_state = "node"
                self._crash(seq, prev.strip() or body)
            return
        self._stderr_state = ""
        if body.startswith(b"panic:") or (body.startswith(b"thread '") and b"panicked at" in body):
            self._crash(seq, body)

    def _crash(self, seq: int, last: bytes) -> None:
        self._crashes.append((seq, _text(last), tuple(self._pending)))
        self._stdout_after = 0

    def _stdout(self, seq: int, raw: bytes, ok: bool, no_newline: bool) -> list[Note]:
        body = _body(raw)
        if self._block:
            if not ok and len(self._block) < _BLOCK_LINES and self._block_size < _BLOCK_BYTES:
                self._block.append((seq, raw, no_newline))
                self._block_size += len(raw)
                if body.strip()[-1:] in (b"}", b"]"):
                    try:
                        orjson.loads(b"".join(_body(r) for _, r, _ in self._block))
                    except orjson.JSONDecodeError:
                        return []
                    cls = CLASSES["pretty-json"]
                    lines = f"lines #{self._block[0][0]} to #{seq}"
                    notes = [Note(s, cls, lines, i == 0) for i, (s, _, _) in enumerate(self._block)]
                    self._block.clear()
                    self._seen_message = True
                    return notes
                return []
            notes = self._flush_block()
            return notes + self._stdout(seq, raw, ok, no_newline)
        if ok:
            self._headers = 0
            self._seen_message = True
            if no_newline:
                return [Note(seq, CLASSES["partial-line"])]
            if raw.endswith(b"\r\n") and not self._crlf_told:
                self._crlf_told = True
                return [Note(seq, CLASSES["crlf"], "the first such line; later ones are not told")]
            return []
        value = _json(body)
        if value is not _NOT_JSON:
            # JSON but no JSON-RPC message (`invalid-jsonrpc` says what is wrong): unless a log record
            detail = _log_detail(value)
            return [Note(seq, CLASSES["log-line"], detail)] if detail else []
        if body.lstrip()[:1] in (b"{", b"[") and not no_newline and _log_detail(None, body) is None:
            self._block.append((seq, raw, no_newline))
            self._block_size = len(raw)
            return []
        note = self._one(seq, raw, no_newline)
        return [note] if note is not None else []

    def _flush_block(self) -> list[Note]:
        """A block that never became one JSON value: its lines told one by one."""
        block, self._block = self._block, []
        first = True
        notes = []
        for seq, raw, no_newline in block:
            if (note := self._one(seq, raw, no_newline, broken_json=first)) is not None:
                notes.append(note)
            first = False
        return notes

    def _one(self, seq: int, raw: bytes, no_newline: bool, *, broken_json: bool = False) -> Note | None:
        """The note of a line that is not JSON, told by itself."""
        body = _body(raw)
        if body.startswith(_BOM):
            return Note(seq, CLASSES["bom"])
        if _HEADER.match(body):
            self._headers = 1
            return Note(seq, CLASSES["content-length"], "a header line")
        if self._headers:
            if not body.strip() and self._headers == 1:
                self._headers = 2
                return Note(seq, CLASSES["content-length"], "the blank line after the headers")
            if self._headers == 2 or b"Content-Length:" in body:
                self._headers = 1 if b"Content-Length:" in body else 0
                return Note(seq, CLASSES["content-length"], "a body without its newline")
        if b"Content-Length:" in body:
            return Note(seq, CLASSES["content-length"], "a body glued to the next header")
        looks_json = broken_json or body.lstrip()[:1] in (b"{", b"[")
        if no_newline and looks_json:
            return Note(seq, CLASSES["partial-line"], "cut off at exit")
        detail = _log_detail(None, body)
        if detail is not None:
            return Note(seq, CLASSES["log-line"], detail)
        if looks_json:
            return None  # a broken message, not another kind of line: `malformed-json` tells it
        if not self._seen_message:
            return Note(seq, CLASSES["banner"], "an empty line" if not body.strip() else "")
        return Note(seq, CLASSES["log-line"], "an empty line" if not body.strip() else "plain text")


def notes_of(rows: Iterable[Any]) -> dict[int, list[Note | Crash]]:
    """Every note and crash of a session's rows (in seq order; objects with the message columns as
    attributes, e.g. `store.models.Message`), by the seq each is told on."""
    watch = StdioWatch()
    out: dict[int, list[Note | Crash]] = {}
    found: list[Note | Crash] = []
    for m in rows:
        if m.channel in ("stdin", "stdout", "stderr"):
            flags = m.meta.get("flags") if isinstance(m.meta, dict) else None
            no_newline = bool(flags and "no-newline" in flags)
            found.extend(watch.feed(m.seq, m.direction, m.channel, m.raw, m.kind, m.answers_seq, no_newline))
    found.extend(watch.close())
    for note in found:
        out.setdefault(note.seq, []).append(note)
    return out
