"""One `Flow` per message crossing a connection, and the addon interface over it (issue #35).

The shape is mitmproxy's (a flow object handed to every addon's hooks, which may
change it or decide its fate), kept small and ours:

- `Flow`: one message as it crossed (the sender's bytes, their direction, when),
  its transport context (`StdioContext`, `HttpContext`), the typed `meta` its
  recorded row will carry, and any intervention (`meta["intercept"]`).
- `Verdict`: what an addon decided for a flow, in the terms a transport can act
  on without knowing why: bytes to send (`Send`: deliver, delay, reply,
  duplicate), nothing (drop), close (`disconnect`), or wait first (`hold`).
- `Addon`: the hooks (`connection_start`, `message`, `stream_end`,
  `server_exited`, `connection_end`; on HTTP also `session_start`/`session_end`
  and `request`, `response`, `event`, which default to `message`); `Addons`:
  the small dispatcher a transport calls.

A transport given no `Addons` (plain `wrap`, plain `proxy`) never builds a flow:
its forwarding loop is the one it had, and the only cost is one `None` check.

On HTTP (`transports/http_intervene.py` maps a verdict to HTTP): a `Send` toward
the sender is the request forwarded / the answer or event sent (an altered body
gets its own length); one toward the other side is the inspector's answer (a
JSON or SSE reply to a request, a POST answering a server's request). No send:
dropped. `http_error` answers the request with that status; `drip` sends the
answer in pieces; `close_after` ends the answer's event stream after that many
events; `deferred` (a reorder): the flow's own bytes come later, through
`Connection.send(..., of=flow)`.
This module imports nothing of the inspector: the transports and the features
both stand on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypedDict

__all__ = [
    "Addon",
    "Addons",
    "BatchItemMeta",
    "Connection",
    "Direction",
    "Drip",
    "Facts",
    "Flow",
    "Hold",
    "HttpStatus",
    "HttpContext",
    "InjectedMeta",
    "InterceptMeta",
    "RowMeta",
    "Send",
    "StdioContext",
    "TruncatedMeta",
    "Verdict",
]

Direction = Literal["c2s", "s2c"]
"""c2s: from the client toward the server; s2c: from the server toward the client."""


# --- meta: what a recorded row carries beside its bytes, one TypedDict per key family -------


class InterceptMeta(TypedDict, total=False):
    """`meta.intercept` of the sender's row: what was done to it (`intercept.Intervention.meta`).
    The details the UI shows are declared; other rule-specific ones (`times`, `position`, `bytes`,
    `at`, `events`, `held_ms`, `resolved`) ride along with these keys."""

    n: int
    action: str
    by: str  # "rule:<name>", "user", "timeout" or "shutdown"
    delivered: bool  # did the peer receive the sender's bytes?
    rule: str
    delay_ms: float  # a delay rule's delay
    status: int  # an http_error rule's status


class InjectedMeta(TypedDict):
    """`meta.injected` of a row of bytes the inspector sent instead of, or beside, the sender's."""

    n: int
    action: str
    by: str


class BatchItemMeta(TypedDict, total=False):
    """`meta.items[i]`: the recorder's pairing of the i-th message of a batch (`correlate.Pairing`)."""

    answers_seq: int
    request_method: str
    latency_ns: int
    related_seq: int
    flags: list[str]


class TruncatedMeta(TypedDict):
    """`meta.truncated` of a message longer than the cap (`framing.Cut.meta`): only its start is kept."""

    size: int
    kept: int
    sha256: str


class RowMeta(TypedDict, total=False):
    """The `meta` of one recorded message row: every key a transport, the recorder or an addon sets
    (the store's `MessageRow`, the API's rows and the TypeScript types carry this type). A row read
    back may hold more (an imported file, an older version): readers still check what they use."""

    # the recorder's pairing (`protocol.correlate`)
    flags: list[str]  # "no-newline", "orphan-response", "duplicate-id", "paired-by-http-exchange", ...
    related_seq: int  # the request a progress or cancel notification refers to
    items: list[BatchItemMeta]  # a batch's pairing, item by item
    # the wire
    problem: str  # what went wrong on the wire (a cut-off event, an undecodable body)
    crlf: bool  # the line ended with CRLF
    truncated: TruncatedMeta
    event: str  # an SSE event's name (e.g. "endpoint")
    content_encoding: str  # the body as sent was compressed so
    body: str  # why the body is not stored (`capture.pause`: metadata only)
    redacted: list[str]  # what the redaction step replaced (`capture.redact`)
    # HTTP
    exchange: int  # the HTTP exchange the row belongs to
    rewritten_to: str  # a legacy endpoint URL the proxy rewrote
    auth_step: str  # the step of an OAuth flow this exchange was (`auth`, `mock.auth_routes`)
    auth_origin: str
    via: str  # "browser": an OAuth leg the browser made
    # interventions (`intercept`)
    intercept: InterceptMeta
    injected: InjectedMeta
    # OpenTelemetry
    traceparent: str
    tracestate: str


# --- transport context ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StdioContext:
    """Where a stdio message travelled: the wrapped server's command and the pipe."""

    target: Sequence[str]  # the server command
    channel: Literal["stdin", "stdout"]


@dataclass(frozen=True, slots=True)
class HttpContext:
    """Where an HTTP message travelled: the request it belongs to and the route it took."""

    method: str
    url: str
    headers: Sequence[tuple[bytes, bytes]]
    target: str  # the upstream URL
    origin: str  # the proxy's own origin, as the client reached it
    session: int | None = None  # the recorded session (the recorder's handle) the exchange belongs to
    exchange: int = 0  # the exchange's number
    session_id: str | None = None  # Mcp-Session-Id
    routing_key: tuple[str, str] | None = None  # which upstream session the request was routed to
    scope: Mapping[str, Any] | None = None  # the ASGI scope, when an addon needs more


# --- the flow ------------------------------------------------------------------------------

_UNPARSED: Any = object()


@dataclass(slots=True)
class Flow:
    """One message crossing a connection, as the transport saw it and the addons change it."""

    raw: bytes  # the sender's bytes, one framed message (a line with its terminator, a body, an event)
    direction: Direction
    ts_ns: int
    context: StdioContext | HttpContext
    meta: RowMeta = field(default_factory=RowMeta)
    _message: Any = field(default=_UNPARSED, repr=False)

    @property
    def message(self) -> Any:
        """The parsed JSON (None when the bytes are not JSON), parsed once on first use."""
        if self._message is _UNPARSED:
            import orjson

            try:
                self._message = orjson.loads(self.raw)
            except orjson.JSONDecodeError:
                self._message = None
        return self._message

    @property
    def intervention(self) -> InterceptMeta | None:
        """What an interceptor did to this message, if anything."""
        return self.meta.get("intercept")


# --- decisions -----------------------------------------------------------------------------


@dataclass(slots=True)
class Send:  # not frozen: a frozen dataclass costs ~1 us more per line to build
    """Write `raw` toward the peer `to` (c2s: the server, s2c: the client) after `delay_s`.
    With `injected`, these are not the sender's bytes as sent (an altered copy, a duplicate, an
    answer): the transport records them as their own row with `meta.injected`."""

    raw: bytes
    to: Direction
    delay_s: float = 0.0
    injected: InjectedMeta | None = None
    of: Flow | None = None  # the flow these bytes belong to when not the one decided (a reorder's release)


@dataclass(frozen=True, slots=True)
class HttpStatus:
    """HTTP only: answer the request with this status, body and headers instead of forwarding it."""

    status: int
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Drip:
    """HTTP only: send the answer (or the event) in `chunk`-byte pieces every `interval_s`."""

    chunk: int
    interval_s: float


@dataclass(slots=True)
class Verdict:  # not frozen: a frozen dataclass costs ~1 us more per line to build
    """An addon's decision for one flow. The transport records the flow (with its `meta`), then
    does `sends` in order (none: the message is dropped), then closes the connection when
    `disconnect` names a reason. With `hold`, the transport first waits on it (holding back this
    direction only) for the verdict that replaces this one."""

    sends: Sequence[Send] = ()
    disconnect: str | None = None
    hold: Hold | None = None
    # HTTP only (a stdio transport drops what it cannot do):
    http_error: HttpStatus | None = None
    drip: Drip | None = None
    close_after: int | None = None  # end the event stream after this many events
    deferred: bool = False  # a reorder: this flow's own bytes may come later (`Connection.send(of=)`)


class Hold(Protocol):
    """A message held until someone (a person, a timeout) decides: a thread blocks in `wait()`,
    an event loop polls `wait(0)` between sleeps."""

    def wait(self, timeout: float | None = None) -> Verdict | None:
        """The verdict once decided; None if `timeout` seconds passed first."""

    def when_decided(self, callback: Callable[[], object]) -> None:
        """Call `callback()` once decided (now, if it is), from whatever thread decided it:
        an event loop wraps it with `call_soon_threadsafe`, then takes `wait(0)`."""


class Facts(Protocol):
    """A recorded session's facts, as an addon may add to them (a recorder's `Tap`)."""

    def add_facts(self, facts: dict[str, Any]) -> None: ...


class Connection(Protocol):
    """What a transport offers its addons for one connection: bytes out of turn and the end."""

    def send(self, to: Direction, raw: bytes, delay_s: float = 0.0, of: Flow | None = None) -> None:
        """Write toward a peer outside any flow's verdict (a timer releasing held messages);
        `of`: the flow the bytes belong to (HTTP sends them on that flow's exchange)."""

    def disconnect(self, reason: str) -> None:
        """Close both sides; the session ends with `reason`."""


# --- addons --------------------------------------------------------------------------------


class Addon:
    """A feature over the transports. Every hook is optional (these do nothing); `decides` says
    whether `message` may return a verdict, which puts the transport on its framed path."""

    decides: bool = False

    def connection_start(self, conn: Connection) -> None:
        """The connection is up (the server spawned); nothing has been forwarded yet."""

    def message(self, flow: Flow) -> Verdict | None:
        """One framed message; None: forward it as sent (the others may still decide)."""
        return None

    def request(self, flow: Flow) -> Verdict | None:
        """HTTP: a client's request body (whole), before it is forwarded."""
        return self.message(flow)

    def response(self, flow: Flow) -> Verdict | None:
        """HTTP: a JSON response body (whole), before it goes to the client."""
        return self.message(flow)

    def event(self, flow: Flow) -> Verdict | None:
        """HTTP: the data of one SSE `message` event, before it goes to the client."""
        return self.message(flow)

    def session_start(self, session: int, facts: Facts) -> None:
        """HTTP: a recorded session opened (`session` is the recorder's handle)."""

    def session_end(self, session: int, facts: Facts) -> None:
        """HTTP: a recorded session is about to end."""

    def stream_end(self, conn: Connection, direction: Direction) -> None:
        """The sender of `direction` closed its stream: release what is held back in it."""

    def server_exited(self, conn: Connection) -> None:
        """The server is gone: resolve what waits on it (held messages)."""

    def connection_end(self, conn: Connection) -> None:
        """Both sides are done; the transport forwards nothing more."""


class Addons:
    """The dispatcher a transport calls: every addon's hook in order; for `message`, the first
    addon that decides wins (the ones after it see the flow only if all before passed)."""

    __slots__ = ("all", "deciders")

    def __init__(self, addons: Sequence[Addon]) -> None:
        self.all = list(addons)
        self.deciders = [a for a in self.all if a.decides]

    def connection_start(self, conn: Connection) -> None:
        for a in self.all:
            a.connection_start(conn)

    def message(self, flow: Flow) -> Verdict | None:
        for a in self.deciders:
            verdict = a.message(flow)
            if verdict is not None:
                return verdict
        return None

    def request(self, flow: Flow) -> Verdict | None:
        for a in self.deciders:
            verdict = a.request(flow)
            if verdict is not None:
                return verdict
        return None

    def response(self, flow: Flow) -> Verdict | None:
        for a in self.deciders:
            verdict = a.response(flow)
            if verdict is not None:
                return verdict
        return None

    def event(self, flow: Flow) -> Verdict | None:
        for a in self.deciders:
            verdict = a.event(flow)
            if verdict is not None:
                return verdict
        return None

    def session_start(self, session: int, facts: Facts) -> None:
        for a in self.all:
            a.session_start(session, facts)

    def session_end(self, session: int, facts: Facts) -> None:
        for a in reversed(self.all):
            a.session_end(session, facts)

    def stream_end(self, conn: Connection, direction: Direction) -> None:
        for a in self.all:
            a.stream_end(conn, direction)

    def server_exited(self, conn: Connection) -> None:
        for a in self.all:
            a.server_exited(conn)

    def connection_end(self, conn: Connection) -> None:
        for a in reversed(self.all):
            a.connection_end(conn)
