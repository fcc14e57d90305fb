"""The session file format (`.mcp.jsonl`): sans-IO encoding and decoding of its lines.

One JSON object per line, keys sorted, so a file diffs well in git:

    {"format": "mcp-inspector-session", "version": 1}
    {"type": "session", "ref": 1, "parent_ref": null, "kind": "stdio-wrap", ...}
    {"type": "message", "session": 1, "seq": 1, "raw": "{\"jsonrpc\": ...}\\n", ...}

A session line carries every column of the session but its database id:
`ref` numbers the file's sessions from 1 and `parent_ref` points at another
session of the same file (null when the parent was not exported). Message
lines follow their session's line with every column but the ids; `raw` holds
the exact bytes as text, or `raw_base64` when they are not valid UTF-8. What
the recording holds is what the file holds: secrets are placeholders already.

`encode_*` build lines from stored rows; `Reader` checks and decodes lines
one at a time (a bad line is a `FileFormatError` naming its line number).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, cast, get_args, get_type_hints

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from inspector.errors import FileFormatError
from inspector.store.column_types import (
    JSON_COLUMN_SHAPES,
    JSON_COLUMN_TYPES,
    Int64,
    LabelsColumn,
    ObjectColumn,
    TargetColumn,
)
from inspector.store.models import ROW_COLUMNS, MessageRow

__all__ = [
    "FORMAT",
    "VERSION",
    "MessageLine",
    "Reader",
    "SessionLine",
    "encode_header",
    "encode_message",
    "encode_session",
]

FORMAT = "mcp-inspector-session"
VERSION = 1
SUFFIX = ".mcp.jsonl"

# The session columns a file carries (all but `id` and `parent_id`, which are the database's).
SESSION_FIELDS = (
    "name",
    "kind",
    "target",
    "status",
    "started_ns",
    "ended_ns",
    "exit_status",
    "end_reason",
    "era",
    "offered_version",
    "protocol_version",
    "client_info",
    "server_info",
    "client_capabilities",
    "server_capabilities",
    "facts",
    "labels",
    "message_count",
    "host",
    "pid",
)
_MESSAGE_FIELDS = tuple(c for c in ROW_COLUMNS if c not in ("session_id", "raw"))
_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE


def encode_header() -> bytes:
    return orjson.dumps({"format": FORMAT, "version": VERSION}, option=_OPTIONS)


def encode_session(session: dict[str, Any], ref: int, parent_ref: int | None) -> bytes:
    """A session line from a session's columns (as `Session.to_json` gives them)."""
    line = {name: session.get(name) for name in SESSION_FIELDS}
    line.update(type="session", ref=ref, parent_ref=parent_ref)
    return orjson.dumps(line, option=_OPTIONS)


def encode_message(row: Mapping[str, Any], ref: int) -> bytes:
    """A message line from a stored row (every `ROW_COLUMNS` key; `raw` as bytes)."""
    line = {name: row.get(name) for name in _MESSAGE_FIELDS}
    raw = bytes(row["raw"])
    try:
        line["raw"] = raw.decode("utf-8")
    except UnicodeDecodeError:
        line["raw_base64"] = base64.b64encode(raw).decode("ascii")
    line.update(type="message", session=ref)
    return orjson.dumps(line, option=_OPTIONS)


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SessionLine(_Line):
    """A session line, checked."""

    type: Literal["session"]
    ref: Int64 = Field(ge=1)
    parent_ref: Int64 | None = Field(default=None, ge=1)
    name: str | None = None
    kind: str
    target: TargetColumn = None
    status: str = "ended"
    started_ns: Int64
    ended_ns: Int64 | None = None
    exit_status: Int64 | None = None
    end_reason: str | None = None
    era: str | None = None
    offered_version: str | None = None
    protocol_version: str | None = None
    client_info: ObjectColumn = None
    server_info: ObjectColumn = None
    client_capabilities: ObjectColumn = None
    server_capabilities: ObjectColumn = None
    facts: ObjectColumn = None
    labels: LabelsColumn = None
    message_count: Int64 = Field(default=0, ge=0)
    host: str | None = None
    pid: Int64 | None = None

    def columns(self) -> dict[str, Any]:
        """The session's columns for the store (no id, no parent: the importer links those)."""
        return {name: getattr(self, name) for name in SESSION_FIELDS}


class _MessageLine(_Line):
    """A message line: the store's columns (`MessageRow`) but `session_id` and `raw`, the ref of its
    session line, and its bytes as text (`raw`) or base64 (`raw_base64`). Its fields are made from
    the columns (`MessageLine`); these few are named here for the type checker."""

    if TYPE_CHECKING:  # pydantic's fields come from `_LINE_FIELDS`, in the columns' order
        session: int
        seq: int
        raw: str | None
        raw_base64: str | None

    def row(self, session_id: int) -> MessageRow:
        """The store row of this message in session `session_id`."""
        if self.raw_base64 is not None:
            raw = base64.b64decode(self.raw_base64, validate=True)
        else:
            raw = (self.raw or "").encode("utf-8")
        # the file's values, checked as the columns' types (`meta`: an object, as an import keeps
        # what an older version wrote)
        own = {"session_id": session_id, "raw": raw}
        return cast(
            "MessageRow", {name: own[name] if name in own else getattr(self, name) for name in ROW_COLUMNS}
        )


def _line_fields() -> dict[str, Any]:
    """The fields of a message line, in the columns' order: each column's type as `MessageRow`
    declares it (64-bit for integers, the JSON columns' shapes), optional where it may be null."""
    hints = get_type_hints(MessageRow)
    fields: dict[str, Any] = {"type": (Literal["message"], ...), "session": (Int64, Field(ge=1))}
    for name in ROW_COLUMNS:
        if name == "session_id":
            continue
        if name == "raw":
            fields["raw"] = fields["raw_base64"] = (str | None, None)
            continue
        tp = JSON_COLUMN_TYPES.get(name) or hints[name]
        nullable = tp is Any or type(None) in get_args(tp)
        if tp is int or tp == int | None:
            tp = Int64 | None if nullable else Int64
        bound = {"seq": Field(ge=1), "size": Field(ge=0)}.get(name)
        fields[name] = (tp, bound if bound is not None else None if nullable else ...)
    return fields


MessageLine = create_model(
    "MessageLine", __base__=_MessageLine, __doc__="A message line, checked.", **_line_fields()
)


class Reader:
    """Checks a file's lines in order: the header first, each message after its session's line,
    seqs rising within a session. `feed` returns the decoded line (None for the header and blank
    lines) or raises `FileFormatError`."""

    def __init__(self, source: str = "") -> None:
        self.source = source
        self.line = 0
        self._header = False
        self._refs: set[int] = set()
        self._current: int | None = None
        self._last_seq = 0

    def _fail(self, message: str) -> FileFormatError:
        return FileFormatError(self.line, message, self.source)

    def feed(self, data: bytes) -> SessionLine | _MessageLine | None:
        self.line += 1
        if not data.strip():
            return None
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise self._fail(f"not JSON ({exc})") from None
        if not isinstance(value, dict):
            raise self._fail("not a JSON object")
        if not self._header:
            self._read_header(value)
            return None
        kind = value.get("type")
        if kind == "session":
            return self._read_session(value)
        if kind == "message":
            return self._read_message(value)
        raise self._fail(f"unknown line type {kind!r} (expected 'session' or 'message')")

    def finish(self) -> None:
        """The end of the file: it must at least have had its header."""
        if not self._header:
            raise FileFormatError(self.line or 1, "empty file: no header line", self.source)

    def _read_header(self, value: dict[str, Any]) -> None:
        if value.get("format") != FORMAT:
            raise self._fail(f'not an {FORMAT} file (its first line has no "format": "{FORMAT}")')
        version = value.get("version")
        if not isinstance(version, int) or version < 1:
            raise self._fail("the header's version is not a positive integer")
        if version > VERSION:
            raise self._fail(
                f"format version {version} is newer than this mcp-inspect reads ({VERSION}): upgrade it"
            )
        self._header = True

    def _check(self, model: type[_Line], value: dict[str, Any]) -> Any:
        try:
            return model.model_validate(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = str(first["loc"][0]) if first["loc"] else "line"
            if field in JSON_COLUMN_SHAPES:  # a union's errors name its members: say the shape instead
                raise self._fail(f"{field}: not {JSON_COLUMN_SHAPES[field]}") from None
            where = ".".join(str(p) for p in first["loc"]) or "line"
            given = first.get("input")
            if first["type"] == "int_type" and isinstance(given, float) and given.is_integer():
                # orjson reads an integer past 64 bits as a float
                raise self._fail(f"{where}: {given:.0f} is outside the signed 64-bit range") from None
            raise self._fail(f"{where}: {first['msg']}") from None

    def _read_session(self, value: dict[str, Any]) -> SessionLine:
        line: SessionLine = self._check(SessionLine, value)
        if line.ref in self._refs:
            raise self._fail(f"session ref {line.ref} appears twice")
        if line.parent_ref is not None and line.parent_ref not in self._refs:
            raise self._fail(f"parent_ref {line.parent_ref} is not an earlier session of this file")
        self._refs.add(line.ref)
        self._current, self._last_seq = line.ref, 0
        return line

    def _read_message(self, value: dict[str, Any]) -> _MessageLine:
        line: _MessageLine = self._check(MessageLine, value)
        if line.session != self._current:
            raise self._fail(f"a message of session {line.session} outside that session's lines")
        if (line.raw is None) == (line.raw_base64 is None):
            raise self._fail("a message needs exactly one of raw and raw_base64")
        if line.raw_base64 is not None:
            try:
                base64.b64decode(line.raw_base64, validate=True)
            except (binascii.Error, ValueError):
                raise self._fail("raw_base64 is not base64") from None
        if line.seq <= self._last_seq:
            raise self._fail(f"seq {line.seq} after {self._last_seq}: seqs must rise")
        self._last_seq = line.seq
        return line
