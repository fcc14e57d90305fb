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
  `server_exited`, `connection_end`); `Addons`: the small dispatcher a transport calls.

A transport given no `Addons` (plain `wrap`) never builds a flow: its forwarding
loop is the one it had, and the only cost is one `None` check when it starts.
This module imports nothing of the inspector: the transports and the features
both stand on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypedDict

__all__ = [
    "Addon",
    "Addons",
    "BatchItemMeta",
    "Connection",
    "Direction",
    "Flow",
    "Hold",
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
    Rule-specific details (`delay_ms`, `times`, `position`, `bytes`, `at`, `status`, `events`,
    `held_ms`, `resolved`) ride along with these keys."""

    n: int
    action: str
    by: str  # "rule:<name>", "user", "timeout" or "shutdown"
    delivered: bool  # did the peer receive the sender's bytes?
    rule: str


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
    session_id: str | None = None  # Mcp-Session-Id
    routing_key: str | None = None  # which upstream session the request was routed to
    scope: dict[str, Any] | None = None  # the ASGI scope, when an addon needs more


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


@dataclass(slots=True)
class Verdict:  # not frozen: a frozen dataclass costs ~1 us more per line to build
    """An addon's decision for one flow. The transport records the flow (with its `meta`), then
    does `sends` in order (none: the message is dropped), then closes the connection when
    `disconnect` names a reason. With `hold`, the transport first waits on it (holding back this
    direction only) for the verdict that replaces this one."""

    sends: Sequence[Send] = ()
    disconnect: str | None = None
    hold: Hold | None = None


class Hold(Protocol):
    """A message held until someone (a person, a timeout) decides: a thread blocks in `wait()`,
    an event loop polls `wait(0)` between sleeps."""

    def wait(self, timeout: float | None = None) -> Verdict | None:
        """The verdict once decided; None if `timeout` seconds passed first."""


class Connection(Protocol):
    """What a transport offers its addons for one connection: bytes out of turn and the end."""

    def send(self, to: Direction, raw: bytes, delay_s: float = 0.0) -> None:
        """Write toward a peer outside any flow's verdict (a timer releasing held messages)."""

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

    def stream_end(self, conn: Connection, direction: Direction) -> None:
        for a in self.all:
            a.stream_end(conn, direction)

    def server_exited(self, conn: Connection) -> None:
        for a in self.all:
            a.server_exited(conn)

    def connection_end(self, conn: Connection) -> None:
        for a in reversed(self.all):
            a.connection_end(conn)
