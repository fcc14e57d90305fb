"""The records of the tables: `Session` (one recorded connection), `Message` (one framed message),
`Blob`, `LintFinding`, `LintRun`: plain dataclasses, no SQLAlchemy (the tables themselves, for the
code that builds SQLAlchemy statements, are `store.schema`).

`Message` is the one message record of the project: the recorder fills its
columns, the store writes them, the API and UI read them back. Raw bytes are
kept exactly as they crossed the wire (terminator included for stdio lines).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, fields
from typing import Any, Literal, Protocol, TypedDict

from inspector.flow import RowMeta
from inspector.protocol.sse import stored_body

__all__ = [
    "ROW_COLUMNS",
    "STORED_COLUMNS",
    "Blob",
    "JSON_COLUMNS",
    "SQL_INT_MAX",
    "SQL_INT_MIN",
    "Channel",
    "Direction",
    "KindName",
    "LintFinding",
    "LintRun",
    "Message",
    "MessageRecord",
    "MessageRow",
    "ParseStatusName",
    "Session",
    "StoredRow",
    "column_names",
]

# Every integer column (ids, seqs, ns timestamps) is a signed 64-bit integer in SQLite and
# PostgreSQL: a bigger Python int cannot be bound to a query at all (OverflowError). A session file's
# integers are checked against them (`store.column_types.Int64`), and so are the API's parameters.
SQL_INT_MAX = 2**63 - 1
SQL_INT_MIN = -(2**63)

# The columns that hold JSON documents: `store.db` decodes them as it reads a row. What each holds,
# as a session file's lines and the API are checked against, is `store.column_types`.
JSON_COLUMNS: tuple[str, ...] = (
    "target",
    "labels",
    "meta",
    "lint",
    "http_headers",
    "client_info",
    "server_info",
    "client_capabilities",
    "server_capabilities",
    "facts",
)


@dataclass(slots=True, kw_only=True)
class Session:
    """One recorded connection (a wrap, a proxy session, a mock run, a replay, an import): a row of
    the `session` table (`store.schema`)."""

    id: int | None = None
    name: str | None = None
    kind: str  # stdio-wrap, http-proxy, mock-client, mock-server, replay, import
    target: Any = None  # argv list or URL
    status: str = "recording"  # recording, ended
    started_ns: int
    ended_ns: int | None = None
    exit_status: int | None = None
    end_reason: str | None = None
    era: str | None = None
    offered_version: str | None = None
    protocol_version: str | None = None
    client_info: Any = None
    server_info: Any = None
    client_capabilities: Any = None
    server_capabilities: Any = None
    facts: Any = None
    parent_id: int | None = None
    labels: Any = None
    message_count: int = 0
    host: str | None = None
    pid: int | None = None
    # Kept by retention whatever its age or size (column added by revision 0003, hence last).
    pinned: bool = False

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of every column."""
        return _columns(self)


# The closed vocabularies of a message's columns (`protocol.jsonrpc.Kind` / `ParseStatus` hold the
# same values as enums; a test checks they agree).
Direction = Literal["c2s", "s2c"]
Channel = Literal["stdin", "stdout", "stderr", "http-request", "http-response", "sse"]
KindName = Literal["request", "notification", "response", "error", "batch", "invalid", "log", "http"]
ParseStatusName = Literal["ok", "empty", "invalid-utf8", "invalid-json", "not-jsonrpc", "truncated"]


@dataclass(slots=True, kw_only=True)
class Message:
    """One framed message (or stderr line, or HTTP exchange part) of a session: a row of the
    `message` table (`store.schema`)."""

    id: int | None = None
    session_id: int
    seq: int  # per session, gap-free, from 1
    ts_ns: int
    direction: str  # c2s | s2c
    channel: str  # stdin, stdout, stderr, http-request, http-response, sse
    raw: bytes
    size: int
    parse_status: str
    kind: str  # request, notification, response, error, batch, invalid, log
    method: str | None = None  # a response carries the method of the request it answers
    rpc_id: str | None = None  # canonical JSON text of the id
    error_code: int | None = None
    answers_seq: int | None = None  # seq of the request this response answers
    latency_ns: int | None = None
    http_method: str | None = None
    http_path: str | None = None
    http_status: int | None = None
    http_headers: Any = None
    sse_event_id: str | None = None
    # A `flow.RowMeta` (typed so in `MessageRow`; here `Any`: the column keeps what an import or an
    # older version wrote).
    meta: Any = None
    lint: Any = None
    # A large body's hash: `raw` then holds only its start and `blob` the whole (store/bodies.py;
    # column added by revision 0004, hence last). Readers put the whole back with `bodies.fill`.
    body_sha256: str | None = None

    @property
    def body(self) -> bytes:
        """The JSON-RPC part of `raw`: an SSE event's data (`raw` keeps the event's framing), else `raw`."""
        return stored_body(self.channel, self.raw)

    def raw_text(self) -> str | None:
        """The raw bytes as text, or None when they are not valid UTF-8."""
        try:
            return self.raw.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: every column, raw as text (or base64 when not UTF-8)."""
        out = _columns(self)
        del out["raw"], out["body_sha256"]
        text = self.raw_text()
        out["raw"] = text
        if text is None:
            out["raw_base64"] = base64.b64encode(self.raw).decode()
        return out


class _Columns(TypedDict):
    """The columns of a `Message` row up to its JSON ones, as the type checker knows them."""

    session_id: int
    seq: int
    ts_ns: int
    direction: Direction
    channel: Channel
    raw: bytes
    size: int
    parse_status: ParseStatusName
    kind: KindName
    method: str | None
    rpc_id: str | None
    error_code: int | None
    answers_seq: int | None
    latency_ns: int | None
    http_method: str | None
    http_path: str | None
    http_status: int | None
    http_headers: Any
    sse_event_id: str | None


class MessageRow(_Columns):
    """A `Message` row as the recorder builds it: a plain dict (no model instance on the hot path,
    see docs/decisions/0007-one-row-type-as-plain-dicts.md) whose keys and value types the type checker enforces,
    its `meta` a `flow.RowMeta`. Its keys are exactly `ROW_COLUMNS` (checked by a test)."""

    meta: RowMeta | None
    lint: Any


class StoredRow(_Columns, total=False):
    """The same row read back from the store as a plain dict (lint reads whole sessions so): the
    recorder's columns, the database's `id` and the large body's hash (`store.bodies`). Its `meta`
    is what the column holds, a `RowMeta` as written by this version, anything JSON from an import
    or an older one: its readers check what they use."""

    meta: Any
    lint: Any
    id: int
    body_sha256: str | None


@dataclass(slots=True, kw_only=True)
class Blob:
    """A large message body, stored once however many messages carry it (`store.bodies`)."""

    sha256: str  # of the original bytes
    codec: str  # zstd | none
    size: int  # the original size
    data: bytes


class MessageRecord(Protocol):
    """What readers of a stored message need (the diff, lint): `Message` satisfies it."""

    @property
    def seq(self) -> int: ...
    @property
    def direction(self) -> str: ...
    @property
    def channel(self) -> str: ...
    @property
    def raw(self) -> bytes: ...
    @property
    def kind(self) -> str: ...
    @property
    def method(self) -> str | None: ...
    @property
    def rpc_id(self) -> str | None: ...
    @property
    def answers_seq(self) -> int | None: ...
    @property
    def meta(self) -> RowMeta | None: ...


@dataclass(slots=True, kw_only=True)
class LintFinding:
    """One conformance finding on one message (`inspector.lint`); a re-lint replaces a session's findings."""

    id: int | None = None
    session_id: int
    seq: int  # the message's seq in its session
    message_id: int | None = None  # the message's row id
    severity: str  # error, warning, info
    rule: str  # the rule id, e.g. unknown-response-id
    explanation: str
    spec_section: str  # heading and URL of the spec section that states the rule
    revision: str | None = None  # the protocol revision the message was checked against


@dataclass(slots=True, kw_only=True)
class LintRun:
    """When a session was last linted: up to which seq, with which rule set (to know when findings are stale)."""

    session_id: int
    upto_seq: int  # the highest seq linted
    rules_version: str  # changes when the rule set changes
    linted_ns: int
    errors: int = 0
    warnings: int = 0
    infos: int = 0


def _columns(record: Any) -> dict[str, Any]:
    """A record's columns as a dict, in table order."""
    return {f.name: getattr(record, f.name) for f in fields(record)}


def column_names(record: type) -> tuple[str, ...]:
    """The columns of a record class (`Session`, `Message`, ...), in table order."""
    return tuple(f.name for f in fields(record))


# The columns a recorder fills for each message (every column but the database's own id and the
# writer's `body_sha256`), and those the writer stores.
ROW_COLUMNS: tuple[str, ...] = tuple(c for c in column_names(Message) if c not in ("id", "body_sha256"))
STORED_COLUMNS: tuple[str, ...] = (*ROW_COLUMNS, "body_sha256")
