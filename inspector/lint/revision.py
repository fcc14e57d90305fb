"""Which protocol revision applies to each recorded message, and what the session knew at that point.

Sans-IO. `SessionWalk` reads a session's rows in seq order (plain dicts with
`Message`'s columns) and gives each one a `RowContext`: the message
re-classified from its raw bytes, the revision it is checked against, and
the session facts (`protocol.versions.SessionFacts`) as they were *before*
the message. The revision comes from, in this order:

1. the 2026-07-28 per-request `_meta` protocol version of a client message;
2. for a response, the revision of the request it answers (an initialize
   answer: the version it names);
3. the version negotiated by the initialize exchange (or offered, before
   the answer);
4. the `MCP-Protocol-Version` header of the message's HTTP request;
5. the last per-request version of a stateless session.

In a session whose client probes with `server/discover` and falls back to `initialize` when the
server does not take the probe's version, every row from the probe until the `initialize`
request but the client's own versioned messages (the server's refusal, its HTTP parts) is
checked against the revision the session settles on (the initialize answer's), not the
probe's: the server does not speak the offered one (issue #34).
"""

from __future__ import annotations

from typing import Any

from inspector.protocol import Classified, Kind, Pairing, SessionFacts, classify
from inspector.protocol.mcp_tables import (
    KNOWN_PROTOCOL_VERSIONS,
    MODERN_PROTOCOL_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
)
from inspector.protocol.sse import stored_body
from inspector.store.models import StoredRow

__all__ = ["RowContext", "SessionWalk", "header", "headers_of"]

_PV = PROTOCOL_VERSION_META_KEY
_NOT_JSONRPC = frozenset({"http", "log"})
_SETTLED = frozenset(KNOWN_PROTOCOL_VERSIONS) - frozenset(MODERN_PROTOCOL_VERSIONS)


def headers_of(row: StoredRow) -> dict[str, str]:
    """A row's HTTP headers with lower-case names (the last value of a repeated header wins)."""
    raw = row.get("http_headers")
    pairs = raw.items() if isinstance(raw, dict) else raw or []
    out: dict[str, str] = {}
    for pair in pairs:
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            out[str(pair[0]).lower()] = str(pair[1])
    return out


def header(row: StoredRow, name: str) -> str | None:
    """One HTTP header of a row (case-insensitive), or None."""
    return headers_of(row).get(name.lower())


def _meta_version(msg: Classified) -> str | None:
    meta = msg.params.get("_meta")
    version = meta.get(_PV) if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


def _exchange(row: StoredRow) -> int | None:
    meta = row.get("meta")
    number = meta.get("exchange") if isinstance(meta, dict) else None
    return number if isinstance(number, int) else None


def _carries_messages(row: StoredRow, request_row: StoredRow | None) -> bool:
    """Whether the row's bytes are JSON-RPC on the wire. Not the body of a `202 Accepted` (which
    has none: `http-202-with-body`) nor that of an answer to a GET, whose messages come as events
    of a stream (`http-get-answer`): a client reads neither as a message."""
    if row.get("channel") != "http-response":
        return True
    if row.get("http_status") == 202:
        return False
    method = row.get("http_method") or (request_row.get("http_method") if request_row is not None else None)
    return str(method or "").upper() != "GET"


class RowContext:
    """One row as the rules see it.

    A plain slotted class with `seq`, `direction` and `stateless` worked out once: the rules read
    them several times per row (as properties they were a tenth of a 100k-message lint, issue 21)."""

    __slots__ = (
        "direction",
        "facts",
        "init_answered",
        "items",
        "msg",
        "request_row",
        "revision",
        "row",
        "seq",
        "stateless",
    )

    def __init__(
        self,
        row: StoredRow,
        msg: Classified | None,  # None for rows that carry no JSON-RPC (stderr lines, bare HTTP parts)
        revision: str | None,
        facts: SessionFacts,  # before this row
        init_answered: bool,  # the initialize request has been answered (handshake era)
        request_row: StoredRow | None,  # the HTTP request row of this row's exchange
        items: list[Classified] | None = None,  # the message, or a batch's items
    ) -> None:
        self.row = row
        self.msg = msg
        self.revision = revision
        self.facts = facts
        self.init_answered = init_answered
        self.request_row = request_row
        self.items: list[Classified] = items if items is not None else []
        self.seq = int(row["seq"])
        self.direction = str(row["direction"])
        self.stateless = revision in MODERN_PROTOCOL_VERSIONS if revision else False


def _pairing(row: StoredRow, msg: Classified) -> Pairing:
    found = row.get("meta")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    if msg.kind is Kind.BATCH:
        items = meta.get("items") or []
        return Pairing(
            items=[
                Pairing(answers_seq=i.get("answers_seq"), request_method=i.get("request_method"))
                for i in items
                if isinstance(i, dict)
            ]
        )
    if msg.kind is Kind.RESPONSE or msg.kind is Kind.ERROR:
        return Pairing(answers_seq=row.get("answers_seq"), request_method=row.get("method"))
    return _UNPAIRED  # `SessionFacts.observe` reads the pairing of answers only (not one per row)


_UNPAIRED = Pairing()


class SessionWalk:
    """Walks one session's rows in order, keeping the facts and revisions the rules need."""

    def __init__(self, settled: str | None = None) -> None:
        # The revision a session that falls back from a `server/discover` probe to `initialize`
        # settles on (`SessionScan.revision` when the session has a handshake): the rows of the
        # refused probe are the server's answers under that revision, not the one the probe offered.
        self._settled = settled
        self.facts = SessionFacts()
        self.init_answered = False
        self._revision_of: dict[int, str | None] = {}  # request seq -> its revision
        self._exchanges: dict[int, StoredRow] = {}  # HTTP exchange -> its request row
        self._stateless_version: str | None = None

    def context(self, row: StoredRow) -> RowContext:
        """The context of the next row (call `advance` after checking it)."""
        number = _exchange(row)
        if row.get("channel") == "http-request" and number is not None:
            self._exchanges[number] = row
        request_row = self._exchanges.get(number) if number is not None else None
        msg = None
        if (
            row.get("kind") not in _NOT_JSONRPC
            and row.get("raw") is not None
            and _carries_messages(row, request_row)
        ):
            msg = classify(stored_body(row.get("channel"), bytes(row["raw"])))
        items = (msg.items if msg.kind is Kind.BATCH else [msg]) if msg is not None else []
        revision = self._revision(row, msg, items, request_row)
        return RowContext(row, msg, revision, self.facts, self.init_answered, request_row, items)

    def advance(self, ctx: RowContext) -> None:
        """Learn from a checked row."""
        msg = ctx.msg
        if msg is None:
            return
        for item in ctx.items:
            if item.kind is Kind.REQUEST:
                self.note_request(ctx.seq, ctx.revision)
                if ctx.direction == "c2s" and (version := _meta_version(item)) is not None:
                    self._stateless_version = version
        # Rules read `ctx.facts` before this call; the facts object is then updated in place.
        self.facts.observe(ctx.direction, msg, _pairing(ctx.row, msg))
        answers_init = ctx.row.get("method") == "initialize" and msg.kind in (Kind.RESPONSE, Kind.ERROR)
        if answers_init and ctx.row.get("answers_seq") is not None:
            self.init_answered = True

    def note_request(self, seq: int, revision: str | None) -> None:
        """A request was checked under `revision`: its answer will be."""
        self._revision_of[seq] = revision

    def answer_revision(self, answers: Any, settled: str) -> str | None:
        """The revision of an answer (not to initialize) to request `answers` once the session
        is `settled`: the request's own (`_revision`'s rule 2), else the settled one."""
        return self._revision_of.get(answers, settled)

    def settled(self) -> str | None:
        """The revision a message that names none itself is checked against (`_revision`'s rule
        3), once the handshake is over: initialize answered, `notifications/initialized` sent,
        a known handshake-era revision (not 2026-07-28's per-request versions). None before that
        or outside the handshake era. It moves only with a message that changes the facts (a
        per-request version, an initialize or server/discover exchange)."""
        facts = self.facts
        if facts.era != "handshake" or not self.init_answered or not facts.initialized:
            return None
        found = facts.protocol_version or facts.offered_version
        return found if found in _SETTLED else None

    def _revision(
        self,
        row: StoredRow,
        msg: Classified | None,
        items: list[Classified],
        request_row: StoredRow | None,
    ) -> str | None:
        first = items[0] if items else None
        if (
            first is not None
            and row.get("direction") == "c2s"
            and first.kind in (Kind.REQUEST, Kind.NOTIFICATION)
        ):
            if (version := _meta_version(first)) is not None:
                return version
            if first.method == "initialize":
                offered = first.params.get("protocolVersion")
                return offered if isinstance(offered, str) else None
        facts = self.facts
        if self._settled is not None and facts.era == "stateless" and facts.protocol_version is None:
            return self._settled  # before the fallback completes: the answers to the probe
        answers = row.get("answers_seq")
        if msg is not None and answers is not None and msg.kind in (Kind.RESPONSE, Kind.ERROR):
            if row.get("method") == "initialize" and isinstance(msg.result.get("protocolVersion"), str):
                return str(msg.result["protocolVersion"])
            if answers in self._revision_of:
                return self._revision_of[answers]
        if self.facts.era == "handshake":
            return self.facts.protocol_version or self.facts.offered_version
        if request_row is not None:
            if request_row.get("seq") in self._revision_of:
                return self._revision_of[request_row["seq"]]
            if (version := header(request_row, "mcp-protocol-version")) is not None:
                return version
        return self._stateless_version
