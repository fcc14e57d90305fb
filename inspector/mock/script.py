"""The server's side of a recording, as a script a mock server can play. No IO.

Each client message of the recording gets a `Reaction`: what the server
sent because of it, in recorded order. For a request that is the
notifications and server-to-client requests sent while it was in flight
(progress, log messages, sampling, elicitation, roots), then its response;
for a notification (e.g. `notifications/initialized`) it is what the server
sent before the client's next message.

When the recorded server ended the connection itself (a wrapped server that
exited while its client was still there; over HTTP, an upstream failure
before the answer), the reaction during which that happened ends with an
`end` action (`recorded_ends`): the mock then plays the close at that point
instead of leaving the client waiting for an answer that never came.

A response the recorded server sent as one HTTP body (not an SSE event)
keeps its wire (`Action.wire`: status, the headers that matter, body bytes):
the HTTP mock serves it as recorded (`RecordedAnswer`, `wire_body`), a 500
with `"id": null` included; only the id is changed, and only where the
recorded answer echoed the recorded request's id and the client's differs.

Reactions are looked up with an `AnswerBook` (method + normalised params,
never the JSON-RPC id; repeated identical requests get the recorded answers
in order, then the last again). Lifecycle requests (`initialize`,
`server/discover`, `ping`) match on their method alone, since their params
describe the client, not the question.

`RecordedScripts` plays several recordings at once (a whole recorded run:
one session per client connection, as a conformance suite or a proxy in
front of many clients leaves it). Each connection gets its own copy; every
client message is answered from the recording it fits best (`AnswerBook.fit`):
first a recording whose request is this one exactly, `_meta` envelope
included (who the client says it is), then the one that matched most of
this connection's earlier messages (a stateful exchange keeps getting its
own session's answers), then the order the recordings were given in.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from inspector.replay.matching import AnswerBook, MatchPolicy, Miss
from inspector.store.models import Message

__all__ = [
    "LIFECYCLE_METHODS",
    "PLAYED_END",
    "SERVER_EXIT",
    "Action",
    "Reaction",
    "RecordedAnswer",
    "RecordedScript",
    "RecordedScripts",
    "recorded_ends",
    "wire_body",
]

LIFECYCLE_METHODS = frozenset({"initialize", "server/discover", "ping"})
SERVER_EXIT = "server-exit"  # the stdio shim's end reason: the server exited while its client was there
PLAYED_END = "played the recording's end"  # how a mock server records the end it played (itself playable)


@dataclass(frozen=True)
class Action:
    """One thing the server does: `notify` (payload is a notification), `request` (a server-to-client
    request; payload without id), `respond` (payload is the response without id: result or error),
    `sleep` ({"seconds"}), `hang` (never go on), `raw` ({"data"}: bytes sent as they are) or `end`
    (the server ends the connection: {"scope", "exit_status", "http_status", "reason"}; scope
    `connection` (the server went away) or `exchange` (one HTTP exchange broke))."""

    kind: str
    payload: dict[str, Any]
    # A `respond` the recorded server sent as one HTTP body: {"status", "headers", "body", "id",
    # "echoed"} (`_wire`); the HTTP mock serves it as recorded.
    wire: dict[str, Any] | None = field(default=None, compare=False)
    # A `request` of a scenario step under 2026-07-28: {"key": name of its entry in the
    # `input_required` result's inputRequests, "optional": skipped when the client did not declare
    # the capability it needs}; None: a generated key, and required.
    input: dict[str, Any] | None = field(default=None, compare=False)


# Response headers a mock does not copy from the recording: framing and hop-by-hop ones (the body
# is served decoded), the date and server, and the session id (the mock's own).
_NOT_REPLAYED = frozenset(
    {
        "content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive",
        "date", "server", "mcp-session-id", "set-cookie",
    }
)  # fmt: skip


class RecordedAnswer(dict[str, Any]):
    """A response message (as a dict, for any transport) that also carries the recorded HTTP wire:
    the status, headers and body bytes an HTTP transport serves instead of its own framing."""

    def __init__(self, message: dict[str, Any], status: int, headers: list[tuple[str, str]], raw: bytes):
        super().__init__(message)
        self.status = status
        self.headers = headers
        self.raw = raw


def _wire(response: Message, request_id: Any) -> dict[str, Any] | None:
    """The HTTP wire of a response recorded as one body (None for an SSE event or no HTTP)."""
    if (
        response.channel != "http-response"
        or response.http_status is None
        or _meta(response).get("truncated")
    ):
        return None  # an event, no HTTP, or only a prefix recorded
    payload = _payload(response)
    if payload is None:
        return None
    headers = [
        (str(h[0]), str(h[1]))
        for h in response.http_headers or []
        if isinstance(h, list | tuple) and len(h) >= 2 and str(h[0]).lower() not in _NOT_REPLAYED
    ]
    return {
        "status": response.http_status,
        "headers": headers,
        "body": response.body,
        "id": payload.get("id"),
        "echoed": "id" in payload and payload.get("id") == request_id,
    }


def wire_body(wire: dict[str, Any], client_id: Any) -> bytes:
    """The recorded body for a client whose request id is `client_id`: as recorded, except the id
    where the recorded answer echoed the recorded request's id (a null or other id stays)."""
    body: bytes = wire["body"]
    if not wire["echoed"] or client_id == wire["id"]:
        return body
    pattern = rb'("id"\s*:\s*)' + re.escape(orjson.dumps(wire["id"]))
    if len(re.findall(pattern, body)) == 1:  # the recorded bytes, with only the id changed
        new = orjson.dumps(client_id)
        return re.sub(pattern, lambda m: m.group(1) + new, body)
    doc = orjson.loads(body)
    doc["id"] = client_id
    return orjson.dumps(doc)


@dataclass
class Reaction:
    actions: list[Action] = field(default_factory=list)
    # Called on each action just before it is played, with the client's answers so far (results of
    # earlier `request` actions, None for no answer): a scenario fills in templates; None skips it.
    render: Callable[[Action, list[Any]], Action | None] | None = None


def _payload(m: Message) -> dict[str, Any] | None:
    try:
        value = orjson.loads(m.body)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _without_id(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if k not in ("id", "jsonrpc")}


def _meta(m: Message) -> dict[str, Any]:
    return m.meta if isinstance(m.meta, dict) else {}


def recorded_ends(
    rows: list[Message], exit_status: int | None = None, end_reason: str | None = None
) -> dict[int, Action]:
    """The points where the recorded server ended the connection itself: {seq of the client message
    whose reaction it ended: the `end` action}.

    - A wrapped stdio server that exited while its client was connected (`end_reason` is the shim's
      `server-exit`): the end follows the reaction to the client's last message, with the exit status.
    - Over HTTP, an exchange whose answer never came because the upstream failed (a 502 from the
      proxy, or the response or event stream broke): that request's reaction ends there, with the
      status the client got. A client that left (client EOF, disconnect) is not a server's end.
    """
    ends: dict[int, Action] = {}
    jsonrpc = [m for m in rows if m.direction == "c2s" and m.kind in ("request", "notification")]
    if end_reason is not None and end_reason.startswith((SERVER_EXIT, PLAYED_END)) and jsonrpc:
        reason = "the recorded server exited" + (
            f" with status {exit_status}" if exit_status is not None else ""
        )
        last = jsonrpc[-1]
        ends[last.seq] = Action(
            "end", {"scope": "connection", "exit_status": exit_status, "http_status": None, "reason": reason}
        )
    answered = {m.answers_seq for m in rows if m.direction == "s2c" and m.answers_seq is not None}
    request_of: dict[Any, Message] = {}
    for m in rows:
        exchange = _meta(m).get("exchange")
        if exchange is None:
            continue
        if m.direction == "c2s" and m.kind == "request":
            request_of.setdefault(exchange, m)
            continue
        problem = _meta(m).get("problem")
        broke = m.direction == "s2c" and (
            m.http_status == 502
            or (isinstance(problem, str) and problem.startswith(("upstream", PLAYED_END)))
        )
        request = request_of.get(exchange)
        if broke and request is not None and request.seq not in answered and request.seq not in ends:
            status = m.http_status if m.channel == "http-response" else None
            text = problem if isinstance(problem, str) else f"HTTP {status}"
            ends[request.seq] = Action(
                "end",
                {
                    "scope": "exchange",
                    "exit_status": None,
                    "http_status": status,
                    "reason": f"recorded: {text}",
                },
            )
    return ends


class RecordedScript:
    """Reactions of a recorded server, looked up by the client's message."""

    def __init__(self, policy: MatchPolicy | None = None) -> None:
        self.policy = policy or MatchPolicy()
        self.requests = AnswerBook(self.policy)
        self.lifecycle = AnswerBook(MatchPolicy("lenient", ignore=("*",)))
        self.notifications = AnswerBook(MatchPolicy("lenient"))

    @classmethod
    def from_rows(
        cls, rows: list[Message], policy: MatchPolicy | None = None, *, ends: dict[int, Action] | None = None
    ) -> RecordedScript:
        """The script of `rows`; `ends` (from `recorded_ends`) adds the server's recorded end."""
        script = cls(policy)
        ends = ends or {}
        jsonrpc = [m for m in rows if m.kind in ("request", "notification", "response", "error")]
        response_of = {
            m.answers_seq: m for m in jsonrpc if m.direction == "s2c" and m.answers_seq is not None
        }
        claimed: set[int] = set()
        for i, m in enumerate(jsonrpc):
            if m.direction != "c2s" or m.kind not in ("request", "notification"):
                continue
            payload = _payload(m)
            if payload is None:
                continue
            reaction = Reaction()
            end = response_of.get(m.seq) if m.kind == "request" else None
            # A request never answered on an HTTP stream of its own (a `subscriptions/listen`): the
            # events of that stream are its reaction, also those sent after the client's next message.
            stream = _meta(m).get("exchange") if m.kind == "request" and end is None else None
            own_only = False
            for later in jsonrpc[i + 1 :]:
                if end is not None and later.seq == end.seq:
                    break
                if end is None and later.direction == "c2s" and later.kind in ("request", "notification"):
                    if stream is None:
                        break
                    own_only = True
                    continue
                if (
                    later.direction != "s2c"
                    or later.seq in claimed
                    or later.kind not in ("notification", "request")
                    or (own_only and _meta(later).get("exchange") != stream)
                ):
                    continue
                related = (later.meta or {}).get("related_seq") if isinstance(later.meta, dict) else None
                if related is not None and related != m.seq:
                    continue
                body = _payload(later)
                if body is not None:
                    claimed.add(later.seq)
                    reaction.actions.append(
                        Action("notify" if later.kind == "notification" else "request", _without_id(body))
                    )
            if end is not None:
                body = _payload(end)
                if body is not None:
                    reaction.actions.append(
                        Action("respond", _without_id(body), _wire(end, payload.get("id")))
                    )
            if m.seq in ends:  # after the answer, if there was one: the server ended there
                reaction.actions.append(ends[m.seq])
            book = script._book(payload.get("method", ""), m.kind)
            book.add(payload.get("method", ""), payload.get("params"), reaction)
        return script

    def fresh(self) -> RecordedScript:
        """The same script with none of its answers handed out yet."""
        script = RecordedScript(self.policy)
        script.requests = self.requests.fresh()
        script.lifecycle = self.lifecycle.fresh()
        script.notifications = self.notifications.fresh()
        return script

    def _book(self, method: str, kind: str) -> AnswerBook:
        if kind == "notification":
            return self.notifications
        return self.lifecycle if method in LIFECYCLE_METHODS else self.requests

    def react(self, message: dict[str, Any], *, exact: bool = False) -> tuple[Reaction | None, Miss | None]:
        """The recorded reaction to a client request or notification; a `Miss` for an unmatched
        request. `exact`: prefer the reactions to requests sent exactly so (`AnswerBook.take`)."""
        method = message.get("method", "")
        kind = "request" if "id" in message else "notification"
        book = self._book(method, kind)
        found, reaction = book.take(method, message.get("params"), exact=exact)
        if found:
            return reaction, None
        if kind == "notification":
            return None, None
        return None, book.miss(method, message.get("params"))


class RecordedScripts:
    """Several recordings played as one, answering each message from the best fitting one (a
    connection's own copy: `connection()`)."""

    def __init__(self, scripts: list[RecordedScript]) -> None:
        if not scripts:
            raise ValueError("no recording to play")
        self.scripts = scripts
        self.history = [0] * len(scripts)  # how many of this connection's messages each one matched

    @property
    def requests(self) -> AnswerBook:
        return self.scripts[0].requests

    def connection(self) -> RecordedScripts:
        return RecordedScripts([s.fresh() for s in self.scripts])

    def react(self, message: dict[str, Any]) -> tuple[Reaction | None, Miss | None]:
        """The reaction of the recording `message` fits best (to a request sent exactly so, when it
        has one). Every recording it fits takes its answer too, so that each stays where this
        connection is (`B` answers its second `tools/list` with its second answer, though `A`
        answered the first)."""
        method = message.get("method", "")
        kind = "request" if "id" in message else "notification"
        fits: list[tuple[tuple[int, int, int], int]] = []
        for i, script in enumerate(self.scripts):
            fit = script._book(method, kind).fit(method, message.get("params"))
            if fit is not None:
                fits.append(((fit, self.history[i], -i), i))
        if not fits:
            preferred = max(range(len(self.scripts)), key=lambda i: (self.history[i], -i))
            return self.scripts[preferred].react(message)
        chosen = max(fits)[1]
        answer: tuple[Reaction | None, Miss | None] = (None, None)
        for _, i in fits:
            self.history[i] += 1
            taken = self.scripts[i].react(message, exact=True)
            if i == chosen:
                answer = taken
        return answer
