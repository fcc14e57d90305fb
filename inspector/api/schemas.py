"""The API's JSON shapes, derived from the store's tables so there is one message model.

`PageRow` is the wire form of a row of `store.pages` (its `PAGE_FIELDS`: every column of
`store.models.Message` but `raw`, plus a text `preview`), typed from the store's `MessageRow`
(the recorder's row, its `meta` a `flow.RowMeta`); `MessageDetail` adds the raw text (or base64) exactly as
`Message.to_json()` gives it. `SessionOut` is every column of `Session` plus
the computed `state`. Only the JSON columns get a sharper type than `Any`
here, so the generated TypeScript is useful. The websocket's live events are
a closed set of typed messages (`LiveEvent`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model, with_config
from typing_extensions import TypedDict, is_typeddict

from inspector.api.params import SqlInt
from inspector.api.schemas_live import Behind
from inspector.flow import RowMeta
from inspector.store import Message, Session
from inspector.store import models as store_models
from inspector.store.column_types import JSON_COLUMN_TYPES
from inspector.store.models import column_names
from inspector.store.pages import PAGE_FIELDS, ROW_FIELDS

__all__ = [
    "AnyLiveEvent",
    "Behind",
    "HttpExchangeOut",
    "LiveError",
    "LiveEvent",
    "MessageDetail",
    "MessagePage",
    "PageRow",
    "MessageWithPair",
    "Position",
    "SessionList",
    "SessionOut",
    "SessionPatch",
]


def _schema_of(tp: Any) -> Any:
    """`tp` with each TypedDict in it made again, key for key, as pydantic reads one on Python 3.11
    (`typing_extensions.TypedDict`), open to keys it does not name."""
    if is_typeddict(tp):
        made = TypedDict(  # type: ignore[misc]
            tp.__name__, {k: _schema_of(v) for k, v in get_type_hints(tp).items()}, total=tp.__total__
        )
        made.__doc__ = tp.__doc__
        return with_config(ConfigDict(extra="allow"))(made)
    args = get_args(tp)
    if get_origin(tp) is list and args:
        return list[_schema_of(args[0])]  # type: ignore[misc]
    return tp


# A row's `meta` is the flow's `RowMeta` (its key families documented in the schema, hence in the
# TypeScript types); open to more keys, as a row an import or an older version wrote may hold them.
_SHARPER: dict[str, Any] = {**JSON_COLUMN_TYPES, "meta": _schema_of(RowMeta) | None}


def _fields(table: type, names: tuple[str, ...], declared: dict[str, Any] | None = None) -> dict[str, Any]:
    """Each column as a required field: its type from `declared` (a message's `store.models.MessageRow`,
    with the Literal vocabularies of direction, channel, kind, parse_status), sharper for JSON columns."""
    out: dict[str, Any] = {}
    hints = get_type_hints(table)
    for name in names:
        annotation = _SHARPER.get(name) or (declared or {}).get(name) or hints[name]
        # Every column is always sent (null when empty), so each is required, nullable or not.
        out[name] = (int if name == "id" else annotation, ...)
    return out


# The wire form of a `store.pages` row, generated from its field list (`PAGE_FIELDS`: `ROW_FIELDS`
# then `preview`; the live feed and the pages send the store's dicts as they are, unvalidated).
PageRow = create_model(
    "PageRow",
    __doc__="One message of a session without its raw bytes: every column, and `preview`, its text start.",
    preview=(str, Field(description="the first bytes of the raw message as text (invalid UTF-8 replaced)")),
    **_fields(Message, ROW_FIELDS, get_type_hints(store_models.MessageRow)),
)
assert (*ROW_FIELDS, "preview") == PAGE_FIELDS

# Field definitions as plain dicts: pydantic's create_model stubs take classes only, while unions
# and Literals are valid field types.
_DETAIL_FIELDS: dict[str, Any] = {
    "raw": (str | None, None),
    "raw_base64": (str | None, None),
    "body": (
        str | None,
        Field(None, description="the JSON-RPC part as text when `raw` holds more (an SSE event's data)"),
    ),
}

MessageDetail = create_model(
    "MessageDetail",
    __doc__="One message with its raw bytes: `raw` as text, or `raw_base64` when they are not UTF-8.",
    __base__=PageRow,
    **_DETAIL_FIELDS,
)

_SESSION_STATE: dict[str, Any] = {"state": (Literal["recording", "ended", "interrupted"], ...)}

SessionOut = create_model(
    "SessionOut",
    __doc__="One recorded session: every column, and `state` (recording, ended, or interrupted).",
    **_SESSION_STATE,
    **_fields(Session, column_names(Session)),
)


class SessionList(BaseModel):
    """A page of sessions, newest first."""

    items: list[SessionOut]
    total: int
    offset: int
    limit: int


class SessionPatch(BaseModel):
    """A rename, new labels and/or a pin (fields left out stay as they are)."""

    name: str | None = Field(default=None, max_length=200)
    labels: list[str] | None = Field(default=None, max_length=50)
    pinned: bool | None = Field(default=None, description="true: retention never removes the session")


class MessagePage(BaseModel):
    """A page of rows in seq order, with cursors to the next and previous pages under the same filter."""

    items: list[PageRow]
    next_cursor: str | None = Field(
        description="pass as `cursor` for the rows after this page; null at the end"
    )
    prev_cursor: str | None = Field(
        description="pass as `cursor` for the rows before this page; null at the start"
    )
    total: int | None = Field(description="how many rows match the filter (when `count=true`)")


class Position(BaseModel):
    """Where a message sits in a filtered list: how many matching rows come before it."""

    seq: int
    index: int
    matches: bool = Field(description="whether the message itself matches the filter")


class RoutingHeaderOut(BaseModel):
    """One 2026-07-28 routing header: as sent, decoded, and whether it agrees with the body field it mirrors.

    `status`: agrees, disagrees, missing (required, not sent), invalid (undecodable) or unchecked
    (nothing recorded says what it should mirror, e.g. an Mcp-Param-* header without the tool's schema).
    """

    name: str
    raw: str | None
    decoded: str | None
    encoded: bool
    source: str | None
    expected: str | None
    status: Literal["agrees", "disagrees", "missing", "invalid", "unchecked"]
    problem: str | None = None


class RoutingOut(BaseModel):
    """The routing headers of an exchange's request (`required`: a 2026-07-28 POST, where they are REQUIRED)."""

    method: str | None
    revision: str | None
    required: bool
    headers: list[RoutingHeaderOut]


class MessageWithPair(BaseModel):
    """One message with its pair (request <-> response) and the messages that refer to it."""

    message: MessageDetail
    pair: PageRow | None
    related: list[PageRow] = Field(
        description="progress and cancel notifications linked to this request, and what they refer to"
    )
    intervention: list[PageRow] = Field(
        default_factory=list,
        description="when the inspector intervened on this message (meta.intercept / meta.injected): "
        "every row of that intervention (same n), the sender's original and what was sent instead",
    )
    routing: RoutingOut | None = Field(
        default=None, description="an HTTP request's 2026-07-28 routing headers, checked against its body"
    )


class HttpExchangeOut(BaseModel):
    """One HTTP exchange of an HTTP session, with the JSON-RPC messages it carried (network view)."""

    id: str
    method: str | None
    path: str | None
    status: int | None
    request_headers: dict[str, str]
    response_headers: dict[str, str]
    started_ns: int
    ended_ns: int
    duration_ns: int
    sse: bool
    sse_event_ids: list[str]
    messages: list[PageRow]
    routing: RoutingOut | None = None


class SessionCreated(BaseModel):
    """A new session appeared (recorded by any process)."""

    type: Literal["session_created"] = "session_created"
    session: SessionOut


class SessionUpdated(BaseModel):
    """A session's row changed: more messages, facts, a rename."""

    type: Literal["session_updated"] = "session_updated"
    session: SessionOut


class SessionEnded(BaseModel):
    """A session stopped recording (ended, or its recorder died: interrupted)."""

    type: Literal["session_ended"] = "session_ended"
    session: SessionOut


class SessionDeleted(BaseModel):
    """A session was deleted."""

    type: Literal["session_deleted"] = "session_deleted"
    session_id: int


class NewMessages(BaseModel):
    """New rows of a session the client subscribed to; `truncated` means some were skipped (fetch them)."""

    type: Literal["messages"] = "messages"
    session_id: int
    items: list[PageRow]
    truncated: bool = False


class Subscribe(BaseModel):
    """Client to server: send me the new messages of this session (or stop)."""

    type: Literal["subscribe", "unsubscribe"]
    session_id: SqlInt
    after_seq: SqlInt | None = Field(default=None, description="also send the rows after this seq at once")


class LiveError(BaseModel):
    """The client sent something that is not a `Subscribe` message; it was ignored (the feed goes on)."""

    type: Literal["error"] = "error"
    message: str = Field(description="what was wrong, by field (the message's content is not repeated)")


class ClientInbox(BaseModel):
    """A mock client got a server request that waits for a person (see `/api/clients/{id}/inbox`)."""

    type: Literal["client_inbox"] = "client_inbox"
    client_id: str
    item: dict[str, Any]


class ClientInboxAnswered(BaseModel):
    """A mock client's inbox item was answered through the API."""

    type: Literal["client_inbox_answered"] = "client_inbox_answered"
    client_id: str
    item: dict[str, Any]
    answer: dict[str, Any]


class ClientInboxTimeout(BaseModel):
    """Nobody answered a mock client's inbox item in time (the server got an error)."""

    type: Literal["client_inbox_timeout"] = "client_inbox_timeout"
    client_id: str
    item: dict[str, Any]


class ClientNotification(BaseModel):
    """A server sent a notification to a mock client (progress, log messages, list changes)."""

    type: Literal["client_notification"] = "client_notification"
    client_id: str
    notification: dict[str, Any]


class ClientActivity(BaseModel):
    """A mock client's work with the server changed (see `/api/clients/{id}/activity`): a request
    started, finished, was cancelled or got a late response, progress, a log message, a resource
    update, a subscription, a list change, a task status, the log level."""

    type: Literal["client_activity"] = "client_activity"
    client_id: str
    kind: Literal[
        "request", "request_done", "cancelled", "late_response", "progress", "log", "log_level",
        "resource_updated", "subscription", "list_changed", "task",
    ]  # fmt: skip
    item: dict[str, Any]


class ClientElicitations(BaseModel):
    """A mock client's request failed with -32042: URL elicitations to complete, then retry it."""

    type: Literal["client_elicitations"] = "client_elicitations"
    client_id: str
    items: list[dict[str, Any]]


class ClientClosed(BaseModel):
    """A mock client's connection ended (closed through the API, or the server went away)."""

    type: Literal["client_closed"] = "client_closed"
    client_id: str
    error: str | None


# Every event the websocket `/api/live` sends: one declared model per `type` (the feed builds each
# event from its model, `api.live.encode`).
AnyLiveEvent = Annotated[
    SessionCreated
    | SessionUpdated
    | SessionEnded
    | SessionDeleted
    | NewMessages
    | Behind
    | ClientInbox
    | ClientInboxAnswered
    | ClientInboxTimeout
    | ClientNotification
    | ClientActivity
    | ClientElicitations
    | ClientClosed
    | LiveError,
    Field(discriminator="type"),
]


class LiveEvent(BaseModel):
    """Documents the websocket `/api/live`: the client sends `Subscribe`, the server sends `event`s."""

    event: AnyLiveEvent
    subscribe: Subscribe | None = None
